package diff

import (
	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform"
)

// memory is the comparison's soft heap limit, as the upgrade keeps one
// (transform.HeapLimit): the garbage collector lets the heap grow to
// twice what is live before it runs, so without a limit the peak follows
// the garbage the passes make. What the comparison holds besides the
// entry it reads does not grow with the bundles (the sorters' budget)
// or is added (add: the buffers of the runs merged), so the limit is the
// upgrade's base, raised by an entry before it is read, and by the list
// it holds: the
// garbage of before is collected first rather than left under the new
// entry, and no list is counted while none is read.
type memory struct {
	limit *transform.HeapLimit
}

func newMemory() *memory {
	return &memory{limit: transform.NewHeapLimit(transform.MemoryLimitBase)}
}

// reading raises the limit by n bytes, an entry about to be read, until
// release is called: raised before the read, so that the garbage of
// before is collected first, not on top of it.
func (m *memory) reading(n int64) (release func()) {
	m.limit.Add(n)
	return func() { m.limit.Add(-n) }
}

// hold raises the limit by what list l holds, until release is called.
func (m *memory) hold(l *contract.List) (release func()) { return m.limit.Hold(l) }

// add raises the limit by n bytes (lowers it, negative).
func (m *memory) add(n int64) { m.limit.Add(n) }

// restore puts back the limit there was before the comparison.
func (m *memory) restore() { m.limit.Restore() }
