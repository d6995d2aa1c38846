package index

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

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
	dir, size := servetest.BenchBundle(b)
	var x *Index
	for b.Loop() {
		bundle, err := contract.Open(dir, contract.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if x, err = Load(context.Background(), bundle); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(size)/(1<<20), "bundle-MB")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
	b.ReportMetric(rssMB(), "rss-MB")
	b.SetBytes(size)
	runtime.KeepAlive(x)
}
