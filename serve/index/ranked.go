package index

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// Some printers render an object's row differently in a list than alone,
// and by what else the list holds: 1.37's mark " (default)" only on the
// newest of the listed StorageClasses annotated default, and never in a
// single object's table. The real server prints each page of each
// selection anew; the bundle's stored table was printed for the whole
// list. The upgrade wrote, for such a resource, the two rows of each
// object concerned and their ranking (contract.RankedRows): a table of a
// list shows the top row of the highest-ranked object it lists, and the
// rows alone of the others; a table of one object, the row alone.

// rankedRows are the ranked rows of a resource, by object.
type rankedRows map[*Object]rankedRow

type rankedRow struct {
	rank     int
	row, top TableRow
}

// TopRanked is the object of a list's table whose top row it shows: the
// highest-ranked of objs, nil when none is ranked.
func (r *Resource) TopRanked(objs []*Object) *Object {
	if r.ranked == nil {
		return nil
	}
	var top *Object
	best := 0
	for _, o := range objs {
		if rr, ok := r.ranked[o]; ok && (top == nil || rr.rank < best) {
			top, best = o, rr.rank
		}
	}
	return top
}

// RowOf is the row of o in a table whose top-ranked object is top (nil
// for a table of one object, which shows every row alone).
func (r *Resource) RowOf(o, top *Object) *TableRow {
	if r.ranked == nil {
		return o.Row
	}
	rr, ok := r.ranked[o]
	switch {
	case !ok:
		return o.Row
	case o == top:
		return &rr.top
	default:
		return &rr.row
	}
}

// loadedRanked is one ranked-rows file, decoded.
type loadedRanked struct {
	rel  string
	rows *contract.RankedRows
}

// addRanked decodes a ranked-rows file.
func (l *loader) addRanked(j job) {
	gr, ok := contract.ParseRankedRowsName(j.rel)
	if !ok {
		l.warn(j.rel, fmt.Errorf("file name is not {group}.{resource}.json"))
		return
	}
	rows, err := contract.ParseRankedRows(j.data)
	if err != nil {
		l.warn(j.rel, fmt.Errorf("%w; the tables of %s are served as stored", err, gr))
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ranked[gr] = loadedRanked{rel: j.rel, rows: rows}
}

// attachRanked gives the ranked rows of each resource to every version it
// is served at. A row of an object the bundle does not hold is reported.
func (l *loader) attachRanked() {
	grs := make([]schema.GroupResource, 0, len(l.ranked))
	for gr := range l.ranked {
		grs = append(grs, gr)
	}
	sort.Slice(grs, func(i, j int) bool { return grs[i].String() < grs[j].String() })
	for _, gr := range grs {
		f := l.ranked[gr]
		served := false
		for _, r := range l.allResources() {
			if r.GR != gr {
				continue
			}
			served = true
			r.ranked = rankedRows{}
			for i, row := range f.rows.Rows {
				o := r.Find(row.Namespace, row.Name)
				if o == nil {
					continue
				}
				r.ranked[o] = rankedRow{rank: i, row: compactRow(row.Row), top: compactRow(row.TopRow)}
			}
		}
		if !served {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: the bundle holds no %s; not served", f.rel, gr))
			continue
		}
		if r := l.x.resources[gr]; r != nil && len(r.ranked) < len(f.rows.Rows) {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: %d of its %d rows name no object of %s; they are left out",
				f.rel, len(f.rows.Rows)-len(r.ranked), len(f.rows.Rows), gr))
		}
	}
}

func compactRow(c contract.RowCells) TableRow {
	row := TableRow{Cells: rawjson.AppendCompact(nil, c.Cells)}
	if conds := rawjson.AppendCompact(nil, c.Conditions); len(conds) > 0 && string(conds) != "null" {
		row.Conditions = conds
	}
	return row
}
