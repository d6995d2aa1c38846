package serve

import (
	"net/http"
)

// isRead says whether a request's method only reads.
func isRead(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// errReadOnlyPath answers a write method on a path that only reads (the
// version, the discovery roots, OpenAPI, watches) with the server's
// generic 405: no write is ever answered as if it had been taken.
func errReadOnlyPath() error {
	return withAllow(errMethodNotAllowed(), "GET, HEAD")
}
