package diff

import (
	"unsafe"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform"
)

// heap is the comparison's soft heap limit, as the upgrade keeps one
// (transform.HeapLimit): the garbage collector lets the heap grow to
// twice what is live before it runs, so without a limit the peak follows
// the garbage the passes make. The limit is the upgrade's base, the
// largest entry of either bundle and the list being read (a list is read
// whole), A's objects held for their fields (the held budget), and the
// records that grow with the objects and the differences: A's index
// until B is read, then a record per change and per highlight. Counting
// only the lists would have the collector run without end once the
// records are the larger part (a bundle of many small lists).
type heap struct {
	limit *transform.HeapLimit
	// pending is what the records changed since the limit last moved:
	// it moves by a MB at least, not at every record.
	pending int64
}

func newHeap(a, b *contract.Bundle, heldBudget int) *heap {
	return &heap{limit: transform.NewHeapLimit(transform.MemoryLimitBase + max(a.LargestEntry, b.LargestEntry) + int64(heldBudget))}
}

// hold raises the limit by what list l holds, until release is called.
func (h *heap) hold(l *contract.List) (release func()) { return h.limit.Hold(l) }

// records raises the limit by n bytes of records (lowers it, negative).
func (h *heap) records(n int64) {
	h.pending += n
	if h.pending >= 1<<20 || h.pending <= -1<<20 {
		h.limit.Add(h.pending)
		h.pending = 0
	}
}

// restore puts back the limit there was before the comparison.
func (h *heap) restore() { h.limit.Restore() }

// The records' sizes: what each holds besides its strings' bytes, and
// the slot that holds it, twice (a map or slice grows by doubling: up to
// half its slots are spare, and the old array is live while it is
// copied).
const (
	indexRecord     = int64(unsafe.Sizeof(indexed{})) + 2*int64(unsafe.Sizeof(objectKey{})+unsafe.Sizeof(&indexed{}))
	changeRecord    = int64(unsafe.Sizeof(change{})) + 2*2*int64(unsafe.Sizeof(&change{})) // d.changes, and a detail pass's byFile
	highlightRecord = 2 * int64(unsafe.Sizeof(noted{}))
)

func keyBytes(k objectKey) int64 { return int64(len(k.Namespace) + len(k.Name)) }

func highlightBytes(h Highlight) int64 {
	return int64(len(h.Namespace) + len(h.Name) + len(h.Detail))
}
