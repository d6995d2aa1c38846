// Package index is what `bundlectl serve` answers from: a bundle of the
// contract read once, at load, into memory, so that no request decodes
// JSON or opens a file of the bundle.
//
// Load reads the lists of record (contract.Bundle.IsListOfRecord) into
// objects kept as compact JSON in etcd key order, attaches each its
// stored table row, extracts the labels and the values of every
// selectable field (fields.go), copies the collected logs aside
// (logs.go), and renders the discovery and OpenAPI documents and the
// deprecation warnings of the bundle's release. It knows nothing of HTTP:
// package serve does.
package index
