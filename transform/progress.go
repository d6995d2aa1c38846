package transform

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress counts what the reader has taken from the bundle. The totals
// are known from the bundle's first pass.
type progress struct {
	totalEntries int
	totalBytes   int64
	entries      atomic.Int64
	bytes        atomic.Int64
}

func (p *progress) add(size int64) {
	p.entries.Add(1)
	p.bytes.Add(size)
}

// start rewrites a progress line on w a few times a second until stop,
// which leaves the final line on its own.
func (p *progress) start(w io.Writer) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintf(w, "\r%s\n", p.line())
				return
			case <-t.C:
				fmt.Fprintf(w, "\r%s", p.line())
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func (p *progress) line() string {
	return fmt.Sprintf("upgrading: %d/%d entries, %s/%s", p.entries.Load(), p.totalEntries, mb(p.bytes.Load()), mb(p.totalBytes))
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
