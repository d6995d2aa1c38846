// Package contract defines what a support bundle is: the paths of the new
// bundle contract (discovery, tables, selectable fields), the Go types of its
// metadata, every legacy layout that Replicated's troubleshoot has written
// since 2021, the decoders for each legacy JSON shape, and a safe streaming
// reader over bundle archives and folders.
//
// Everything in the contract is additive: a legacy bundle is a valid bundle
// with no _meta folder and no tables, and legacy readers ignore what the
// contract adds. The package never imports k8s.io/kubernetes, so the server
// and third-party readers can use it without the Kubernetes monolith.
package contract
