package serve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

func TestLogs(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		path, want string
	}{
		{"/api/v1/namespaces/default/pods/web-2/log", "web-2 app line 1\nweb-2 app line 2\nweb-2 app line 3\nweb-2 app line 4\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=sidecar", "web-1 sidecar line 1\nweb-1 sidecar line 2\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&previous=true", "web-1 app previous line 1\nweb-1 app previous line 2\nweb-1 app previous line 3\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=2", "web-1 app line 4\nweb-1 app line 5\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=0", ""},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=2&limitBytes=5", "web-1"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&limitBytes=100000", "web-1 app line 1\nweb-1 app line 2\nweb-1 app line 3\nweb-1 app line 4\nweb-1 app line 5\n"},
	} {
		r := get(t, srv, tc.path)
		if r.code != http.StatusOK || r.body != tc.want || r.header.Get("Content-Type") != "text/plain" {
			t.Errorf("%s: %d %q %q, want %q", tc.path, r.code, r.header.Get("Content-Type"), r.body, tc.want)
		}
	}
	for _, tc := range []struct {
		path   string
		code   int
		reason string
		msg    string
	}{
		// The server's own messages when no container is named.
		{"/api/v1/namespaces/default/pods/web-1/log", 400, "BadRequest", "a container name must be specified for pod web-1, choose one of: [setup app sidecar]"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=nope", 400, "BadRequest", "container nope is not valid for pod web-1"},
		{"/api/v1/namespaces/default/pods/nope/log", 404, "NotFound", `pods "nope" not found`},
		{"/api/v1/namespaces/default/pods/web-2/log?previous=true", 404, "NotFound", `the previous logs of container "app" of pod "web-2" in namespace "default" were not collected in this support bundle`},
		{"/api/v1/namespaces/kube-system/pods/coredns-abc/log", 404, "NotFound", `the logs of container "coredns" of pod "coredns-abc" in namespace "kube-system" were not collected in this support bundle`},
		{"/api/v1/namespaces/default/pods/web-2/log?tailLines=-1", 422, "Invalid", ""},
		{"/api/v1/namespaces/default/pods/web-2/log?limitBytes=0", 422, "Invalid", ""},
		{"/api/v1/namespaces/default/pods/web-2/log?tailLines=x", 400, "BadRequest", ""},
	} {
		wantStatus(t, get(t, srv, tc.path), tc.code, tc.reason, tc.msg)
	}
}

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int64
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\nc\n", 5, "a\nb\nc\n"},
		{"a\nb\nc\n", -1, "a\nb\nc\n"},
		{"", 3, ""},
	} {
		if got := string(tail([]byte(tc.in), tc.n)); got != tc.want {
			t.Errorf("tail(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestContainersOf reads container names from a pod's compact JSON without
// decoding it, init and ephemeral containers included, in the order the
// server's messages list them.
func TestContainersOf(t *testing.T) {
	pod := rawjson.AppendCompact(nil, []byte(`{"metadata":{"name":"p"},"spec":{
		"initContainers":[{"name":"setup","image":"x","command":["sh","-c","echo {\"name\":\"fake\"}"]}],
		"containers":[{"image":"y","name":"app"},{"name":"side\u0063ar"}],
		"ephemeralContainers":[{"name":"debugger"}]},
		"status":{"containerStatuses":[{"name":"not-a-spec-container"}]}}`))
	p := containersOf(pod)
	if got := strings.Join(p.all(), ","); got != "setup,app,sidecar,debugger" {
		t.Errorf("containers %s", got)
	}
	if _, err := chooseContainer("", "p", p); err == nil || err.Error() != "a container name must be specified for pod p, choose one of: [setup app sidecar debugger]" {
		t.Errorf("no container: %v", err)
	}
	if c, err := chooseContainer("debugger", "p", p); err != nil || c != "debugger" {
		t.Errorf("ephemeral container: %q %v", c, err)
	}
	single := containersOf([]byte(`{"spec":{"containers":[{"name":"only"}]}}`))
	if c, err := chooseContainer("", "p", single); err != nil || c != "only" {
		t.Errorf("the only container: %q %v", c, err)
	}
	if got := containersOf([]byte(`{"metadata":{"name":"no-spec"}}`)).all(); len(got) != 0 {
		t.Errorf("no spec: %v", got)
	}
}
