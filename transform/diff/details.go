package diff

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// defaultHeldBudget bounds the objects of A held (as canonical JSON)
// until B's are read and their fields compared: the objects past it wait
// for another pass over both bundles (over the lists that hold them
// only). Options.heldBudget overrides it in tests.
const defaultHeldBudget = 32 << 20

// sideOf selects one side of a change.
type sideOf struct {
	s     *side
	files *files
	isA   bool
}

func (w sideOf) loc(c *change) *location {
	if w.isA {
		return c.a
	}
	return c.b
}

// details reads what the first passes left to read: the facts and rows
// of every change, and whether each maybe is a change, and its fields.
// The first round reads everything of both sides; more rounds read, for
// the changes past heldBudget, their objects again.
func (d *differ) details(ctx context.Context) error {
	a := sideOf{s: d.a, files: &d.filesA, isA: true}
	b := sideOf{s: d.b, files: &d.filesB}
	for first := true; ; first = false {
		want := func(c *change) bool { return first || c.diffPending }
		if err := d.detailPass(ctx, a, want, first); err != nil {
			return err
		}
		if err := d.detailPass(ctx, b, want, first); err != nil {
			return err
		}
		d.held = 0
		more := false
		for _, c := range d.changes {
			more = more || c.diffPending
		}
		if !more {
			break
		}
	}
	kept := d.changes[:0]
	for _, c := range d.changes {
		if c.typ != maybe {
			kept = append(kept, c)
		}
	}
	d.changes = kept
	return nil
}

// detailPass reads, on side w, the objects of the changes want selects
// and, with rows, the tables beside their lists.
func (d *differ) detailPass(ctx context.Context, w sideOf, want func(*change) bool, rows bool) error {
	byLoc := map[location]*change{}
	files := map[int32]bool{}
	for _, c := range d.changes {
		if l := w.loc(c); l != nil && want(c) {
			byLoc[*l] = c
			files[l.file] = true
		}
	}
	if len(byLoc) == 0 {
		return nil
	}
	v := visitor{
		wantList: func(rel string) bool {
			i, ok := w.files.byRel[rel]
			return ok && files[i]
		},
		list: func(rel string, _ contract.Classification, l *contract.List) error {
			file := w.files.byRel[rel]
			for i, raw := range l.Items {
				if c := byLoc[location{file, int32(i)}]; c != nil {
					if err := d.detail(w, c, raw, rows); err != nil {
						w.s.warn(rel, fmt.Errorf("item %d: %w", i, err))
					}
				}
			}
			return nil
		},
	}
	if rows {
		v.wantTable = func(rel string) bool {
			i, ok := w.files.byTable[rel]
			return ok && files[i]
		}
		v.table = func(rel string, data []byte) error {
			if err := d.rows(w, w.files.list[w.files.byTable[rel]], data); err != nil {
				w.s.warn(rel, err)
			}
			return nil
		}
	}
	return w.s.walk(ctx, v)
}

// detail reads one object of a change on side w: its facts (first round
// only) and, for a maybe, what decides it and its fields.
func (d *differ) detail(w sideOf, c *change, raw []byte, first bool) error {
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return err
	}
	if first {
		f := factsOf(c.key.groupKind, obj)
		if w.isA {
			c.factsA = f
		} else {
			c.factsB = f
		}
	}
	if c.typ != maybe && c.typ != changed {
		return nil
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
			c.objA, d.held = compared, d.held+len(compared)
		}
		return nil
	}
	if c.typ == maybe {
		d.decide(c, sha(compared))
	}
	if c.typ != changed {
		c.objA = nil
		return nil
	}
	if c.objA == nil {
		c.diffPending = true // A's object was past the budget
		return nil
	}
	var objA map[string]any
	if err := utiljson.Unmarshal(c.objA, &objA); err != nil {
		return err
	}
	c.fields, c.moreFields = fieldChanges(objA, obj)
	c.objA, c.diffPending = nil, false
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
// changed object of the list on side w.
func (d *differ) rows(w sideOf, lf listFile, data []byte) error {
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
		c := d.byKey[key]
		if c == nil || w.loc(c) == nil || err != nil {
			return
		}
		var cells []any
		if err = utiljson.Unmarshal(rawjson.Get(row, "cells"), &cells); err != nil {
			err = fmt.Errorf("row of %s: cells: %w", key.Name, err)
			return
		}
		if w.isA {
			c.rowA = cells
		} else {
			c.rowB = cells
		}
	})
	return err
}
