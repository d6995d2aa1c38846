package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/serve/index"
)

// Requests the server has no route for get the answers kube-apiserver
// 1.35.4 gives (checked against one): the generic 405 for a method a path
// does not take, a 404 Status for a path that does not exist, and the
// read-only 405 only for a write the live server would have taken.
func TestRoutesAsTheServer(t *testing.T) {
	srv := testServer(t)
	generic405 := "the server does not allow this method on the requested resource"
	for _, tc := range []struct {
		method, path string
		code         int
		message      string
		allow        string
	}{
		{http.MethodPut, "/api/v1/namespaces/default/pods", 405, generic405, ""},
		{http.MethodPatch, "/api/v1/namespaces/default/pods", 405, generic405, ""},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web-1", 405, generic405, ""},
		{http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x", 404, "the server could not find the requested resource", ""},
		{http.MethodGet, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x", 404, "the server could not find the requested resource", ""},
		{http.MethodPost, "/api/v1/namespaces/default/pods", 405, "create is not allowed on pods: " + index.ReadOnly, "GET, HEAD"},
		{http.MethodDelete, "/api/v1/namespaces/default/pods", 405, "deletecollection is not allowed on pods: " + index.ReadOnly, "GET, HEAD"},
		{http.MethodDelete, "/api/v1/namespaces/default/pods/web-1", 405, `delete is not allowed on pods "web-1": ` + index.ReadOnly, "GET, HEAD"},
		{http.MethodPut, "/api/v1/namespaces/default/pods/web-1/status", 405, `update is not allowed on pods "web-1": ` + index.ReadOnly, "GET, HEAD"},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web-1/status", 405, generic405, ""},
	} {
		r := do(t, srv, tc.method, tc.path, "Content-Type: application/json")
		reason := "MethodNotAllowed"
		if tc.code == 404 {
			reason = "NotFound"
		}
		wantStatus(t, r, tc.code, reason, tc.message)
		if got := r.header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
		if tc.message == generic405 && !strings.Contains(r.body, `"details":{}`) {
			t.Errorf("%s %s: details not empty: %s", tc.method, tc.path, r.body)
		}
	}
}
