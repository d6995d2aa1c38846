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

// details is the second pass over one side: it reads again only the
// lists and tables that hold a changed object, for the objects' facts
// (highlights.go), their fields (A's kept until B's is read, then
// compared: fields.go) and their rows.
func (d *differ) details(ctx context.Context, w sideOf) error {
	byLoc := map[location]*change{}
	files := map[int32]bool{}
	for _, c := range d.changes {
		if l := w.loc(c); l != nil {
			byLoc[*l] = c
			files[l.file] = true
		}
	}
	if len(byLoc) == 0 {
		return nil
	}
	return w.s.walk(ctx, visitor{
		wantList: func(rel string) bool {
			i, ok := w.files.byRel[rel]
			return ok && files[i]
		},
		list: func(rel string, c contract.Classification, l *contract.List) error {
			file := w.files.byRel[rel]
			for i, raw := range l.Items {
				if ch := byLoc[location{file, int32(i)}]; ch != nil {
					if err := d.detail(w, ch, raw); err != nil {
						w.s.warn(rel, fmt.Errorf("item %d: %w", i, err))
					}
				}
			}
			return nil
		},
		wantTable: func(rel string) bool {
			i, ok := w.files.byTable[rel]
			return ok && files[i]
		},
		table: func(rel string, data []byte) error {
			lf := w.files.list[w.files.byTable[rel]]
			if err := d.rows(w, lf, data); err != nil {
				w.s.warn(rel, err)
			}
			return nil
		},
	})
}

// detail reads one object of a change on side w.
func (d *differ) detail(w sideOf, c *change, raw []byte) error {
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return err
	}
	f := factsOf(c.key.groupKind, obj)
	if !d.o.All {
		normalize(c.key.groupKind, obj)
	}
	if w.isA {
		c.factsA = f
		if c.typ == changed {
			c.objA = obj
		}
		return nil
	}
	c.factsB = f
	if c.typ == changed && c.objA != nil {
		c.fields, c.moreFields = fieldChanges(c.objA, obj)
		c.objA = nil
	}
	return nil
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
