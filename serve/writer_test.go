package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bundlectl/bundlectl/serve/servetest"
)

// A client on this machine gets a large list uncompressed even when it
// accepts gzip; a client elsewhere gets it compressed, the same bytes.
func TestUncompressedLoopback(t *testing.T) {
	x := load(t, servetest.ManyPods(200, 4).WriteDir(t, t.TempDir()))
	h := uncompressedLoopback(NewHandler(x, HandlerOptions{}))
	serve := func(remote string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		req.RemoteAddr = remote
		req.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for _, remote := range []string{"127.0.0.1:40000", "[::1]:40000", "127.3.4.5:1"} {
		w := serve(remote)
		if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != "" || w.Body.Len() <= gzipThreshold {
			t.Errorf("from %s: %d, Content-Encoding %q, %d bytes; want a plain body over %d bytes", remote, w.Code, w.Header().Get("Content-Encoding"), w.Body.Len(), gzipThreshold)
		}
	}
	for _, remote := range []string{"192.0.2.7:40000", "[2001:db8::1]:1", "not an address"} {
		if w := serve(remote); w.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("from %s: Content-Encoding %q, want gzip", remote, w.Header().Get("Content-Encoding"))
		}
	}
}
