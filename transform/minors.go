package transform

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/bundlectl/bundlectl/contract"
)

// A bundle's tables are rendered for the minor of the cluster it came
// from: what that release's kube-apiserver served. The pinned printers
// render every table; for an older minor, the table is then adjusted by
// what changed since, each change written from the older release's own
// printer source: the column layouts in minors.txt (data, applied by
// column name), the columns the pinned printers dropped (minorColumns),
// and the cells whose logic changed (cellChanges).

//go:embed minors.txt
var minorsText string

var (
	pinnedMinor = contract.MinorNumber(contract.PinnedMinor)
	oldestMinor = contract.MinorNumber(contract.OldestMinor)
)

// layout is the columns a kind's tables had up to a minor.
type layout struct {
	upTo    int
	columns []layoutColumn
}

type layoutColumn struct {
	name   string // as that release named it
	pinned string // the pinned column it takes definition and cells from, "" for a minorColumns one
	typ    string // the declared type when it differs from the pinned column's
}

// layouts are minors.txt's, by kind, newest first.
var layouts = func() map[string][]layout {
	l, err := parseLayouts(minorsText)
	if err != nil {
		panic("transform: minors.txt: " + err.Error())
	}
	return l
}()

func parseLayouts(text string) (map[string][]layout, error) {
	out := map[string][]layout{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 3)
		if len(fields) != 3 {
			return nil, fmt.Errorf("line %d: want <minor> <Kind> <columns>", i+1)
		}
		minor := contract.MinorNumber(fields[0])
		if minor < oldestMinor || minor >= pinnedMinor {
			return nil, fmt.Errorf("line %d: minor %q is not older than %s and at least %s", i+1, fields[0], contract.PinnedMinor, contract.OldestMinor)
		}
		kind := fields[1]
		if prev := out[kind]; len(prev) > 0 && prev[len(prev)-1].upTo <= minor {
			return nil, fmt.Errorf("line %d: %s's layouts are not newest first", i+1, kind)
		}
		l := layout{upTo: minor}
		for _, c := range strings.Split(fields[2], ",") {
			var col layoutColumn
			c, col.typ, _ = strings.Cut(c, ":")
			col.name, col.pinned, _ = strings.Cut(c, "=")
			if col.pinned == "" {
				col.pinned = col.name
			}
			if _, ok := minorColumns[kind][col.name]; ok {
				col.pinned = ""
			}
			l.columns = append(l.columns, col)
		}
		out[kind] = append(out[kind], l)
	}
	return out, nil
}

// minorColumn is a column of older releases that the pinned printers no
// longer have.
type minorColumn struct {
	def  metav1.TableColumnDefinition
	cell func(obj runtime.Object) any
}

// cellChange is a cell whose logic changed: up to minor upTo, fix sets
// the cells the older printers computed differently.
type cellChange struct {
	kind string
	upTo int
	fix  func(minor int, obj runtime.Object, cells rowCells)
}

// rowCells reads and writes a row's cells by column name; raw is the
// row's object as the bundle holds it (nil when unknown).
type rowCells struct {
	index map[string]int
	cells []any
	raw   json.RawMessage
}

func (r rowCells) get(name string) (any, bool) {
	i, ok := r.index[name]
	if !ok || i >= len(r.cells) {
		return nil, false
	}
	return r.cells[i], true
}

func (r rowCells) set(name string, v any) {
	if i, ok := r.index[name]; ok && i < len(r.cells) {
		r.cells[i] = v
	}
}

// forMinor turns a table the pinned printers rendered of a list (its
// internal type's name, "ServiceAccountList") into the one the printers
// of minor rendered. Rows hold their objects, which the cell functions
// read, with the bundle's items by object in raws.
func forMinor(minor int, listKind string, table *metav1.Table, raws map[runtime.Object]json.RawMessage) error {
	if minor >= pinnedMinor {
		return nil
	}
	kind := strings.TrimSuffix(listKind, "List")
	if l, ok := layoutFor(kind, minor); ok {
		if err := applyLayout(kind, l, table); err != nil {
			return fmt.Errorf("the %s layout of 1.%d: %w", kind, minor, err)
		}
	}
	describeForMinor(minor, kind, table)
	var changes []cellChange
	for _, c := range cellChanges {
		if c.kind == kind && minor <= c.upTo {
			changes = append(changes, c)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	index := make(map[string]int, len(table.ColumnDefinitions))
	for i, c := range table.ColumnDefinitions {
		index[c.Name] = i
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		for _, c := range changes {
			c.fix(minor, row.Object.Object, rowCells{index: index, cells: row.Cells, raw: raws[row.Object.Object]})
		}
	}
	return nil
}

// kindOf is the name of an internal object's type.
func kindOf(obj runtime.Object) string {
	if obj == nil {
		return ""
	}
	t := reflect.TypeOf(obj)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// layoutFor is the layout a kind had at minor: the oldest listed layout
// that is not older than minor.
func layoutFor(kind string, minor int) (layout, bool) {
	var found layout
	ok := false
	for _, l := range layouts[kind] {
		if l.upTo < minor {
			break
		}
		found, ok = l, true
	}
	return found, ok
}

// applyLayout rearranges the columns and cells of a table by name. Cells
// past the pinned columns (a row may have more cells than columns) are
// kept at the end.
func applyLayout(kind string, l layout, table *metav1.Table) error {
	index := make(map[string]int, len(table.ColumnDefinitions))
	for i, c := range table.ColumnDefinitions {
		index[c.Name] = i
	}
	defs := make([]metav1.TableColumnDefinition, len(l.columns))
	from := make([]int, len(l.columns)) // the pinned cell, or -1 for a computed one
	for i, c := range l.columns {
		if c.pinned == "" {
			mc, ok := minorColumns[kind][c.name]
			if !ok {
				return fmt.Errorf("no function computes column %q", c.name)
			}
			defs[i], from[i] = mc.def, -1
			continue
		}
		j, ok := index[c.pinned]
		if !ok {
			return fmt.Errorf("the pinned printers have no column %q", c.pinned)
		}
		defs[i], from[i] = table.ColumnDefinitions[j], j
		defs[i].Name = c.name
		if c.typ != "" {
			defs[i].Type = c.typ
		}
	}
	pinnedColumns := len(table.ColumnDefinitions)
	for r := range table.Rows {
		row := &table.Rows[r]
		cells := make([]any, 0, len(l.columns)+max(0, len(row.Cells)-pinnedColumns))
		for i, c := range l.columns {
			switch {
			case from[i] < 0:
				cells = append(cells, minorColumns[kind][c.name].cell(row.Object.Object))
			case from[i] < len(row.Cells):
				cells = append(cells, row.Cells[from[i]])
			}
		}
		if len(row.Cells) > pinnedColumns {
			cells = append(cells, row.Cells[pinnedColumns:]...)
		}
		row.Cells = cells
	}
	table.ColumnDefinitions = defs
	return nil
}
