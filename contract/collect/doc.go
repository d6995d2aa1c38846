// Package collect is the reference collector of the bundle contract: it
// reads a live cluster with client-go's transport and writes a bundle in
// troubleshoot's layout with everything the contract adds. It knows
// nothing of the command line and never imports k8s.io/kubernetes.
//
// # What a bundle holds
//
// Under a top folder support-bundle-YYYY-MM-DDTHH_MM_SS named from the
// collection time:
//
//   - cluster-resources/<dir>/<ns>.json and cluster-resources/<dir>.json:
//     every resource with the list verb, at its group's preferred version
//     (or the first other version serving it), built-in and custom alike,
//     in contract.DirFor's folder. Each file is a typed list as the server
//     returned it (kind, apiVersion, metadata.resourceVersion, items as
//     served), indented by two spaces as troubleshoot writes.
//   - cluster-resources/_meta/converted/<group|core>.<version>.<resource>/<ns>.json
//     (contract.ConvertedListDir): the same for every other version
//     that serves a resource, and for a resource the server stores as
//     another's (events.k8s.io events, contract.CohabitantOf): the
//     server's own conversions, which the upgrade makes from the other
//     lists of a legacy bundle.
//   - beside each, <same stem>.table.json: the server's own
//     meta.k8s.io/v1 Table for that list (default includeObject, so each
//     row's object is PartialObjectMetadata), byte for byte as sent.
//   - cluster-resources/groups.json and resources.json, bare arrays of
//     APIGroup and APIResourceList as troubleshoot writes them, read from
//     the legacy discovery endpoints (so in server order, with kind and
//     storageVersionHash, like troubleshoot before aggregated discovery);
//     cluster-info/cluster_version.json; and
//     cluster-resources/_meta/discovery.json built from the same answers.
//   - cluster-resources/_meta/selectable-fields/<group>.<version>.<resource>.json:
//     the sorted field-selector labels the server accepts, probed.
//   - cluster-resources/pods/logs/<ns>/<pod>/<container>[-previous].log.
//   - cluster-resources/_meta/openapi/v3/<path>.json, every document the
//     /openapi/v3 index lists, byte for byte, and _meta/openapi/v2.json,
//     /openapi/v2 in JSON: what kubectl explain reads.
//
// # Namespaces
//
// Without Options.Namespaces each resource is listed once across all
// namespaces, table included, and the answer is split by namespace: every
// namespace the cluster lists gets a file, empty or not, as troubleshoot
// does. A split file keeps the whole answer's members and metadata
// (so the all-namespaces resourceVersion) and holds the items or rows of
// its namespace, each byte for byte; a namespace with none gets the
// server's own encoding of no rows (the default table convertor sends
// "rows":null, printers []), learned by a LIST that matches nothing. With
// Options.Namespaces each namespaced resource is listed, and its table
// fetched, in each of those namespaces, and the files are the answers
// themselves.
//
// # One second for every table
//
// The server computes ages when it renders a table, and the upgrade
// pipeline recomputes them from discovery.json's collectedAt; the
// conformance gate compares the two cell by cell. So collectedAt is the
// server's clock (its Date header) and every table must be rendered in
// that second. The collector polls /version until the Date ticks over to
// a new second, then requests every table at once (up to 128 in flight)
// and checks that every answer carries the same Date. If they differ it
// tries again, up to four bursts, unless a burst took over two seconds
// and so cannot fit in one (a huge cluster). Then it keeps the last
// burst's tables, takes the earliest Date as collectedAt, and reports that
// ages may differ by as much as the Dates do.
//
// Only the tables are in the burst. Each raw list is fetched after it at
// the resourceVersion of its table (resourceVersionMatch=Exact), so list
// and table hold the same objects; when the server cannot serve that
// version the current list is taken and the difference reported.
//
// # Secrets
//
// Secrets are collected, but each value of data and stringData is
// replaced by ***HIDDEN*** (base64-encoded in data, so the object still
// decodes) with the keys kept, so the server's DATA column still counts
// them; the same values inside the kubectl.kubernetes.io/last-applied-configuration
// annotation are masked too, in the lists and in the tables' row objects,
// which is the only change ever made to a table. Options.IncludeSecretValues
// keeps everything.
//
// # Failures
//
// Only what leaves nothing useful fails a collection: a server that cannot
// be reached, a bundle that cannot be written, no resource listable, or a
// cancelled context. Every other failure (a table, a list, a selectable
// field probe, a log, a discovery group) is a Problem in the Summary, and
// the rest is written regardless: a raw list never depends on its table.
// The bundle goes through contract.CreateWriter, so a failure or Ctrl-C
// leaves nothing at the destination.
//
// # Selectable fields
//
// For each resource every candidate label is probed with
// fieldSelector=<label>=<a value nothing has>&limit=1: 200 accepts it,
// 400 refuses it, anything else leaves the resource without a file and is
// reported. The candidates are metadata.name, metadata.namespace, every
// label (and alias) contract.BuiltinFieldSet knows for the resources the
// server serves, and every CRD version's selectableFields. Probes run 32
// at a time.
//
// # Logs
//
// Every container (init, app, ephemeral) of every scheduled pod gets its
// log, the last 10000 lines and at most 5 MiB, each line with the
// kubelet's timestamp (serve shows them only when asked for, and needs
// them for --since), and its previous log when it restarted; 30 seconds
// per request. A log that fails (a cluster without kubelets answers
// errors) is reported and recorded where troubleshoot records it,
// <container>[-previous]-logs-errors.log.
package collect
