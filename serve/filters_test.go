package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log several requests write at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The access log has one line per request, the ones the filters answer
// (health checks, a missing token) included: method, path and query,
// status, the bytes sent, the duration.
func TestAccessLog(t *testing.T) {
	var log syncBuffer
	srv := httptest.NewServer(NewHandler(load(t, smallBundle(t)), HandlerOptions{Token: testToken, AccessLog: &log, LogPrefix: "ctx: "}))
	defer srv.Close()
	type call struct {
		method, path string
		token        bool
		code         int
	}
	calls := []call{
		{http.MethodGet, "/api/v1/namespaces/default/pods?limit=1&labelSelector=app%3Dweb", true, http.StatusOK},
		{http.MethodGet, "/api/v1/namespaces/default/pods/nope", true, http.StatusNotFound},
		{http.MethodDelete, "/api/v1/namespaces/default/pods/web-1", true, http.StatusMethodNotAllowed},
		{http.MethodGet, "/api/v1/pods", false, http.StatusUnauthorized},
		{http.MethodGet, "/healthz", false, http.StatusOK},
		{http.MethodGet, "/nope", true, http.StatusNotFound},
		{http.MethodGet, "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1", true, http.StatusOK},
	}
	var sizes []int
	for _, c := range calls {
		var r response
		if c.token {
			r = do(t, srv, c.method, c.path)
		} else {
			resp, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			resp.Body.Close()
			r = response{code: resp.StatusCode, body: body.String()}
		}
		if r.code != c.code {
			t.Fatalf("%s %s: %d, want %d", c.method, c.path, r.code, c.code)
		}
		sizes = append(sizes, len(r.body))
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != len(calls) {
		t.Fatalf("%d lines for %d requests:\n%s", len(lines), len(calls), log.String())
	}
	for i, c := range calls {
		want := regexp.MustCompile(fmt.Sprintf(`^ctx: %s %s %d %dB [0-9.]+(µs|ms|s)$`, c.method, regexp.QuoteMeta(c.path), c.code, sizes[i]))
		if !want.MatchString(lines[i]) {
			t.Errorf("line %q, want %s", lines[i], want)
		}
	}
	// A watch is logged when it ends, with its time.
	if !strings.HasSuffix(lines[len(lines)-1], "s") || strings.HasSuffix(lines[len(lines)-1], "µs") || strings.HasSuffix(lines[len(lines)-1], "ms") {
		t.Errorf("the watch lasted under a second: %q", lines[len(lines)-1])
	}
}

// The log changes nothing in the answers.
func TestAccessLogChangesNothing(t *testing.T) {
	x := load(t, smallBundle(t))
	var log syncBuffer
	plain := httptest.NewServer(NewHandler(x, HandlerOptions{Token: testToken}))
	defer plain.Close()
	logged := httptest.NewServer(NewHandler(x, HandlerOptions{Token: testToken, AccessLog: &log}))
	defer logged.Close()
	for _, path := range []string{"/api/v1/pods", "/api/v1/namespaces/default/pods/web-1", "/apis", "/openapi/v3", "/nope"} {
		a, b := get(t, plain, path, tableAccept), get(t, logged, path, tableAccept)
		a.header.Del("Date")
		b.header.Del("Date")
		if a.code != b.code || a.body != b.body || fmt.Sprint(a.header) != fmt.Sprint(b.header) {
			t.Errorf("%s: the log changed the answer: %d %v / %d %v", path, a.code, a.header, b.code, b.header)
		}
	}
	if n := strings.Count(log.String(), "\n"); n != 5 {
		t.Errorf("%d lines logged for 5 requests", n)
	}
}
