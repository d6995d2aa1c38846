// Package serve is `bundlectl serve`: a read-only Kubernetes API server
// over a support bundle of the contract, faithful enough that kubectl,
// client-go informers and k9s work against it as against the cluster the
// bundle came from.
//
// It is the HTTP side of the server; package index builds, once, what it
// answers from. NewHandler is a chain of small handlers, as in
// kube-apiserver (filters.go): the access log (serve -v), the health
// checks, the bearer token, the GETs of one object (objects.go) and the
// request info, then the router
// (handler.go), whose handlers return the error they answer with and one
// function, writeError, writes every error as the server's metav1.Status.
// No request decodes JSON: bodies are put together from the index's
// bytes. Run serves bundles on local listeners with a CA and token made
// for the run, and writes the kubeconfig that points kubectl at them.
//
// The package is generic: no code knows a kind. It never imports
// k8s.io/kubernetes; legacy bundles are upgraded by the function the
// caller passes as Options.Upgrade (transform.UpgradeOnLoad).
package serve
