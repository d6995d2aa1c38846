package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// Rows that depend on the rest of the list. The printers of some releases
// render an object's row differently in a list than alone: 1.37's mark
// " (default)" only on the newest of the listed StorageClasses annotated
// default, and never in a single object's table. serve answers every
// selection and page of a list from one stored table, so the upgrade
// finds such rows with the printers themselves, and writes what serve
// needs (contract.RankedRows). What those printers do is assumed: in any
// list, at most one row differs from its object's row alone, that of the
// highest-ranked, by a fixed ranking, of the listed objects whose rows
// differ in a list of themselves (the candidates). The ranking checks it
// on every pair it compares and on the list of all the candidates; a
// resource for which it fails gets no file, and a problem: its tables
// are served as stored.
//
//  1. As a list is rendered, each row is compared with its object's row
//     alone: one more printer call per object, on the objects decoded for
//     the list (convertInternal). A list where none differs holds no
//     candidate. A bundle with tables of its own (collected) has its
//     lists decoded and printed for this alone (checkRanked).
//  2. In a list where one does, every object is rendered alone and as a
//     list of itself: the candidates, with both rows (candidates).
//  3. After the stream, the candidates of a resource, of all its lists,
//     are ranked by rendering them two at a time, and the ranking is
//     checked by rendering them all together (rank).

// maxRankedRows bounds the candidates of a resource: ranking them costs a
// render of two objects per comparison.
const maxRankedRows = 1000

// rankedCandidate is an object whose row in a list of itself differs from
// its row alone.
type rankedCandidate struct {
	namespace, name string
	// item is the object as the bundle holds it, gvk its type as
	// rendered, list the group version resource and kind of its list.
	item     json.RawMessage
	gvk      schema.GroupVersionKind
	listGVR  schema.GroupVersionResource
	listKind string
	// row is its row alone, top its row in a list of itself.
	row, top metav1.TableRow
}

func (c *rankedCandidate) key() string { return storageKeyOf(c.namespace, c.name) }

// rankedSet gathers the candidates of one resource from all its lists,
// which workers render at once.
type rankedSet struct {
	mu    sync.Mutex
	cands []rankedCandidate
	err   error
}

func (s *rankedSet) add(cands []rankedCandidate, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	s.cands = append(s.cands, cands...)
}

// done says whether more candidates would change nothing: a check has
// failed, or there are too many to rank.
func (s *rankedSet) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err != nil || len(s.cands) > maxRankedRows
}

// convertInternal converts list with s as the server of r's minor does,
// or, with l.alone, its one object as a single GET does. For the
// printers, when l gathers ranked rows, dependent says whether some row
// the pinned printers print differs from its object's row alone, or could
// not be compared (the candidates then say why). That is before the
// cells of older minors are set (forMinor): they are set row by row, from
// the row and its object, and make no row depend on the list that did
// not; they can make one not depend on it (the StorageClasses of 1.36),
// which the candidates find.
func (r *Renderer) convertInternal(s internalStorage, l List, list runtime.Object, inList []runtime.Object, raws map[runtime.Object]json.RawMessage) (table *metav1.Table, dependent bool, err error) {
	var target runtime.Object = list
	if l.alone {
		if len(inList) != 1 {
			return nil, false, fmt.Errorf("%d objects to render as one", len(inList))
		}
		target = inList[0]
	}
	if table, err = s.convert(target); err != nil || !s.printers {
		return table, false, err
	}
	if !l.alone && l.ranked != nil && !l.ranked.done() {
		for i := range table.Rows {
			alone, err := s.convert(table.Rows[i].Object.Object)
			if err != nil || len(alone.Rows) != 1 || !sameRow(alone.Rows[0], table.Rows[i]) {
				dependent = true
				break
			}
		}
	}
	return table, dependent, forMinor(r.minor, kindOf(list), table, raws)
}

// candidates renders each object of l alone and in a list of itself, and
// returns those whose two rows differ.
func (r *Renderer) candidates(l List, s internalStorage) ([]rankedCandidate, error) {
	l.ranked = nil
	var out []rankedCandidate
	for i := range l.Items {
		one := l.subset([]int{i})
		listed, err := r.internalTable(one, s)
		var alone *metav1.Table
		if err == nil {
			one.alone = true
			alone, err = r.internalTable(one, s)
		}
		if err != nil {
			return nil, itemError(i, l.Items[i], err)
		}
		if len(listed.Rows) != 1 || len(alone.Rows) != 1 {
			return nil, itemError(i, l.Items[i], fmt.Errorf("%d rows in a list of itself, %d alone", len(listed.Rows), len(alone.Rows)))
		}
		if sameRow(listed.Rows[0], alone.Rows[0]) {
			continue
		}
		m := alone.Rows[0].Object.Object.(*metav1.PartialObjectMetadata)
		gvk := l.GVR.GroupVersion().WithKind(l.Kind)
		if l.ItemGVKs != nil {
			gvk = l.ItemGVKs[i]
		}
		out = append(out, rankedCandidate{namespace: m.Namespace, name: m.Name, item: bytes.Clone(l.Items[i]), gvk: gvk,
			listGVR: l.GVR, listKind: l.Kind, row: cellsOnly(alone.Rows[0]), top: cellsOnly(listed.Rows[0])})
	}
	return out, nil
}

// rank orders the candidates of a resource, highest first, by which of
// two shows its top row when they are listed together, and checks that
// listed all together, the first shows its top row and the others their
// rows alone.
func (r *Renderer) rank(cands []rankedCandidate) (*contract.RankedRows, error) {
	slices.SortStableFunc(cands, func(a, b rankedCandidate) int { return strings.Compare(a.key(), b.key()) })
	cands = slices.CompactFunc(cands, func(a, b rankedCandidate) bool { return a.key() == b.key() })
	if len(cands) > maxRankedRows {
		return nil, fmt.Errorf("more than %d objects whose rows depend on the rest of the list, which are not ranked (a table of two per comparison)", maxRankedRows)
	}
	var err error
	slices.SortStableFunc(cands, func(a, b rankedCandidate) int {
		if err != nil {
			return 0
		}
		var top string
		top, err = r.topOf([]rankedCandidate{a, b})
		if top == a.key() {
			return -1
		}
		return 1
	})
	if err != nil {
		return nil, err
	}
	top, err := r.topOf(cands)
	if err != nil {
		return nil, err
	}
	if top != cands[0].key() {
		return nil, fmt.Errorf("listed all together, %s shows its top row, where %s ranks first two at a time", top, cands[0].key())
	}
	out := &contract.RankedRows{Rows: make([]contract.RankedRow, 0, len(cands))}
	for _, c := range cands {
		row, err := encodeRowCells(c.row)
		var top contract.RowCells
		if err == nil {
			top, err = encodeRowCells(c.top)
		}
		if err != nil {
			return nil, err
		}
		out.Rows = append(out.Rows, contract.RankedRow{Namespace: c.namespace, Name: c.name, Row: row, TopRow: top})
	}
	return out, nil
}

// topOf renders a list of cands and returns the one that shows its top
// row: exactly one must, and every other its row alone.
func (r *Renderer) topOf(cands []rankedCandidate) (string, error) {
	l := List{GVR: cands[0].listGVR, Kind: cands[0].listKind, ItemGVKs: make([]schema.GroupVersionKind, len(cands))}
	byKey := make(map[string]*rankedCandidate, len(cands))
	for i := range cands {
		l.Items = append(l.Items, cands[i].item)
		l.ItemGVKs[i] = cands[i].gvk
		byKey[cands[i].key()] = &cands[i]
	}
	table, err := r.internalTable(l, printerStorage)
	if err != nil {
		return "", err
	}
	var tops []string
	for _, row := range table.Rows {
		m := row.Object.Object.(*metav1.PartialObjectMetadata)
		c, ok := byKey[storageKeyOf(m.Namespace, m.Name)]
		switch {
		case !ok:
			return "", fmt.Errorf("listed with %d others, %s has a row of an object not listed", len(cands)-1, cands[0].key())
		case sameRow(row, c.top):
			tops = append(tops, c.key())
		case !sameRow(row, c.row):
			return "", fmt.Errorf("listed with %d others, %s shows neither its row alone nor its row in a list of itself", len(cands)-1, c.key())
		}
	}
	if len(tops) != 1 || len(table.Rows) != len(cands) {
		return "", fmt.Errorf("listed together, %d of %d objects show their top rows (%s), where one must", len(tops), len(cands), strings.Join(tops, ", "))
	}
	return tops[0], nil
}

// checkRanked renders a list whose table the bundle holds only to gather
// its ranked rows, for the printers' kinds: the tables of a collected
// bundle are the server's.
func (r *Renderer) checkRanked(ctx context.Context, l List) error {
	if !r.rendersWithPrinters(l) {
		return nil
	}
	return r.eachChunk(ctx, l, func(chunk List) error {
		if l.ranked.done() {
			return nil
		}
		_, _, err := r.table(ctx, chunk)
		return err
	})
}

// rendersWithPrinters says whether r.table renders l with the printers.
func (r *Renderer) rendersWithPrinters(l List) bool {
	gvk := l.GVR.GroupVersion().WithKind(l.Kind)
	if l.Custom || storageConvertors[l.GVR.GroupResource()] != "" {
		return false
	}
	if _, removed := removedKindFor(gvk.GroupKind(), r.minor); removed {
		return false
	}
	if _, withPrinter, ok := newInternalList(gvk); ok {
		return withPrinter
	}
	as, ok := readableVersion(gvk)
	if !ok {
		return false
	}
	_, withPrinter, _ := newInternalList(as)
	return withPrinter
}

// sameRow says whether two rows show the same: cells and conditions.
func sameRow(a, b metav1.TableRow) bool {
	return reflect.DeepEqual(a.Cells, b.Cells) && reflect.DeepEqual(a.Conditions, b.Conditions)
}

// cellsOnly is a row without its object, which the candidates need not keep.
func cellsOnly(row metav1.TableRow) metav1.TableRow {
	return metav1.TableRow{Cells: row.Cells, Conditions: row.Conditions}
}

// encodeRowCells encodes a row's cells and conditions as the table encodes them.
func encodeRowCells(row metav1.TableRow) (contract.RowCells, error) {
	cells, err := json.Marshal(row.Cells)
	if err != nil {
		return contract.RowCells{}, fmt.Errorf("encoding a ranked row: %w", err)
	}
	out := contract.RowCells{Cells: cells}
	if len(row.Conditions) > 0 {
		if out.Conditions, err = json.Marshal(row.Conditions); err != nil {
			return contract.RowCells{}, fmt.Errorf("encoding a ranked row: %w", err)
		}
	}
	return out, nil
}

// gathersRanked says whether the lists of c's resource are searched for
// ranked rows: those of built-in resources whose ranked rows the bundle
// does not hold already.
func (p *pipeline) gathersRanked(c contract.Classification) bool {
	return !c.Custom && !p.b.Names[contract.RankedRowsPath(c.GR)]
}

// rankedSet is where the candidates of a list of the stored resource are
// gathered; nil when its lists are not searched.
func (p *pipeline) rankedSet(c contract.Classification, s stored) *rankedSet {
	gr := s.gvr.GroupResource()
	if c.Custom || p.b.Names[contract.RankedRowsPath(gr)] {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	set := p.ranked[gr]
	if set == nil {
		set = &rankedSet{}
		p.ranked[gr] = set
	}
	return set
}

// writeRankedRows adds _meta/ranked-rows/, after the stream, for every
// resource some list of which holds candidates; a resource that fails a
// check is reported instead.
func (p *pipeline) writeRankedRows(at time.Time) error {
	var grs []schema.GroupResource
	for gr, set := range p.ranked {
		if len(set.cands) > 0 || set.err != nil {
			grs = append(grs, gr)
		}
	}
	slices.SortFunc(grs, func(a, b schema.GroupResource) int { return strings.Compare(a.String(), b.String()) })
	for _, gr := range grs {
		set := p.ranked[gr]
		rel := contract.RankedRowsPath(gr)
		var rows *contract.RankedRows
		err := set.err
		if err == nil {
			rows, err = p.r.rank(set.cands)
		}
		if err != nil {
			p.sum.problem(rel, fmt.Errorf("%s: %w; its tables are served as stored, with the same rows whatever a request selects", gr, err))
			continue
		}
		data, err := rows.Marshal()
		if err != nil {
			return err
		}
		if err := p.w.WriteEntry(newEntryHeader(entryName(p.b, rel), int64(len(data)), nil, at), bytes.NewReader(data)); err != nil {
			return err
		}
		p.sum.rankedRows(gr)
	}
	return nil
}
