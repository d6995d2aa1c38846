// Package conformance is the live-vs-served contract gate: a live cluster
// from one of the providers (the processes of internal/localapiserver,
// kind, or an existing kubeconfig), a bundle collected from it, the same
// bundle served by bundlectl, and kubectl's output diffed between the two.
//
// # The run
//
// Run creates the cluster, applies the fixtures (package fixtures) into
// namespaces of its own, and collects a bundle of those namespaces and
// the cluster-scoped lists with package collect, the server's own tables
// included. Then:
//
//   - Gate A, the transform: the bundle stripped of its tables and _meta
//     (a legacy bundle) is upgraded by package transform, and every table
//     it synthesizes must be the server's, column definitions, cells, row
//     conditions, row objects, row identity and order, and list metadata.
//   - Gate B, the server: the bundle is served in process (package serve)
//     and every case of the command matrix runs against the served bundle
//     and then the live cluster: the real kubectl binary, each run with a
//     HOME and cache dir of its own, or a raw HTTP request for what kubectl
//     cannot send. The outputs named by the check are compared with go-cmp.
//
// At the end the fixtures are removed (when the cluster outlives the run)
// and the cluster deleted, on failure and cancellation too.
//
// # The command matrix
//
// The matrix is data: checks.yaml, embedded (DefaultChecks), plus the
// files users add (LoadChecks). A check is expanded over what the
// collected bundle holds (ReadInventory): once, per resource, per object,
// per fixture namespace or per pod log, its kubectl arguments being Go
// templates over CaseData.
//
// # What is forgiven
//
// Only values that truly move between the collection and the query, each
// named by the check that allows it and counted in the report: ages the
// server rendered, which must have advanced by the time between the
// collection and the live query, no less (a served age that moves with
// the clock is a divergence) and no more; ages kubectl computes itself,
// ahead on the live side by at most the time between the two runs; the
// revision of lists and tables; managedFields times; klog headers on
// kubectl's stderr; for ComponentStatus only (which the server computes
// at each request in no order), the order of rows; a node's heartbeats;
// and an Event recorded again since the collection (its count up, its
// last time later, the order kubectl sorts it in). See Normalizations.
//
// Divergences known and accepted are listed, each with its reason, in the
// baseline (baseline.yaml, embedded, or a file of the user's); the gate
// fails on any other divergence and on every baseline entry that no longer
// happens.
//
// # Reports
//
// Result.WriteText for people, WriteMarkdown for a CI job summary,
// WriteJUnit for CI test reporting.
package conformance
