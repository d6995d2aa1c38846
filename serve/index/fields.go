package index

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// fieldIndex holds, for each served version of a resource, the field
// selectors the server accepts, and the value of every selectable field of
// every object. The values are extracted once, at load, so a request only
// compares strings: it never decodes JSON.
type fieldIndex struct {
	sets map[string]contract.FieldSet // by version
	// values maps version + "\x00" + label to the label's value of every
	// object, by object idx; metadata.name and metadata.namespace are not
	// kept, objects carry them.
	values map[string][]string
}

func newFieldIndex() *fieldIndex {
	return &fieldIndex{sets: map[string]contract.FieldSet{}, values: map[string][]string{}}
}

// Selection is a request's label and field selectors, ready to match
// objects by their pre-extracted values.
type Selection struct {
	labels labels.Selector // nil selects everything
	fields []fieldTerm
}

// fieldSource says where a term reads an object's value.
type fieldSource int

const (
	fromValues fieldSource = iota
	fromName
	fromNamespace
)

type fieldTerm struct {
	value  string
	equal  bool
	source fieldSource
	values []string // by object idx, for fromValues
}

// Empty says whether the selection keeps every object; the server sends
// remainingItemCount only then.
func (s *Selection) Empty() bool { return s.labels == nil && len(s.fields) == 0 }

func (s *Selection) matches(o *Object) bool {
	if s.labels != nil && !s.labels.Matches(o.labels()) {
		return false
	}
	for _, t := range s.fields {
		var v string
		switch t.source {
		case fromName:
			v = o.Name()
		case fromNamespace:
			v = o.Namespace()
		default:
			if int(o.idx) < len(t.values) {
				v = t.values[o.idx]
			}
		}
		if (v == t.value) != t.equal {
			return false
		}
	}
	return true
}

// Filter returns the objects the selection keeps, in order.
func (s *Selection) Filter(objs []*Object) []*Object {
	if s.Empty() {
		return objs
	}
	out := make([]*Object, 0, len(objs)/4)
	for _, o := range objs {
		if s.matches(o) {
			out = append(out, o)
		}
	}
	return out
}

// Select checks a field selector against what the server accepts for
// the version of the resource, answering with the server's own 400
// message, and prepares both selectors.
func (r *Resource) Select(version string, ls labels.Selector, fs fields.Selector) (*Selection, string) {
	s := &Selection{}
	if ls != nil && !ls.Empty() {
		s.labels = ls
	}
	if fs == nil || fs.Empty() {
		return s, ""
	}
	set, ok := r.fields.sets[version]
	if !ok {
		set = contract.DefaultFieldSet(r.Namespaced)
	}
	if msg := set.Validate(fs); msg != "" {
		return nil, msg
	}
	for _, req := range fs.Requirements() {
		label := req.Field
		if to, ok := set.Aliases[label]; ok {
			label = to
		}
		t := fieldTerm{value: req.Value, equal: req.Operator != selection.NotEquals}
		switch label {
		case "metadata.name":
			t.source = fromName
		case "metadata.namespace":
			t.source = fromNamespace
		default:
			t.values = r.fields.values[version+"\x00"+label]
		}
		s.fields = append(s.fields, t)
	}
	return s, ""
}

// extractValues computes, for every label of every version's set, the
// value of every object, as the contract's FieldSet.FieldValue computes it
// from the decoded object (the first path with a non-empty value, else the
// label's zero value). Every object is walked once for all the paths of
// all the sets, without being decoded, on every core. Labels whose paths
// and zero value are the same in several versions share one column.
func (f *fieldIndex) extractValues(objects []*Object) {
	type spec struct {
		slots []int
		zero  string
	}
	trie := newPathTrie()
	slots := 0
	var specs []spec
	bySignature := map[string]int{}
	keys := map[string]int{} // version + "\x00" + label → spec
	for version, set := range f.sets {
		for label, paths := range set.Fields {
			if label == "metadata.name" || label == "metadata.namespace" {
				continue
			}
			zero := set.Zero[label]
			sig := strings.Join(paths, "\x00") + "\x01" + zero
			i, ok := bySignature[sig]
			if !ok {
				sp := spec{zero: zero}
				for _, p := range paths {
					sp.slots = append(sp.slots, trie.add(p, &slots))
				}
				i = len(specs)
				specs = append(specs, sp)
				bySignature[sig] = i
			}
			keys[version+"\x00"+label] = i
		}
	}
	if len(specs) == 0 {
		return
	}
	value := func(raws [][]byte, sp spec) string {
		for _, slot := range sp.slots {
			if s := formatValue(raws[slot]); s != "" {
				return s
			}
		}
		return sp.zero
	}
	// A column is made only once an object's value differs from the
	// first object's: the columns that hold one value for every object
	// (labels of fields none of them sets, as often as not) share one
	// slice of that value.
	first := make([]string, len(specs))
	if len(objects) > 0 {
		raws := make([][]byte, slots)
		trie.find(objects[0].Item, raws)
		for j, sp := range specs {
			first[j] = value(raws, sp)
		}
	}
	cols := make([]column, len(specs))
	parallel(len(objects), func(lo, hi int) {
		raws := make([][]byte, slots)
		wrote := make([]bool, len(specs))
		for i := lo; i < hi; i++ {
			clear(raws)
			trie.find(objects[i].Item, raws)
			for j, sp := range specs {
				v := value(raws, sp)
				if !wrote[j] {
					if v == first[j] {
						continue
					}
					cols[j].once.Do(func() { cols[j].values = make([]string, len(objects)) })
					fillValues(cols[j].values[lo:i], first[j])
					wrote[j] = true
				}
				cols[j].values[i] = v
			}
		}
		for j := range cols {
			if !wrote[j] {
				cols[j].mu.Lock()
				cols[j].unwritten = append(cols[j].unwritten, [2]int{lo, hi})
				cols[j].mu.Unlock()
			}
		}
	})
	shared := map[string][]string{}
	for k, j := range keys {
		c := &cols[j]
		if c.values == nil {
			if c.values = shared[first[j]]; c.values == nil {
				c.values = make([]string, len(objects))
				fillValues(c.values, first[j])
				shared[first[j]] = c.values
			}
		} else {
			for _, r := range c.unwritten {
				fillValues(c.values[r[0]:r[1]], first[j])
			}
			c.unwritten = nil
		}
		f.values[k] = c.values
	}
}

// column is the values of a label being extracted (extractValues), made
// by the first range of objects that holds a value other than the first
// object's; unwritten are the ranges that held none.
type column struct {
	once      sync.Once
	values    []string
	mu        sync.Mutex
	unwritten [][2]int
}

func fillValues(values []string, v string) {
	for i := range values {
		values[i] = v
	}
}

// parallel runs fn over [0,n) split into one range per core.
func parallel(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < 256 || workers == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// pathTrie finds the values of several dot-separated paths ("spec.nodeName",
// "status.podIPs.0.ip") in one walk of a compact JSON object: each level
// is scanned once, whatever the number of paths below it, and values that
// no path reaches are skipped without being decoded.
type pathTrie struct {
	children map[string]*pathTrie
	slot     int // index of the path ending here, -1 for none
}

func newPathTrie() *pathTrie { return &pathTrie{slot: -1} }

// add registers path and returns its slot; adding a path twice returns the
// same slot.
func (t *pathTrie) add(path string, next *int) int {
	n := t
	for _, part := range strings.Split(path, ".") {
		c := n.children[part]
		if c == nil {
			if n.children == nil {
				n.children = map[string]*pathTrie{}
			}
			c = newPathTrie()
			n.children[part] = c
		}
		n = c
	}
	if n.slot < 0 {
		n.slot = *next
		*next++
	}
	return n.slot
}

// find stores in out[slot] the raw value of every path present in v.
func (t *pathTrie) find(v []byte, out [][]byte) {
	if t.slot >= 0 {
		out[t.slot] = v
	}
	if len(t.children) == 0 || len(v) == 0 {
		return
	}
	switch v[0] {
	case '{':
		rawjson.EachMember(v, func(m rawjson.Member) bool {
			if c := t.children[m.Name()]; c != nil {
				c.find(v[m.Start:m.End], out)
			}
			return true
		})
	case '[':
		i := 0
		rawjson.EachElement(v, func(elem []byte) {
			if c := t.children[strconv.Itoa(i)]; c != nil {
				c.find(elem, out)
			}
			i++
		})
	}
}

// formatValue renders a raw JSON value as the contract's FieldSet.FieldValue
// renders the same value decoded: strings as they are, booleans true or
// false, integral numbers in decimal, null as "", objects and arrays as
// their JSON with sorted keys.
func formatValue(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return rawjson.String(raw)
	case 'n':
		return ""
	case 't', 'f':
		return string(raw)
	case '{', '[':
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return ""
		}
		out, _ := json.Marshal(v)
		return string(out)
	default:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return string(raw)
		}
		if f == float64(int64(f)) {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
}
