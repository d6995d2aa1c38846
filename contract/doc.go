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
// # Converted lists (schema 1.0, optional)
//
// A live server converts its one stored copy of an object to every group
// version it serves the resource at (core Events are also events.k8s.io
// Events; HorizontalPodAutoscalers are served at autoscaling/v1 and v2).
// A bundle stores each list at one version, so the upgrade adds, for every
// other group version discovery serves, the list that version would have
// returned, and its Table beside it:
//
//   - _meta/converted/<group|core>.<version>.<resource>/<ns>.json and
//     .table.json, for a namespaced resource;
//   - _meta/converted/<group|core>.<version>.<resource>.json and
//     .table.json, for a cluster-scoped one.
//
// Each is a typed list (kind, apiVersion, metadata, items without their
// type), for the same namespace as the stored list it was converted
// from. Classify marks them Converted, with the group resource and
// version from the path (ConvertedListDir); they are under _meta/, which
// legacy readers ignore, and a reader of the contract answers a request
// at that group version from them rather than from the stored list.
//
// Files are added within schema 1.x: readers that do not know them ignore
// them, and a bundle without them is still valid. The package never imports k8s.io/kubernetes, so the server
// and third-party readers can use it without the Kubernetes monolith.
package contract
