// Package contract defines what a support bundle is: the paths of the new
// bundle contract (discovery, tables, selectable fields), the Go types of its
// metadata, every legacy layout that Replicated's troubleshoot has written
// since 2021, the decoders for each legacy JSON shape, and a safe streaming
// reader over bundle archives and folders.
//
// Everything in the contract is additive: a legacy bundle is a valid bundle
// with no _meta folder and no tables, and legacy readers ignore what the
// contract adds.
//
// # OpenAPI (schema 1.0, optional)
//
// A bundle may carry the OpenAPI documents the server published, so that
// `kubectl explain` works against the snapshot:
//
//   - _meta/openapi/v3/<path>.json is the document the server serves at
//     /openapi/v3/<path>, for every path its /openapi/v3 index lists
//     (api/v1, apis/apps/v1, a custom resource's apis/<group>/<version>,
//     and the few that are not group versions, such as version), byte for
//     byte: the index is not stored, because it is the list of these paths
//     with the SHA-512 of each document, which a reader recomputes;
//   - _meta/openapi/v2.json is the server's /openapi/v2 document as JSON.
//
// Files are added within schema 1.x: readers that do not know them ignore
// them, and a bundle without them is still valid. The package never imports k8s.io/kubernetes, so the server
// and third-party readers can use it without the Kubernetes monolith.
package contract
