package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

// The benchmarks serve servetest.BenchBundle's 10,000 pods. Requests go
// straight to the handler, so they measure the server alone.

func benchIndex(b *testing.B) *index.Index {
	b.Helper()
	dir, _ := servetest.BenchBundle(b)
	return load(b, dir)
}

// discard is a ResponseWriter that only counts.
type discard struct {
	h http.Header
	n int
}

func (d *discard) Header() http.Header { return d.h }

func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

func (d *discard) WriteHeader(int) {}

func benchRequest(b *testing.B, h http.Handler, path string, headers ...string) {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for _, hd := range headers {
		k, v, _ := strings.Cut(hd, ": ")
		req.Header.Set(k, v)
	}
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, req) // warm: the gzip cache of whole lists is built once
	b.SetBytes(int64(w.n))
	b.ResetTimer()
	for b.Loop() {
		w := &discard{h: http.Header{}}
		h.ServeHTTP(w, req)
	}
}

func BenchmarkServe(b *testing.B) {
	h := NewHandler(benchIndex(b), HandlerOptions{})
	accept := strings.TrimPrefix(tableAccept, "Accept: ")
	for _, bc := range []struct {
		name, path string
		headers    []string
	}{
		{"TableList10kPods", "/api/v1/pods", []string{"Accept: " + accept}},
		{"TableList10kPodsGzip", "/api/v1/pods", []string{"Accept: " + accept, "Accept-Encoding: gzip"}},
		{"TableChunk500Pods", "/api/v1/pods?limit=500", []string{"Accept: " + accept}},
		{"JSONList10kPods", "/api/v1/pods", []string{"Accept: application/json"}},
		{"JSONList10kPodsGzip", "/api/v1/pods", []string{"Accept: application/json", "Accept-Encoding: gzip"}},
		{"Get", "/api/v1/namespaces/ns-042/pods/app-42-7d9f8b6c5-x00042", []string{"Accept: application/json"}},
		{"GetTable", "/api/v1/namespaces/ns-042/pods/app-42-7d9f8b6c5-x00042", []string{"Accept: " + accept}},
		{"FieldSelected", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-3,status.phase%21%3DFailed", []string{"Accept: " + accept}},
		{"LabelSelected", "/api/v1/pods?labelSelector=app%3Dapp-7,tier+in+(frontend,cache)", []string{"Accept: " + accept}},
	} {
		b.Run(bc.name, func(b *testing.B) { benchRequest(b, h, bc.path, bc.headers...) })
	}
}

// BenchmarkBaselineDecodeEncode is what a server that decodes on each
// request pays for the same 10k pods: decoding the lists and encoding
// them again, without building a table.
func BenchmarkBaselineDecodeEncode(b *testing.B) {
	bundle, _ := servetest.BenchBundle(b)
	dir := filepath.Join(bundle, contract.ClusterResourcesDir, "pods")
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	var size int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasSuffix(e.Name(), contract.TableSuffix) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, data)
			size += int64(len(data))
		}
	}
	b.SetBytes(size)
	for b.Loop() {
		var items []any
		for _, f := range files {
			var l struct {
				Items []any `json:"items"`
			}
			if err := json.Unmarshal(f, &l); err != nil {
				b.Fatal(err)
			}
			items = append(items, l.Items...)
		}
		if _, err := json.Marshal(map[string]any{"kind": "PodList", "items": items}); err != nil {
			b.Fatal(err)
		}
	}
}
