// Package conformance is the live-vs-served contract gate: a live cluster
// from one of the providers (cluster/local, kind, or an existing
// kubeconfig), a bundle collected from it, the same bundle served by
// bundlectl, and kubectl's output diffed between the two.
package conformance
