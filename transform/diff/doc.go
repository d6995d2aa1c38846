// Package diff compares two bundles of one cluster object by object: what
// was added, removed, re-created (replaced: same name, another uid) or
// changed, per kind, with the rows of each side's own tables (rendered as
// of each bundle's collection time) and the changed cells marked.
//
// The comparison streams: the first pass over bundle A keeps, per object,
// its identity (group, kind, namespace, name), uid, the digest of its bytes
// and where it is, without decoding it; the pass over B compares each of
// its objects with that index and keeps only what differs. Second passes
// over the lists that hold a difference decode those objects, leave the
// noise out (normalize.go), decide whether they still differ, and read
// their fields and table rows (details.go). What grows with the report
// (rows, fields, uids) goes to a nameless temporary file (spill.go) as it
// is read, and the report is written from it object by object (json.go,
// text.go): memory keeps a small record per object and per difference,
// not the report, nor the bundles.
//
// What matters to a person (restarts up, pods no longer Running, new
// Warning events, image changes, node conditions, deployments with fewer
// available replicas) is type-specific knowledge, kept here under
// transform/ as the project's rules ask (highlights.go).
package diff
