package servetest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
)

// BenchPods is the size of the benchmarks' bundle: 10,000 pods of about
// 3 kB in 100 namespaces, the size at which k9s and kubectl start to
// struggle on the client side.
const BenchPods = 10000

var bench struct {
	once sync.Once
	dir  string
	size int64
	err  error
}

// BenchBundle writes ManyPods(BenchPods, 100) once per test binary and
// returns its folder and the size of its cluster-resources.
func BenchBundle(b *testing.B) (dir string, size int64) {
	b.Helper()
	bench.once.Do(func() {
		tmp, err := os.MkdirTemp("", "serve-bench-*")
		if err != nil {
			bench.err = err
			return
		}
		if bench.dir, bench.err = ManyPods(BenchPods, 100).Write(tmp); bench.err != nil {
			return
		}
		bench.err = filepath.Walk(filepath.Join(bench.dir, contract.ClusterResourcesDir), func(_ string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				bench.size += fi.Size()
			}
			return err
		})
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dir, bench.size
}

// FuzzWatchdog crashes the process when a fuzz input runs longer than d,
// so that the fuzzer keeps a hang as a failing input; call the function
// it returns when the input is done.
func FuzzWatchdog(d time.Duration) func() {
	timer := time.AfterFunc(d, func() { panic(fmt.Sprintf("one input ran over %v", d)) })
	return func() { timer.Stop() }
}
