package diff

import (
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// result puts the report together from what the passes found: its head
// in memory, and each object that differs, in the report's order, in the
// spill (objects), from which it is read when written.
func (d *differ) result() (*Result, error) {
	if d.spill.err != nil {
		return nil, d.spill.err
	}
	r := &Result{Report: Report{
		A:   Side{Path: d.a.name, KubernetesVersion: d.a.version, CollectedAt: d.a.collectedAt},
		B:   Side{Path: d.b.name, KubernetesVersion: d.b.version, CollectedAt: d.b.collectedAt},
		All: d.o.All, Logs: d.logs, Highlights: []Highlight{}, Kinds: []KindChanges{},
	}, remove: d.spill.close}
	objs := &objects{spill: d.spill, colsA: d.colsA, colsB: d.colsB, columns: map[groupKind][]string{}}
	kinds := map[groupKind]*KindChanges{}
	kind := func(gk groupKind) *KindChanges {
		if k := kinds[gk]; k != nil {
			return k
		}
		k := &KindChanges{Group: gk.Group, Kind: gk.Kind, Resource: d.resources[gk], Columns: []string{}}
		for _, c := range printed(d.colsB[gk], d.colsA[gk]) {
			k.Columns = append(k.Columns, c.Name)
		}
		kinds[gk], objs.columns[gk] = k, k.Columns
		return k
	}
	err := objs.write(d.out, func(c *change) {
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
	})
	if err != nil {
		return nil, err
	}
	r.count, r.object = objs.count, objs.at
	byType, err := d.highlightsByType()
	if err != nil {
		return nil, err
	}
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
	return r, nil
}

// highlightsByType reads the highlights back, in the report's order of
// their objects, by type.
func (d *differ) highlightsByType() (map[string][]Highlight, error) {
	byType := map[string][]Highlight{}
	err := d.highlights.each(func(rec []byte) error {
		r := payload(rec)
		h := Highlight{Type: r.string(), Group: r.string(), Kind: r.string(), Namespace: r.string(), Name: r.string(), Detail: r.string()}
		if r.err != nil {
			return d.spill.fail(fmt.Errorf("a highlight of %s: %w", h.Name, r.err))
		}
		byType[h.Type] = append(byType[h.Type], h)
		return nil
	})
	return byType, err
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
