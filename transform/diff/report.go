package diff

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Report is what Compare found, as -o json writes it (see Result).
type Report struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Equal: no object (and with --logs no log) differs, noise aside.
	Equal bool `json:"equal"`
	// All: the noise was kept (Options.All).
	All        bool           `json:"all"`
	Kinds      []KindChanges  `json:"kinds"`
	Highlights []Highlight    `json:"highlights"`
	Objects    []ObjectChange `json:"objects"`
	Logs       []LogChange    `json:"logs,omitempty"`
	// NotCompared are the objects of one bundle that the other does not
	// tell of: they are neither added nor removed.
	NotCompared []NotCompared `json:"notCompared,omitempty"`
	// Warnings name the files of either bundle that could not be read.
	Warnings []string `json:"warnings,omitempty"`
}

// NotCompared counts the objects of a resource that bundle Side does not
// tell of, and why: it did not collect the resource, or could not read
// its list of that name.
type NotCompared struct {
	Side     string `json:"side"`
	Resource string `json:"resource"`
	Why      string `json:"why"`
	Objects  int    `json:"objects"`
}

// Side is one bundle of the comparison.
type Side struct {
	Path              string    `json:"path"`
	KubernetesVersion string    `json:"kubernetesVersion"`
	CollectedAt       time.Time `json:"collectedAt"`
}

// KindChanges counts the changes of one kind. Columns are the table
// columns kubectl prints of it (B's, else A's), which each object's rows
// follow.
type KindChanges struct {
	Group    string `json:"group,omitempty"`
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
	Added    int    `json:"added"`
	Removed  int    `json:"removed"`
	Replaced int    `json:"replaced"`
	Changed  int    `json:"changed"`
	// NoiseOnly counts the objects left out because they differ only in
	// noise (0 with Options.All, which reports them as changed).
	NoiseOnly int      `json:"noiseOnly,omitempty"`
	Columns   []string `json:"columns"`
}

// ObjectChange is one object that differs. RowA and RowB are its rows in
// each side's table, as of that side's collection time; ChangedColumns
// are the columns whose cells differ other than by the clock.
type ObjectChange struct {
	Group          string        `json:"group,omitempty"`
	Kind           string        `json:"kind"`
	Namespace      string        `json:"namespace,omitempty"`
	Name           string        `json:"name"`
	Change         string        `json:"change"`
	UIDA           string        `json:"uidA,omitempty"`
	UIDB           string        `json:"uidB,omitempty"`
	RowA           []any         `json:"rowA,omitempty"`
	RowB           []any         `json:"rowB,omitempty"`
	ChangedColumns []string      `json:"changedColumns,omitempty"`
	Fields         []FieldChange `json:"fields,omitempty"`
	// MoreFields counts the differing fields past the first maxFields.
	MoreFields int `json:"moreFields,omitempty"`
}

// Result is a comparison's report: its head (Report, all but Objects)
// in memory, and its objects, which grow with the differences, read back
// one at a time from the comparison's temporary file as they are
// written (WriteJSON, WriteText). Close removes the file.
type Result struct {
	Report
	// count is the number of objects; object is the i-th, in order (a
	// function, so that a test can give a Report's own objects).
	count  int
	object func(i int) (ObjectChange, error)
	remove func() error
}

// Close removes the result's temporary file.
func (r *Result) Close() error {
	if r.remove == nil {
		return nil
	}
	err := r.remove()
	r.remove = nil
	return err
}

// result assembles the report's head from what the passes found; its
// objects are the sorted changes, made when written (objectAt).
func (d *differ) result() *Result {
	d.sortChanges()
	r := &Result{Report: Report{
		A:   Side{Path: d.a.name, KubernetesVersion: d.a.version, CollectedAt: d.a.collectedAt},
		B:   Side{Path: d.b.name, KubernetesVersion: d.b.version, CollectedAt: d.b.collectedAt},
		All: d.o.All, Logs: d.logs, Highlights: []Highlight{}, Kinds: []KindChanges{},
	}, count: len(d.changes), object: d.objectAt, remove: d.spill.close}
	d.kindColumns = map[groupKind][]string{}
	kinds := map[groupKind]*KindChanges{}
	kind := func(gk groupKind) *KindChanges {
		if k := kinds[gk]; k != nil {
			return k
		}
		k := &KindChanges{Group: gk.Group, Kind: gk.Kind, Resource: d.resources[gk], Columns: []string{}}
		for _, c := range printed(d.colsB[gk], d.colsA[gk]) {
			k.Columns = append(k.Columns, c.Name)
		}
		kinds[gk], d.kindColumns[gk] = k, k.Columns
		return k
	}
	byType := map[string][]Highlight{}
	for _, c := range d.changes {
		k := kind(c.key.groupKind)
		switch c.typ {
		case added:
			k.Added++
		case removed:
			k.Removed++
		case replaced:
			k.Replaced++
		case changed:
			k.Changed++
		}
	}
	for _, n := range d.highlights {
		byType[n.h.Type] = append(byType[n.h.Type], n.h)
	}
	d.highlights = nil
	for gk, n := range d.noise {
		kind(gk).NoiseOnly = n
	}
	for _, k := range kinds {
		r.Kinds = append(r.Kinds, *k)
	}
	sort.Slice(r.Kinds, func(i, j int) bool {
		ki, kj := r.Kinds[i], r.Kinds[j]
		if ki.Resource != kj.Resource {
			return ki.Resource < kj.Resource
		}
		return groupKind{ki.Group, ki.Kind}.String() < groupKind{kj.Group, kj.Kind}.String()
	})
	for _, t := range highlightOrder {
		r.Highlights = append(r.Highlights, byType[t]...)
	}
	for k, n := range d.notCompared {
		k.Objects = n
		r.NotCompared = append(r.NotCompared, k)
	}
	sort.Slice(r.NotCompared, func(i, j int) bool {
		a, b := r.NotCompared[i], r.NotCompared[j]
		if a.Side != b.Side {
			return a.Side < b.Side
		}
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Why < b.Why
	})
	r.Warnings = append(append(r.Warnings, d.a.warnings...), d.b.warnings...)
	r.Equal = r.count == 0 && len(r.Logs) == 0
	return r
}

// objects counts k's objects in the report: its changes.
func (k KindChanges) objects() int { return k.Added + k.Removed + k.Replaced + k.Changed }

// printed are the columns kubectl prints by default (priority 0) of the
// first side that has a table of the kind.
func printed(sides ...[]metav1.TableColumnDefinition) []metav1.TableColumnDefinition {
	for _, cols := range sides {
		if len(cols) == 0 {
			continue
		}
		var out []metav1.TableColumnDefinition
		for _, c := range cols {
			if c.Priority == 0 {
				out = append(out, c)
			}
		}
		return out
	}
	return []metav1.TableColumnDefinition{{Name: "Name"}}
}

// objectAt is the i-th change as reported, its uids, rows and fields
// read back from the spill, its rows following its kind's columns.
func (d *differ) objectAt(i int) (ObjectChange, error) {
	c := d.changes[i]
	gk := c.key.groupKind
	oc := ObjectChange{Group: gk.Group, Kind: gk.Kind, Namespace: c.key.Namespace, Name: c.key.Name, Change: string(c.typ)}
	data, err := d.piece(c.uids)
	if err != nil {
		return oc, err
	}
	r := &reader{b: data}
	if oc.UIDA, oc.UIDB = r.string(), r.string(); r.err != nil {
		return oc, d.spill.fail(fmt.Errorf("uids of %s: %w", c.key.Name, r.err))
	}
	columns := d.kindColumns[gk]
	if c.a.held() {
		if oc.RowA, err = d.row(c.rowA, d.colsA[gk], columns, c.key.Name); err != nil {
			return oc, err
		}
	}
	if c.b.held() {
		if oc.RowB, err = d.row(c.rowB, d.colsB[gk], columns, c.key.Name); err != nil {
			return oc, err
		}
	}
	if oc.RowA != nil && oc.RowB != nil {
		for i, col := range columns {
			if durations.ReplaceAllString(cellText(oc.RowA[i]), "") != durations.ReplaceAllString(cellText(oc.RowB[i]), "") {
				oc.ChangedColumns = append(oc.ChangedColumns, col)
			}
		}
	}
	if data, err = d.piece(c.fields); err != nil {
		return oc, err
	}
	if oc.Fields, oc.MoreFields, err = readFields(data); err != nil {
		return oc, d.spill.fail(fmt.Errorf("fields of %s: %w", c.key.Name, err))
	}
	return oc, nil
}

// piece reads back the piece at sp into d.buf, until the next.
func (d *differ) piece(sp span) ([]byte, error) {
	data, err := d.spill.get(sp, d.buf)
	if data != nil {
		d.buf = data[:0]
	}
	return data, err
}

// row reads back a side's table row (the cells as when they were read,
// decoded as then) in the order of columns; see align.
func (d *differ) row(sp span, cols []metav1.TableColumnDefinition, columns []string, name string) ([]any, error) {
	data, err := d.piece(sp)
	if err != nil {
		return nil, err
	}
	var cells []any
	if data != nil {
		if err := utiljson.Unmarshal(data, &cells); err != nil {
			return nil, d.spill.fail(fmt.Errorf("a row of %s: %w", name, err))
		}
	}
	return align(cells, cols, columns, name), nil
}

// align gives a row's cells in the order of columns, by column name (two
// releases may print a kind with different columns); a side without a
// table row gets the object's name under Name and nothing else.
func align(cells []any, cols []metav1.TableColumnDefinition, columns []string, name string) []any {
	out := make([]any, len(columns))
	for i, want := range columns {
		out[i] = ""
		if cells == nil {
			if strings.EqualFold(want, "Name") {
				out[i] = name
			}
			continue
		}
		for j, c := range cols {
			if c.Name == want && j < len(cells) {
				out[i] = cells[j]
				break
			}
		}
	}
	return out
}

// durations are the human-readable durations the printers write (5m,
// 3d12h, 2y): ages and "(5m ago)" move with each side's collection time,
// so a cell that differs only in them is not marked as changed.
var durations = regexp.MustCompile(`\b[0-9]+[smhdy]([0-9]+[smh])?\b`)

// cellText is a cell as kubectl prints it.
func cellText(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}
