package transform

import (
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/bundlectl/bundlectl/contract"
)

// MemoryLimitBase is the part of a job's soft heap limit that does not
// follow the bundle: what keeps the upgrade under its target of 100 MB
// plus the largest file (make bench-long) with the executable's own
// resident pages, 46-47 MB as read from disk (peakrss.FromDisk); each 3
// MB less costs about 15% more collections.
const MemoryLimitBase = 50 << 20

// memoryLimit is the soft limit of the Go heap during an upgrade. The
// garbage collector lets the heap grow to twice what is live before it
// runs; near this limit it runs sooner, so that the peak follows what the
// upgrade holds (the largest entry, the budget of entries read ahead and
// a chunk of decoded objects per worker, the OpenAPI documents of the
// CRDs: a few times the CRD list, written as JSON) and not the garbage it
// makes.
func memoryLimit(b *contract.Bundle) int64 {
	return MemoryLimitBase + b.LargestEntry + 4*int64(len(b.CRDList))
}

// HeapLimit moves the heap's soft limit with what a job holds besides a
// base (for the upgrade, memoryLimit): the lists it has decoded, each
// item's slice, type and key (contract.List.Overhead) and its index in
// storage order, and whatever else it accounts for (Add). A list of a
// million small items holds about as much again as its file, and a limit
// that counts only the file would have the collector run without end.
// Its zero value is not for use: NewHeapLimit sets the limit, and Restore
// puts back the one before.
type HeapLimit struct {
	mu               sync.Mutex
	base, held, prev int64
}

// NewHeapLimit sets the heap's soft limit to base.
func NewHeapLimit(base int64) *HeapLimit {
	return &HeapLimit{base: base, prev: debug.SetMemoryLimit(base)}
}

// Hold raises the limit by what l holds, until release is called.
func (h *HeapLimit) Hold(l *contract.List) (release func()) {
	n := l.Overhead() + int64(len(l.Items))*strconv.IntSize/8
	h.Add(n)
	return func() { h.Add(-n) }
}

// Add raises the limit by n bytes (lowers it, negative).
func (h *HeapLimit) Add(n int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held += n
	debug.SetMemoryLimit(h.base + h.held)
}

// Restore puts back the limit there was before NewHeapLimit.
func (h *HeapLimit) Restore() { debug.SetMemoryLimit(h.prev) }
