package diff

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// defaultRunBudget is the memory the sorters of a comparison share
// (sorter.go): past it, records go to the spill as sorted runs.
// Options.runBudget overrides it in tests.
const defaultRunBudget = 4 << 20

// sideOf selects one side of the comparison for its detail pass: the
// changes in the order of its lists and of its tables.
type sideOf struct {
	s             *side
	files         *files
	lists, tables *sorter
	isA           bool
}

func (w sideOf) loc(c *change) location {
	if w.isA {
		return c.a
	}
	return c.b
}

// detailPass reads on side w what the first passes left to read, in one
// more pass: the objects of the changes (their facts and, for a maybe,
// whether it is a change and its fields) and the tables beside their
// lists (their rows). It reads nothing when no change is on the side.
func (d *differ) detailPass(ctx context.Context, w sideOf) error {
	lists, err := w.lists.merge()
	if err != nil {
		return err
	}
	defer lists.close()
	tables, err := w.tables.merge()
	if err != nil {
		return err
	}
	defer tables.close()
	p := &pass{d: d, w: w, lists: lists, tables: tables}
	if p.next(lists) == nil && p.next(tables) == nil {
		return p.err
	}
	err = w.s.walk(ctx, visitor{
		wantList: func(rel string) bool {
			i, ok := w.files.byRel[rel]
			return ok && p.reach(lists, uint32(i), p.skip)
		},
		list: func(rel string, _ contract.Classification, l *contract.List) error {
			return p.list(rel, l)
		},
		wantTable: func(rel string) bool {
			t, ok := w.files.tables[rel]
			return ok && p.reach(tables, t, func(*change) {})
		},
		table: func(rel string, data []byte) error {
			return p.table(rel, data)
		},
	})
	if err != nil {
		return err
	}
	p.reach(lists, ^uint32(0), p.skip)
	if p.err != nil {
		return p.err
	}
	return d.spill.err
}

// pass is one detail pass: its changes, read in step with the walk.
type pass struct {
	d             *differ
	w             sideOf
	lists, tables *merged
	err           error
}

// next is the next record of m, nil at the end or on an error (p.err).
func (p *pass) next(m *merged) []byte {
	if p.err != nil {
		return nil
	}
	rec, err := m.peek()
	if err != nil {
		p.err = p.d.spill.fail(err)
	}
	return rec
}

// place is where a record of a detail pass is: its list's (or table's)
// place, from its key (locKey); past every place if it has none.
func place(rec []byte) uint32 {
	k := keyOf(rec)
	if len(k) < 4 {
		return ^uint32(0)
	}
	return binary.BigEndian.Uint32(k)
}

// reach passes the records of m before place at, each to skipped, and
// says whether the next is at it.
func (p *pass) reach(m *merged, at uint32, skipped func(*change)) bool {
	for rec := p.next(m); rec != nil; rec = p.next(m) {
		if place(rec) >= at {
			return place(rec) == at
		}
		c, _ := readChange(rec)
		m.pop()
		skipped(c)
	}
	return false
}

// skip passes on a change whose object the side did not read: A's goes
// to B's pass without A's facts and object.
func (p *pass) skip(c *change) {
	if p.w.isA {
		p.d.forward(c, nil, nil)
	}
}

// list reads the objects of the changes in list rel, l.
func (p *pass) list(rel string, l *contract.List) error {
	at := uint32(p.w.files.byRel[rel])
	for rec := p.next(p.lists); rec != nil && place(rec) == at; rec = p.next(p.lists) {
		c, r := readChange(rec)
		var factsA, objA []byte
		if !p.w.isA { // what A's pass forwarded
			factsA = r.bytes()
			objA = p.d.objectA(span{off: r.int(), n: int32(r.int())})
		}
		if r.err != nil {
			return p.d.spill.fail(fmt.Errorf("a change of %s: %w", c.key.Name, r.err))
		}
		if p.d.spill.err != nil {
			return p.d.spill.err
		}
		p.lists.pop()
		i := p.w.loc(c).item
		if int(i) >= len(l.Items) {
			p.skip(c)
			continue
		}
		var err error
		if p.w.isA {
			err = p.d.detailA(c, l.Items[i])
		} else {
			err = p.d.detailB(c, factsA, objA, l.Items[i])
		}
		if err != nil {
			p.w.s.warn(rel, fmt.Errorf("item %d: %w", i, err))
		}
	}
	if p.err != nil {
		return p.err
	}
	return p.d.spill.err
}

// table reads the rows of the changes of the list beside table rel.
func (p *pass) table(rel string, data []byte) error {
	at := p.w.files.tables[rel]
	byKey := map[objectKey]uint32{}
	var lf listFile
	for rec := p.next(p.tables); rec != nil && place(rec) == at; rec = p.next(p.tables) {
		c, _ := readChange(rec)
		p.tables.pop()
		lf = p.w.files.list[p.w.loc(c).file]
		byKey[c.key] = c.id
	}
	if p.err != nil || len(byKey) == 0 {
		return p.err
	}
	if err := p.d.rows(p.w, lf, byKey, data); err != nil {
		p.w.s.warn(rel, err)
	}
	return p.d.spill.err
}

// forward sends change c, which B holds, to B's detail pass, with what
// A's read of it: its facts and, for a maybe, its object as compared
// (nil where A's could not be read). The object goes to the spill, and
// the record says where: a record stays small, so that B's pass merges
// few runs, each with its buffer.
func (d *differ) forward(c *change, factsA, objA []byte) {
	if c.b.held() {
		sp := d.spill.put(objA)
		d.listsB.add(c.record(locKey(c.b, c.id)).bytes(factsA).int(sp.off).int(int64(sp.n)))
	}
}

// objectA reads back A's object as compared that forward put at sp, nil
// for none, into a buffer valid until the next.
func (d *differ) objectA(sp span) []byte {
	data, err := d.spill.get(sp, d.bufA)
	if err != nil || data == nil {
		return nil
	}
	d.bufA = data
	return data
}

// detailA reads A's object of change c: its facts, and for a maybe its
// object as compared (its canonical JSON, normalized unless
// Options.All), which it forwards to B's pass.
func (d *differ) detailA(c *change, raw []byte) error {
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		d.forward(c, nil, nil)
		return err
	}
	var facts record
	if c.b.held() {
		facts = factsOf(c.key.groupKind, obj).record()
	}
	if c.typ != maybe {
		d.forward(c, facts, nil)
		return nil
	}
	compared, err := d.compared(c, obj)
	d.forward(c, facts, compared)
	return err
}

// compared is obj as compared: without the noise unless Options.All,
// and with only the key order and white space of how it was written
// left out.
func (d *differ) compared(c *change, obj map[string]any) ([]byte, error) {
	if !d.o.All {
		normalize(c.key.groupKind, obj)
	}
	return canonical(obj)
}

// detailB reads B's object of change c, with A's facts and object as
// A's pass read them: whether a maybe is a change and its fields, and
// the change's highlights.
func (d *differ) detailB(c *change, factsA, objA, raw []byte) error {
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return err
	}
	f := factsOf(c.key.groupKind, obj)
	if c.typ != maybe {
		return d.highlight(c, factsA, f)
	}
	compared, err := d.compared(c, obj)
	if err != nil {
		return err
	}
	if !d.decide(c, objA, compared) {
		return nil
	}
	fields, ferr := d.fieldsOf(objA, obj)
	d.out.add(keyed(partKey(c.id, partDecided)).string(string(c.typ)).bytes(fields))
	if err := d.highlight(c, factsA, f); err != nil {
		return err
	}
	return ferr
}

// highlight notes the highlights of c once B's facts f are read.
func (d *differ) highlight(c *change, factsA []byte, f *facts) error {
	var a *facts
	if factsA != nil {
		var err error
		if a, err = readFacts(factsA); err != nil {
			return d.spill.fail(fmt.Errorf("facts of %s: %w", c.key.Name, err))
		}
	}
	for _, h := range highlights(c, a, f) {
		d.highlights.add(keyed(partKey(c.id, 0)).string(h.Type).string(h.Group).string(h.Kind).
			string(h.Namespace).string(h.Name).string(h.Detail))
	}
	return nil
}

// fieldsOf is the record of the fields that differ between A's object
// as compared, objA, and B's, obj. Without A's (it could not be read: a
// warning says so) it lists none.
func (d *differ) fieldsOf(objA []byte, obj map[string]any) (record, error) {
	if objA == nil {
		return nil, nil
	}
	var a map[string]any
	if err := utiljson.Unmarshal(objA, &a); err != nil {
		return nil, err
	}
	return fieldsRecord(fieldChanges(a, obj)), nil
}

// decide says whether a maybe is a change, from each side's object as
// compared: it differs, or differs only in noise (and in how it was
// written: key order, white space), which is counted and left out. With
// Options.All nothing is left out but how the object was written.
func (d *differ) decide(c *change, objA, objB []byte) bool {
	switch {
	case objA == nil || !bytes.Equal(objA, objB):
		c.typ = changed
		return true
	case !d.o.All:
		d.noise[c.key.groupKind]++
	}
	return false
}

// rows reads the table beside a list: its columns, and the row of every
// change of the list, byKey, on side w.
func (d *differ) rows(w sideOf, lf listFile, byKey map[objectKey]uint32, data []byte) error {
	if err := rawjson.Check(data); err != nil {
		return err
	}
	data = rawjson.AppendCompact(make([]byte, 0, len(data)), data)
	var cols []metav1.TableColumnDefinition
	if err := json.Unmarshal(rawjson.Get(data, "columnDefinitions"), &cols); err != nil {
		return fmt.Errorf("columnDefinitions: %w", err)
	}
	d.columns(w.isA, lf.gk, cols)
	var err error
	rawjson.EachElement(rawjson.Get(data, "rows"), func(row []byte) {
		meta := rawjson.Get(rawjson.Get(row, "object"), "metadata")
		key := objectKey{lf.gk, rawjson.String(rawjson.Get(meta, "namespace")), rawjson.String(rawjson.Get(meta, "name"))}
		id, ok := byKey[key]
		if !ok || err != nil {
			return
		}
		// The cells are decoded to be checked, and again (cells) when
		// the report is written.
		raw := rawjson.Get(row, "cells")
		var cells []any
		if err = utiljson.Unmarshal(raw, &cells); err != nil {
			err = fmt.Errorf("row of %s: cells: %w", key.Name, err)
			return
		}
		part := partRowB
		if w.isA {
			part = partRowA
		}
		d.out.add(keyed(partKey(id, part)).bytes(raw))
	})
	return err
}
