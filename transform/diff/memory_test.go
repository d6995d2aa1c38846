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

// The diff's heap limit moves with its records in steps of a MB, back
// down when they go, and the limit before it is put back at the end.
func TestHeapLimitFollowsRecords(t *testing.T) {
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	before := limit()
	h := &heap{limit: transform.NewHeapLimit(64 << 20)}
	if got := limit(); got != 64<<20 {
		t.Fatalf("limit %d, want the base %d", got, 64<<20)
	}
	h.records(512 << 10)
	if got := limit(); got != 64<<20 {
		t.Errorf("half a MB of records moved the limit to %d", got)
	}
	h.records(600 << 10)
	if got, want := limit(), int64(64<<20+1112<<10); got != want {
		t.Errorf("limit %d after 1,112 KB of records, want %d", got, want)
	}
	h.records(-1112 << 10)
	if got := limit(); got != 64<<20 {
		t.Errorf("limit %d once the records went, want the base", got)
	}
	h.restore()
	if got := limit(); got != before {
		t.Errorf("limit %d after restore, want %d as before", got, before)
	}
}

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
