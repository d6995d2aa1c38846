// Package peers is `make bench-peers`: bundlectl measured against its real
// peers on the same generated bundle in one run; it lives under internal
// because only the benchmark runs it, and like the gate it puts a served
// bundle beside the pinned kube-apiserver of the --local provider.
//
// Run generates the benchmark bundle (contracttest.Large: 10,000 pods of
// 3-6 kB with managedFields, owner references, two containers and full
// status, over 20 namespaces, 500 Deployments, ReplicaSets and Services,
// 50 nodes, 5,000 events), then:
//
//   - the upgrade: `bundlectl upgrade` of the archive against a plain gzip
//     decompress-and-recompress of the same archive (compress/gzip at the
//     default level, as BenchmarkUpgrade), alternately, and the upgrade's
//     peak RSS;
//   - the server: the same objects loaded into the local kube-apiserver
//     (nodes first, status through the status subresource, and the
//     bundle's managedFields put back with a last update, so that both
//     servers hold the same bytes per object), and the upgraded archive
//     served by `bundlectl serve`. Each figure is measured on both, A and B
//     alternately (A B, then B A), so that machine noise and the other
//     server's garbage collection hit both: Table LISTs with kubectl's
//     Accept header, chunked as kubectl does (limit=500) and whole, a JSON
//     LIST, single Table GETs, field- and label-selected Table LISTs, 20
//     concurrent Table LISTs on 20 connections, the wall time of `kubectl
//     get pods -A` with a warm discovery cache, and each server's RSS
//     after the run.
//
// Every request goes through client-go's transport as kubectl builds it
// (HTTP/2, gzip accepted, bearer token), and every figure is a median. The
// report prints one line per figure, `name bundlectl=<v> peer=<v>
// ratio=<peer/bundlectl>`, where a ratio above 1 is bundlectl ahead, and
// Report.Markdown is BENCHMARKS.md: the table, the targets, the machine,
// its load, the date, and the findings kept in notes.md.
package peers
