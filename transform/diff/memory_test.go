package diff

import (
	"context"
	"io"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// Compare puts back the heap limit it found, the upgrades on load of
// legacy bundles included (the example bundle is legacy).
func TestCompareRestoresTheHeapLimit(t *testing.T) {
	const before = 1 << 40
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(before))
	example := filepath.Join(contracttest.RepoRoot(t), "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	res, err := Compare(context.Background(), Options{A: example, B: example, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after Compare, want %d", got, int64(before))
	}
}

// The diff's heap limit is the upgrade's base, raised by an entry while
// it is read (before, so that the garbage of before is collected first),
// and put back at the end.
func TestMemoryFollowsReads(t *testing.T) {
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	before := limit()
	m := newMemory()
	if got := limit(); got != transform.MemoryLimitBase {
		t.Fatalf("limit %d, want the base %d", got, transform.MemoryLimitBase)
	}
	release := m.reading(100 << 20)
	if got, want := limit(), transform.MemoryLimitBase+int64(100<<20); got != want {
		t.Errorf("limit %d while a 100 MB entry is read, want %d", got, want)
	}
	release()
	if got := limit(); got != transform.MemoryLimitBase {
		t.Errorf("limit %d once read, want the base", got)
	}
	m.restore()
	if got := limit(); got != before {
		t.Errorf("limit %d after restore, want %d as before", got, before)
	}
}
