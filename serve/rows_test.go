package serve

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

func TestIsKubectl(t *testing.T) {
	for ua, want := range map[string]bool{
		"kubectl/v1.35.0 (linux/amd64) kubernetes/abc":          true,
		"kubectl.1.33/v1.33.1 (linux/amd64) kubernetes/8adc0f0": true,
		"kubectl.exe/v1.34.0 (windows/amd64) kubernetes/abc":    true,
		"kubectl-neat/v2.0.3 (linux/amd64)":                     false,
		"bundlectl-conformance":                                 false,
		"k9s/v0.32.5 (linux/amd64)":                             false,
		"":                                                      false,
		"kubectl":                                               false,
	} {
		if got := isKubectl(ua); got != want {
			t.Errorf("isKubectl(%q) = %v", ua, got)
		}
	}
}

// kubectl's Tables carry row metadata without managedFields; every other
// client, and kubectl asking for whole objects, gets the server's rows.
func TestKubectlRowsWithoutManagedFields(t *testing.T) {
	x := load(t, servetest.ManyPods(300, 3).WriteDir(t, t.TempDir()))
	h := NewHandler(x, HandlerOptions{})
	const kubectlUA = "kubectl.1.33/v1.33.1 (linux/amd64) kubernetes/8adc0f0"
	rows := func(path, ua string) []map[string]any {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
		req.Header.Set("Accept-Encoding", "gzip") // through the cache of whole lists
		req.Header.Set("User-Agent", ua)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		var body io.Reader = w.Body
		if w.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(w.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		var table struct {
			Rows []struct {
				Object map[string]any `json:"object"`
			} `json:"rows"`
		}
		if err := json.NewDecoder(body).Decode(&table); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []map[string]any
		for _, r := range table.Rows {
			out = append(out, r.Object)
		}
		return out
	}
	for _, path := range []string{"/api/v1/pods", "/api/v1/pods?limit=7", "/api/v1/namespaces/ns-001/pods/app-1-7d9f8b6c5-x00001"} {
		// kubectl first, so that a cache shared with other clients would show.
		lean, full := rows(path, kubectlUA), rows(path, "client-go/v0.35.4")
		if len(lean) == 0 || len(lean) != len(full) {
			t.Fatalf("%s: %d rows for kubectl, %d for client-go", path, len(lean), len(full))
		}
		for i := range full {
			fm := full[i]["metadata"].(map[string]any)
			if _, ok := fm["managedFields"]; !ok {
				t.Fatalf("%s: row %d of client-go has no managedFields: %v", path, i, fm)
			}
			delete(fm, "managedFields")
			if !reflect.DeepEqual(lean[i], full[i]) {
				t.Fatalf("%s: row %d:\nkubectl   %v\nclient-go %v (managedFields removed)", path, i, lean[i], full[i])
			}
		}
	}
	for _, r := range rows("/api/v1/pods?includeObject=Object&limit=3", kubectlUA) {
		if _, ok := r["metadata"].(map[string]any)["managedFields"]; !ok {
			t.Errorf("includeObject=Object: kubectl gets the whole object, managedFields included")
		}
	}
}
