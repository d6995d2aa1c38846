package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/serve/servetest"
)

// The benchmarks serve 10,000 pods of about 3 kB in 100 namespaces, the
// size at which k9s and kubectl start to struggle on the client side.
// Requests go straight to the handler, so they measure the server alone.

const benchPods = 10000

var (
	benchOnce sync.Once
	benchDir  string
	benchSize int64
)

func benchBundle(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "serve-bench-*")
		if err != nil {
			b.Fatal(err)
		}
		if benchDir, err = servetest.ManyPods(benchPods, 100).Write(dir); err != nil {
			b.Fatal(err)
		}
		filepath.Walk(filepath.Join(benchDir, contract.ClusterResourcesDir), func(_ string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				benchSize += fi.Size()
			}
			return nil
		})
	})
	return benchDir
}

func benchIndex(b *testing.B) *Index {
	b.Helper()
	bundle, err := contract.Open(benchBundle(b), contract.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	x, err := Load(context.Background(), bundle)
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// rssMB reads the resident set size from /proc (Linux only; 0 elsewhere).
func rssMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkLoad reports the load time of 10k pods (with their tables) and
// the memory held once loaded, next to the bundle's size on disk.
func BenchmarkLoad(b *testing.B) {
	benchBundle(b)
	var x *Index
	for b.Loop() {
		x = benchIndex(b)
	}
	b.StopTimer()
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(benchSize)/(1<<20), "bundle-MB")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
	b.ReportMetric(rssMB(), "rss-MB")
	b.SetBytes(benchSize)
	runtime.KeepAlive(x)
}

// discard is a ResponseWriter that only counts.
type discard struct {
	h http.Header
	n int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }
func (d *discard) WriteHeader(int)             {}

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
	dir := filepath.Join(benchBundle(b), contract.ClusterResourcesDir, "pods")
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
