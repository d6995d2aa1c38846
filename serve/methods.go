package serve

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// isRead says whether a request's method only reads.
func isRead(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// refuseMethod answers a write method on a path that only reads (the
// version, the discovery roots, OpenAPI, watches) with the server's
// generic 405: no write is ever answered as if it had been taken.
func refuseMethod(w http.ResponseWriter) {
	w.Header().Set("Allow", "GET, HEAD")
	writeStatus(w, &metav1.Status{
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Message: "the server does not allow this method on the requested resource",
		Details: &metav1.StatusDetails{},
	})
}
