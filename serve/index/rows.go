package index

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// defaultColumns are the default convertor's (k8s.io/apiserver/pkg/registry/rest/table.go).
var defaultColumns = func() []byte {
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	data, _ := json.Marshal([]metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: docs["name"]},
		{Name: "Created At", Type: "date", Description: docs["creationTimestamp"]},
	})
	return data
}()

// RowOrder puts a page of objects in the order their stored table lists
// them, for resources whose printer orders rows itself. The server sorts
// each page it prints, after storage has paginated in key order, and so
// does this.
func (r *Resource) RowOrder(page []*Object) []*Object {
	if !r.rowOrdered {
		return page
	}
	sorted := slices.Clone(page)
	slices.SortStableFunc(sorted, func(a, b *Object) int {
		if c := strings.Compare(a.Namespace(), b.Namespace()); c != 0 {
			return c
		}
		return int(a.rowPos - b.rowPos)
	})
	return sorted
}

// defaultCells are the default convertor's: the name and the creation
// time in RFC 3339, UTC.
func defaultCells(o *Object) []byte {
	var created metav1.Time
	if s := rawjson.String(rawjson.Get(o.Metadata(), "creationTimestamp")); s != "" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			created = metav1.NewTime(t)
		}
	}
	data, _ := json.Marshal([]any{o.Name(), created.UTC().Format(time.RFC3339)})
	return data
}

// managedFieldsSpan finds the managedFields member of a compact metadata
// object and the comma that separates it from the others, so that
// cutting [start, end) leaves a valid object; 0, 0 when there is none.
func managedFieldsSpan(meta []byte) (start, end int) {
	prevEnd := -1 // the end of the previous member's value: its comma
	rawjson.EachMember(meta, func(m rawjson.Member) bool {
		if !m.Is("managedFields") {
			prevEnd = m.End
			return true
		}
		switch {
		case prevEnd >= 0:
			start, end = prevEnd, m.End
		case m.End < len(meta)-1 && meta[m.End] == ',':
			start, end = m.KeyStart, m.End+1
		default:
			start, end = m.KeyStart, m.End
		}
		return false
	})
	return start, end
}

// fillRows gives a row to every object without a stored one, at load, so
// that a table is only bytes put together: the default convertor's cells
// when the resource has no stored table, missingCells otherwise. It also
// finds the managedFields that kubectl's rows leave out.
func fillRows(r *Resource) {
	var defs []metav1.TableColumnDefinition
	if r.columns != nil && json.Unmarshal(r.columns, &defs) != nil {
		defs = nil
	}
	for _, o := range r.objects {
		if start, end := managedFieldsSpan(o.Metadata()); end > 0 {
			o.mfStart, o.mfEnd = o.metaStart+int32(start), o.metaStart+int32(end)
		}
		if o.Row != nil {
			continue
		}
		if len(defs) == 0 {
			o.Row = &TableRow{Cells: defaultCells(o)}
		} else {
			o.Row = &TableRow{Cells: missingCells(defs, o)}
		}
	}
}

// missingCells stand in for the row of an object whose stored table has
// none: the name where the table has its name column, "<unknown>" in the
// others, so the object is still listed and nothing is made up.
func missingCells(defs []metav1.TableColumnDefinition, o *Object) []byte {
	cells := make([]any, len(defs))
	for i, d := range defs {
		cells[i] = "<unknown>"
		if d.Format == "name" {
			cells[i] = o.Name()
		}
	}
	data, _ := json.Marshal(cells)
	return data
}
