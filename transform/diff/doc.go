// Package diff compares two bundles of one cluster object by object: what
// was added, removed, re-created (replaced: same name, another uid) or
// changed, per kind, with the rows of each side's own tables (rendered as
// of each bundle's collection time) and the changed cells marked.
//
// The comparison streams, as a database joins tables larger than its
// memory: the first pass over each bundle reads, per object, its identity
// (group, kind, namespace, name), uid, the digest of its bytes and where it
// is, without decoding it, and sorts these by identity (sorter.go: sorted
// runs in a nameless temporary file, spill.go, merged when read); the two
// sorted streams are joined, and what differs is numbered in the report's
// order. The detail passes read each side again, the differences sorted
// by where the side holds them: they decode those objects, leave the noise
// out (normalize.go), decide whether they still differ, and read their
// fields and table rows (details.go), all of it sorted again by the
// report's order; the report is written from the temporary file object by
// object (json.go, text.go). Memory holds the list being read, a budget
// of records and a few names per kind and per list: not a record per
// object or per difference, nor the report, nor the bundles.
//
// What matters to a person (restarts up, pods no longer Running, new
// Warning events, image changes, node conditions, deployments with fewer
// available replicas) is type-specific knowledge, kept here under
// transform/ as the project's rules ask (highlights.go).
package diff
