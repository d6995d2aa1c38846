package serve

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Concurrent first requests for a whole list wait for one compression.
func TestGzipCacheCompressesOnce(t *testing.T) {
	var c gzipCache
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]string, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = string(c.get("k", func() []byte {
				calls.Add(1)
				<-release
				return []byte("z")
			}))
		}()
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("compressed %d times, want once", n)
	}
	for i, g := range got {
		if g != "z" {
			t.Errorf("request %d got %q", i, g)
		}
	}
	if b := c.get("other", func() []byte { return []byte("o") }); string(b) != "o" {
		t.Errorf("another key: %q", b)
	}
}
