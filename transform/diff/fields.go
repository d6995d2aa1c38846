package diff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// FieldChange is one field that differs between the two sides of a
// changed object; A or B is absent where that side has no such field.
type FieldChange struct {
	Path string          `json:"path"`
	A    json.RawMessage `json:"a,omitempty"`
	B    json.RawMessage `json:"b,omitempty"`
}

// maxFields bounds the fields listed per object: an object rewritten
// whole is one change, not thousands of lines.
const maxFields = 100

// fieldChanges lists the leaves that differ between a and b, in path
// order, at most maxFields, and how many more there are.
func fieldChanges(a, b map[string]any) ([]FieldChange, int) {
	var out []FieldChange
	more := 0
	walkFields("", a, b, func(path string, va, vb any, hasA, hasB bool) {
		if len(out) == maxFields {
			more++
			return
		}
		fc := FieldChange{Path: path}
		if hasA {
			fc.A, _ = json.Marshal(va)
		}
		if hasB {
			fc.B, _ = json.Marshal(vb)
		}
		out = append(out, fc)
	})
	return out, more
}

// walkFields calls fn for every leaf path where a and b differ. Lists of
// objects that each have a distinct name (containers, ports) or type
// (conditions) are matched by it, so that one item more or less is not
// a change of every item after it: spec.containers[name=app].image.
func walkFields(path string, a, b any, fn func(path string, a, b any, hasA, hasB bool)) {
	switch ta := a.(type) {
	case map[string]any:
		tb, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range ta {
			keys[k] = true
		}
		for k := range tb {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			va, hasA := ta[k]
			vb, hasB := tb[k]
			p := join(path, k)
			if hasA && hasB {
				walkFields(p, va, vb, fn)
			} else {
				fn(p, va, vb, hasA, hasB)
			}
		}
		return
	case []any:
		tb, ok := b.([]any)
		if !ok {
			break
		}
		if walkNamed(path, ta, tb, fn) {
			return
		}
		if len(ta) == len(tb) {
			for i := range ta {
				walkFields(path+"["+strconv.Itoa(i)+"]", ta[i], tb[i], fn)
			}
			return
		}
	default:
		if scalar(b) && a == b {
			return
		}
	}
	fn(path, a, b, true, true)
}

// scalar says whether v, a decoded JSON value, is neither an object nor
// an array (which == cannot compare).
func scalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// walkNamed compares two lists of objects by their name or type field,
// when every item of both has a distinct one.
func walkNamed(path string, a, b []any, fn func(path string, a, b any, hasA, hasB bool)) bool {
	for _, field := range []string{"name", "type"} {
		ia, ok1 := byField(a, field)
		ib, ok2 := byField(b, field)
		if !ok1 || !ok2 {
			continue
		}
		keys := map[string]bool{}
		for k := range ia {
			keys[k] = true
		}
		for k := range ib {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			va, hasA := ia[k]
			vb, hasB := ib[k]
			p := fmt.Sprintf("%s[%s=%s]", path, field, k)
			if hasA && hasB {
				walkFields(p, va, vb, fn)
			} else {
				fn(p, va, vb, hasA, hasB)
			}
		}
		return true
	}
	return false
}

// byField indexes a list of objects by a string field, false when an item
// is not an object, lacks the field, or repeats it.
func byField(list []any, field string) (map[string]any, bool) {
	if len(list) == 0 {
		return nil, false
	}
	out := make(map[string]any, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		k, ok := m[field].(string)
		if !ok || out[k] != nil {
			return nil, false
		}
		out[k] = it
	}
	return out, true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fieldsRecord is what fieldChanges found of an object, as the spill
// keeps it; readFields reads it back. Nothing found is no record.
func fieldsRecord(fields []FieldChange, more int) record {
	if len(fields) == 0 && more == 0 {
		return nil
	}
	r := record{}.uint(uint64(len(fields)))
	for _, f := range fields {
		r = r.string(f.Path).bytes(f.A).bytes(f.B)
	}
	return r.uint(uint64(more))
}

func readFields(data []byte) ([]FieldChange, int, error) {
	if data == nil {
		return nil, 0, nil
	}
	r := &reader{b: data}
	var out []FieldChange
	for n := r.uint(); uint64(len(out)) < n && r.err == nil; {
		out = append(out, FieldChange{Path: r.string(), A: r.bytes(), B: r.bytes()})
	}
	more := int(r.uint())
	return out, more, r.err
}
