package diff

import (
	"context"
	"errors"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
)

// differ holds one comparison's state between its passes. What grows
// with the objects and the differences goes through sorters (sorter.go)
// from one pass to the next: memory holds their budget, and per kind and
// per list a few names.
type differ struct {
	o              *Options
	a, b           *side
	filesA, filesB files
	// indexA and indexB are each side's objects by identity (index);
	// changes counts the differences join found (emit).
	indexA, indexB *sorter
	changes        uint32
	// listsA, tablesA, listsB and tablesB are the changes in the order
	// of each side's lists and tables, for its detail pass; out are the
	// report's records of each change (partKey), highlights its
	// highlights.
	listsA, tablesA, listsB, tablesB *sorter
	out, highlights                  *sorter
	sorters                          *sorters
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
	// buf is the first passes' buffer of one compacted item; bufA B's
	// pass's of one object of A as compared (objectA).
	buf, bufA []byte
	// spill is the temporary file of the sorters' runs and the report.
	spill *spill
	// heap is the soft heap limit (memory.go).
	heap *memory
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
	if o.runBudget == 0 {
		o.runBudget = defaultRunBudget
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
	d := &differ{o: &o, a: a, b: b,
		noise: map[groupKind]int{}, notCompared: map[NotCompared]int{}, resources: map[groupKind]string{},
		colsA: map[groupKind][]metav1.TableColumnDefinition{}, colsB: map[groupKind][]metav1.TableColumnDefinition{},
		heap: newMemory()}
	defer d.heap.restore()
	a.heap, b.heap = d.heap, d.heap
	if d.spill, err = newSpill(); err != nil {
		return nil, err
	}
	d.sorters = &sorters{spill: d.spill, budget: o.runBudget, buffers: d.heap.add}
	for _, s := range []**sorter{&d.indexA, &d.indexB, &d.listsA, &d.tablesA, &d.listsB, &d.tablesB, &d.out, &d.highlights} {
		*s = d.sorters.new()
	}
	res, err := d.run(ctx)
	if err != nil {
		d.spill.close()
		return nil, err
	}
	return res, nil
}

// run makes the passes over both sides and puts the report together.
func (d *differ) run(ctx context.Context) (*Result, error) {
	if err := d.index(ctx, d.a, &d.filesA, d.indexA); err != nil {
		return nil, err
	}
	if err := d.index(ctx, d.b, &d.filesB, d.indexB); err != nil {
		return nil, err
	}
	if err := d.join(); err != nil {
		return nil, err
	}
	if err := d.detailPass(ctx, sideOf{s: d.a, files: &d.filesA, lists: d.listsA, tables: d.tablesA, isA: true}); err != nil {
		return nil, err
	}
	if err := d.detailPass(ctx, sideOf{s: d.b, files: &d.filesB, lists: d.listsB, tables: d.tablesB}); err != nil {
		return nil, err
	}
	if d.o.Logs {
		var err error
		if d.logs, err = compareLogs(ctx, d.a, d.b); err != nil {
			return nil, err
		}
	}
	return d.result()
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
