package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// defaultHeldBudget bounds the objects of A held (as canonical JSON)
// until B's are read and their fields compared: the objects past it are
// written to the spill and read back. Options.heldBudget overrides it
// in tests.
const defaultHeldBudget = 4 << 20

// sideOf selects one side of a change.
type sideOf struct {
	s     *side
	files *files
	isA   bool
}

func (w sideOf) loc(c *change) location {
	if w.isA {
		return c.a
	}
	return c.b
}

// details reads what the first passes left to read, in one more pass
// over each side: the facts and rows of every change, whether each
// maybe is a change, and its fields.
func (d *differ) details(ctx context.Context) error {
	if err := d.detailPass(ctx, sideOf{s: d.a, files: &d.filesA, isA: true}); err != nil {
		return err
	}
	if err := d.detailPass(ctx, sideOf{s: d.b, files: &d.filesB}); err != nil {
		return err
	}
	d.heldA = nil // what is left was held for a B that could not be read
	kept := d.changes[:0]
	for _, c := range d.changes {
		if c.typ != maybe {
			kept = append(kept, c)
		}
	}
	clear(d.changes[len(kept):])
	d.changes = kept
	return nil
}

// detailPass reads, on side w, the objects of the changes and the
// tables beside their lists.
func (d *differ) detailPass(ctx context.Context, w sideOf) error {
	// byFile are the changes by the list that holds them on side w, in
	// the order of its items.
	byFile := map[int32][]*change{}
	for _, c := range d.changes {
		if l := w.loc(c); l.held() {
			byFile[l.file] = append(byFile[l.file], c)
		}
	}
	if len(byFile) == 0 {
		return nil
	}
	for _, cs := range byFile {
		sort.Slice(cs, func(i, j int) bool { return w.loc(cs[i]).item < w.loc(cs[j]).item })
	}
	return w.s.walk(ctx, visitor{
		wantList: func(rel string) bool {
			i, ok := w.files.byRel[rel]
			return ok && byFile[i] != nil
		},
		list: func(rel string, _ contract.Classification, l *contract.List) error {
			for _, c := range byFile[w.files.byRel[rel]] {
				i := w.loc(c).item
				if int(i) >= len(l.Items) {
					break
				}
				if err := d.detail(w, c, l.Items[i]); err != nil {
					w.s.warn(rel, fmt.Errorf("item %d: %w", i, err))
				}
			}
			return d.spill.err
		},
		wantTable: func(rel string) bool {
			i, ok := w.files.byTable[rel]
			return ok && byFile[i] != nil
		},
		table: func(rel string, data []byte) error {
			file := w.files.byTable[rel]
			if err := d.rows(w, w.files.list[file], byFile[file], data); err != nil {
				w.s.warn(rel, err)
			}
			return d.spill.err
		},
	})
}

// detail reads one object of a change on side w: its facts and, for a
// maybe, what decides it and its fields. B's facts, with A's, make the
// change's highlights once its type is known.
func (d *differ) detail(w sideOf, c *change, raw []byte) error {
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return err
	}
	f := factsOf(c.key.groupKind, obj)
	if w.isA && c.b.held() {
		c.factsA = d.spill.put(f.record())
	}
	if c.typ != maybe {
		return d.highlight(w, c, f)
	}
	// Without All, the noise is left out before the comparison; with it,
	// only the key order and white space of how the object was written.
	if !d.o.All {
		normalize(c.key.groupKind, obj)
	}
	compared, err := canonical(obj)
	if err != nil {
		return err
	}
	if w.isA {
		c.sumA = sha(compared)
		if d.held+len(compared) <= d.o.heldBudget || d.held == 0 {
			d.heldA[c], d.held = compared, d.held+len(compared)
		} else {
			c.objA = d.spill.put(compared)
		}
		return nil
	}
	d.decide(c, sha(compared))
	if err := d.highlight(w, c, f); err != nil || c.typ != changed {
		delete(d.heldA, c)
		return err
	}
	return d.fieldsOf(c, obj)
}

// highlight notes the highlights of c once B's facts f are read.
func (d *differ) highlight(w sideOf, c *change, f *facts) error {
	if w.isA || c.typ == maybe {
		return nil
	}
	data, err := d.spill.get(c.factsA, nil)
	if err != nil {
		return err
	}
	var a *facts
	if data != nil {
		if a, err = readFacts(data); err != nil {
			return d.spill.fail(fmt.Errorf("facts of %s: %w", c.key.Name, err))
		}
	}
	for _, h := range highlights(c, a, f) {
		d.highlights = append(d.highlights, noted{c, h})
		d.heap.records(highlightRecord + highlightBytes(h))
	}
	return nil
}

// fieldsOf lists the fields of a change that differ between A's object,
// held or spilled, and B's, obj. Without A's (it could not be read: a
// warning says so) it lists none.
func (d *differ) fieldsOf(c *change, obj map[string]any) error {
	objA, ok := d.heldA[c]
	delete(d.heldA, c)
	if !ok {
		var err error
		if objA, err = d.spill.get(c.objA, nil); err != nil || objA == nil {
			return err
		}
	}
	var a map[string]any
	if err := utiljson.Unmarshal(objA, &a); err != nil {
		return err
	}
	c.fields = d.spill.put(fieldsRecord(fieldChanges(a, obj)))
	return nil
}

// decide says what a maybe is, from the digest of its B side: it
// differs, or differs only in noise (and in how it was written: key
// order, white space), which is counted and left out. With Options.All
// nothing is left out but how the object was written.
func (d *differ) decide(c *change, sumB digest) {
	switch {
	case c.sumA != sumB:
		c.typ = changed
	case !d.o.All:
		d.noise[c.key.groupKind]++
	}
}

// rows reads the table beside a list: its columns, and the row of every
// change of the list, cs, on side w.
func (d *differ) rows(w sideOf, lf listFile, cs []*change, data []byte) error {
	if err := rawjson.Check(data); err != nil {
		return err
	}
	data = rawjson.AppendCompact(make([]byte, 0, len(data)), data)
	var cols []metav1.TableColumnDefinition
	if err := json.Unmarshal(rawjson.Get(data, "columnDefinitions"), &cols); err != nil {
		return fmt.Errorf("columnDefinitions: %w", err)
	}
	d.columns(w.isA, lf.gk, cols)
	byKey := make(map[objectKey]*change, len(cs))
	for _, c := range cs {
		byKey[c.key] = c
	}
	var err error
	rawjson.EachElement(rawjson.Get(data, "rows"), func(row []byte) {
		meta := rawjson.Get(rawjson.Get(row, "object"), "metadata")
		key := objectKey{lf.gk, rawjson.String(rawjson.Get(meta, "namespace")), rawjson.String(rawjson.Get(meta, "name"))}
		c := byKey[key]
		if c == nil || err != nil {
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
		if w.isA {
			c.rowA = d.spill.put(raw)
		} else {
			c.rowB = d.spill.put(raw)
		}
	})
	return err
}
