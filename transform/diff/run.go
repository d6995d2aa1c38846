package diff

import (
	"context"
	"errors"
	"io"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
)

// differ holds one comparison's state between its passes.
type differ struct {
	o              *Options
	a, b           *side
	filesA, filesB files
	// index is A's objects, from the first pass until B has been read.
	index   map[objectKey]*indexed
	changes []*change
	// noise counts, per kind, the objects left out because they differ
	// only in noise.
	noise map[groupKind]int
	// resources names each kind as kubectl does (pods, deployments.apps).
	resources map[groupKind]string
	// colsA and colsB are each side's table columns per kind.
	colsA, colsB map[groupKind][]metav1.TableColumnDefinition
	logs         []LogChange
	// notCompared counts the objects of one side that the other does
	// not tell of (side.holds).
	notCompared map[NotCompared]int
	// buf is the first passes' buffer of one compacted item, then the
	// buffer of one piece read back from the spill.
	buf []byte
	// heldA are the objects of A held for their fields (canonical JSON),
	// held their size.
	heldA map[*change][]byte
	held  int
	// highlights are those of the changes, in the order found.
	highlights []noted
	// spill holds what grows with the differences (spill.go);
	// kindColumns are the columns of each kind's report, once the passes
	// are done.
	spill       *spill
	kindColumns map[groupKind][]string
	// heap is the soft heap limit (memory.go); indexBytes what A's
	// index adds to it.
	heap       *heap
	indexBytes int64
}

// Compare compares bundle o.B with bundle o.A. The caller closes the
// result, which removes its temporary file.
func Compare(ctx context.Context, o Options) (*Result, error) {
	if o.A == "-" && o.B == "-" {
		return nil, errors.New("only one of the two bundles can be standard input")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.heldBudget == 0 {
		o.heldBudget = defaultHeldBudget
	}
	if o.Limits == (contract.Limits{}) {
		o.Limits = contract.DefaultLimits
	}
	a, err := open(ctx, o.A, o)
	if err != nil {
		return nil, err
	}
	defer a.cleanup()
	b, err := open(ctx, o.B, o)
	if err != nil {
		return nil, err
	}
	defer b.cleanup()
	d := &differ{o: &o, a: a, b: b, index: map[objectKey]*indexed{},
		noise: map[groupKind]int{}, notCompared: map[NotCompared]int{}, resources: map[groupKind]string{},
		colsA: map[groupKind][]metav1.TableColumnDefinition{}, colsB: map[groupKind][]metav1.TableColumnDefinition{},
		heldA: map[*change][]byte{}, heap: newHeap(a.b, b.b, o.heldBudget)}
	defer d.heap.restore()
	a.heap, b.heap = d.heap, d.heap
	if d.spill, err = newSpill(); err != nil {
		return nil, err
	}
	if err := d.run(ctx); err != nil {
		d.spill.close()
		return nil, err
	}
	return d.result(), nil
}

// run makes the passes over both sides.
func (d *differ) run(ctx context.Context) error {
	if err := d.indexA(ctx); err != nil {
		return err
	}
	if err := d.compareB(ctx); err != nil {
		return err
	}
	if err := d.details(ctx); err != nil {
		return err
	}
	if d.spill.err != nil {
		return d.spill.err
	}
	if d.o.Logs {
		var err error
		if d.logs, err = compareLogs(ctx, d.a, d.b); err != nil {
			return err
		}
	}
	return nil
}

// columns notes a side's table columns of a kind, the first seen.
func (d *differ) columns(isA bool, gk groupKind, cols []metav1.TableColumnDefinition) {
	m := d.colsB
	if isA {
		m = d.colsA
	}
	if _, ok := m[gk]; !ok {
		m[gk] = cols
	}
}

// noted is a highlight of change c.
type noted struct {
	c *change
	h Highlight
}

// sortChanges orders the changes, and the highlights by their change,
// by kind (as kubectl names it), namespace and name.
func (d *differ) sortChanges() {
	sort.Slice(d.changes, func(i, j int) bool { return d.before(d.changes[i].key, d.changes[j].key) })
	sort.SliceStable(d.highlights, func(i, j int) bool { return d.before(d.highlights[i].c.key, d.highlights[j].c.key) })
}

func (d *differ) before(ki, kj objectKey) bool {
	if ri, rj := d.resources[ki.groupKind], d.resources[kj.groupKind]; ri != rj {
		return ri < rj
	}
	if ki.groupKind != kj.groupKind {
		return ki.groupKind.String() < kj.groupKind.String()
	}
	if ki.Namespace != kj.Namespace {
		return ki.Namespace < kj.Namespace
	}
	return ki.Name < kj.Name
}
