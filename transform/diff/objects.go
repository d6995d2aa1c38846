package diff

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// objects are the report's objects, each a record in the spill (its
// change, its rows, its fields), in the report's order: written once the
// passes are done (write), and read back one at a time (at) as the
// report is written, so that memory holds one and a mark every
// markEvery.
type objects struct {
	spill        *spill
	colsA, colsB map[groupKind][]metav1.TableColumnDefinition
	// columns are the columns of each kind's report.
	columns map[groupKind][]string
	count   int
	// marks are where every markEvery-th object starts; end is where
	// the last ends.
	marks []int64
	end   int64
	// r reads the objects from next on.
	r    *bufio.Reader
	next int
	buf  []byte
}

const markEvery = 64

// write reads the report's records of the changes (partKey), in order,
// and writes each object that differs, telling counted of it; a maybe
// that no detail pass decided (its B side could not be read) is not one.
func (o *objects) write(out *sorter, counted func(c *change)) error {
	var c *change
	var rowA, rowB, fields []byte
	flush := func() {
		if c == nil || c.typ == maybe {
			return
		}
		counted(c)
		if o.count%markEvery == 0 {
			o.marks = append(o.marks, o.spill.size)
		}
		o.count++
		rec := c.record(nil).bytes(rowA).bytes(rowB).bytes(fields)
		o.spill.put(binary.AppendUvarint(nil, uint64(len(rec))))
		o.spill.put(rec)
	}
	err := out.each(func(rec []byte) error {
		k := keyOf(rec)
		if len(k) != 5 {
			return o.spill.fail(fmt.Errorf("a record of the report has a key of %d bytes", len(k)))
		}
		r := payload(rec)
		if k[4] == partIdentity {
			flush()
			c, r = readChange(rec)
			rowA, rowB, fields = nil, nil, nil
		}
		if c == nil || c.id != binary.BigEndian.Uint32(k) {
			return o.spill.fail(fmt.Errorf("a record of the report, part %d of change %d, follows no change of its own", k[4], binary.BigEndian.Uint32(k)))
		}
		switch k[4] {
		case partRowA:
			rowA = r.bytes()
		case partRowB:
			rowB = r.bytes()
		case partDecided:
			c.typ, fields = changeType(r.string()), r.bytes()
		}
		if r.err != nil {
			return o.spill.fail(fmt.Errorf("a record of the report of %s: %w", c.key.Name, r.err))
		}
		return nil
	})
	if err != nil {
		return err
	}
	flush()
	o.end = o.spill.size
	return o.spill.flush()
}

// at is the i-th object as reported, its rows following its kind's
// columns.
func (o *objects) at(i int) (ObjectChange, error) {
	if o.r == nil || i != o.next {
		start := o.marks[i/markEvery]
		o.r = bufio.NewReaderSize(io.NewSectionReader(o.spill.f, start, o.end-start), 64<<10)
		o.next = i / markEvery * markEvery
	}
	for ; o.next <= i; o.next++ {
		n, err := binary.ReadUvarint(o.r)
		if err == nil {
			if uint64(cap(o.buf)) < n {
				o.buf = make([]byte, n)
			}
			o.buf = o.buf[:n]
			_, err = io.ReadFull(o.r, o.buf)
		}
		if err != nil {
			o.r = nil
			return ObjectChange{}, o.spill.fail(err)
		}
	}
	return o.decode(o.buf)
}

// decode makes the object of a record write wrote.
func (o *objects) decode(rec []byte) (ObjectChange, error) {
	c, r := readChange(rec)
	rowA, rowB, fields := r.bytes(), r.bytes(), r.bytes()
	gk := c.key.groupKind
	oc := ObjectChange{Group: gk.Group, Kind: gk.Kind, Namespace: c.key.Namespace, Name: c.key.Name, Change: string(c.typ), UIDA: c.uidA, UIDB: c.uidB}
	if r.err != nil {
		return oc, o.spill.fail(fmt.Errorf("the change of %s: %w", c.key.Name, r.err))
	}
	columns := o.columns[gk]
	var err error
	if c.a.held() {
		if oc.RowA, err = o.row(rowA, o.colsA[gk], columns, c.key.Name); err != nil {
			return oc, err
		}
	}
	if c.b.held() {
		if oc.RowB, err = o.row(rowB, o.colsB[gk], columns, c.key.Name); err != nil {
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
	if oc.Fields, oc.MoreFields, err = readFields(fields); err != nil {
		return oc, o.spill.fail(fmt.Errorf("fields of %s: %w", c.key.Name, err))
	}
	return oc, nil
}

// row decodes a side's table row (the cells as when they were read,
// decoded as then) in the order of columns; see align.
func (o *objects) row(data []byte, cols []metav1.TableColumnDefinition, columns []string, name string) ([]any, error) {
	var cells []any
	if data != nil {
		if err := utiljson.Unmarshal(data, &cells); err != nil {
			return nil, o.spill.fail(fmt.Errorf("a row of %s: %w", name, err))
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
