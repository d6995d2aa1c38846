// Package serve is `bundlectl serve`: a read-only Kubernetes API server
// over a support bundle of the contract, faithful enough that kubectl,
// client-go informers and k9s work against it as against the cluster the
// bundle came from.
//
// Load reads a bundle once into an Index: every object as compact JSON in
// etcd key order, its labels, the values of its selectable fields, its
// stored table row, the discovery documents, the OpenAPI documents with
// their hashes (what kubectl explain reads). NewHandler answers the API
// from the Index without decoding JSON on the request path: selectors
// compare strings extracted at load. Run serves bundles on local listeners
// with a CA and token made for the run, and writes the kubeconfig that
// points kubectl at them.
//
// The package is generic: no code knows a kind. What differs between
// kinds comes from the bundle (discovery, stored tables, selectable
// fields) or from the contract package. It never imports
// k8s.io/kubernetes; legacy bundles are upgraded by the caller through
// Options.Upgrade.
package serve
