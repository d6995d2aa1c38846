package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Report is what Run found: -o json writes it as is.
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

// report assembles what the passes found.
func (d *differ) report() *Report {
	d.sortChanges()
	r := &Report{
		A:   Side{Path: d.a.name, KubernetesVersion: d.a.version, CollectedAt: d.a.collectedAt},
		B:   Side{Path: d.b.name, KubernetesVersion: d.b.version, CollectedAt: d.b.collectedAt},
		All: d.o.All, Logs: d.logs, Highlights: []Highlight{}, Objects: []ObjectChange{}, Kinds: []KindChanges{},
	}
	kinds := map[groupKind]*KindChanges{}
	kind := func(gk groupKind) *KindChanges {
		if k := kinds[gk]; k != nil {
			return k
		}
		k := &KindChanges{Group: gk.Group, Kind: gk.Kind, Resource: d.resources[gk], Columns: []string{}}
		for _, c := range printed(d.colsB[gk], d.colsA[gk]) {
			k.Columns = append(k.Columns, c.Name)
		}
		kinds[gk] = k
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
		r.Objects = append(r.Objects, d.objectChange(c, k.Columns))
		for _, h := range highlights(c) {
			byType[h.Type] = append(byType[h.Type], h)
		}
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
	r.Equal = len(r.Objects) == 0 && len(r.Logs) == 0
	return r
}

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

// objectChange is c as reported, its rows following columns.
func (d *differ) objectChange(c *change, columns []string) ObjectChange {
	oc := ObjectChange{Group: c.key.Group, Kind: c.key.Kind, Namespace: c.key.Namespace, Name: c.key.Name,
		Change: string(c.typ), UIDA: c.uidA, UIDB: c.uidB, Fields: c.fields, MoreFields: c.moreFields}
	if c.a != nil {
		oc.RowA = align(c.rowA, d.colsA[c.key.groupKind], columns, c.key.Name)
	}
	if c.b != nil {
		oc.RowB = align(c.rowB, d.colsB[c.key.groupKind], columns, c.key.Name)
	}
	if oc.RowA != nil && oc.RowB != nil {
		for i, col := range columns {
			if durations.ReplaceAllString(cellText(oc.RowA[i]), "") != durations.ReplaceAllString(cellText(oc.RowB[i]), "") {
				oc.ChangedColumns = append(oc.ChangedColumns, col)
			}
		}
	}
	return oc
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

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
