package serve

import (
	"encoding/json"
	"runtime"
	"sync"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/bundlectl/bundlectl/contract"
)

// fieldIndex holds, for each served version of a resource, the field
// selectors the server accepts, and the value of every selected field of
// every object. Values are extracted the first time a label is selected
// (describe asks for a handful of labels on events and pods, and most
// bundles are never field-selected at all), then kept, so a request never
// decodes JSON.
type fieldIndex struct {
	sets map[string]contract.FieldSet // by version

	mu     sync.Mutex
	values map[string][]string // version + "\x00" + label → value by object idx
}

func newFieldIndex() *fieldIndex {
	return &fieldIndex{sets: map[string]contract.FieldSet{}, values: map[string][]string{}}
}

// selector is a request's label and field selectors, ready to match
// objects by their pre-extracted values.
type selector struct {
	labels labels.Selector // nil selects everything
	fields []fieldTerm
}

type fieldTerm struct {
	label, value string
	equal        bool
	values       []string // nil for metadata.name and metadata.namespace, read from the object
}

// empty says whether the selection keeps every object; the server sends
// remainingItemCount only then.
func (s *selector) empty() bool { return s.labels == nil && len(s.fields) == 0 }

func (s *selector) matches(o *object) bool {
	if s.labels != nil && !s.labels.Matches(labels.Set(o.labels)) {
		return false
	}
	for _, t := range s.fields {
		var v string
		switch {
		case t.values != nil:
			v = t.values[o.idx]
		case t.label == "metadata.name":
			v = o.name
		default: // metadata.namespace
			v = o.namespace
		}
		if (v == t.value) != t.equal {
			return false
		}
	}
	return true
}

// filter returns the objects the selection keeps, in order.
func (s *selector) filter(objs []*object) []*object {
	if s.empty() {
		return objs
	}
	out := make([]*object, 0, len(objs)/4)
	for _, o := range objs {
		if s.matches(o) {
			out = append(out, o)
		}
	}
	return out
}

// newSelector checks the field selector against what the server accepts
// for the version, answering with the server's own 400 message, and
// prepares both selectors.
func newSelector(r *resource, version string, ls labels.Selector, fs fields.Selector) (*selector, string) {
	s := &selector{}
	if ls != nil && !ls.Empty() {
		s.labels = ls
	}
	if fs == nil || fs.Empty() {
		return s, ""
	}
	set, ok := r.fields.sets[version]
	if !ok {
		set = contract.DefaultFieldSet(r.namespaced)
	}
	if msg := set.Validate(fs); msg != "" {
		return nil, msg
	}
	var extract []string
	for _, req := range fs.Requirements() {
		t := fieldTerm{label: req.Field, value: req.Value, equal: req.Operator != selection.NotEquals}
		s.fields = append(s.fields, t)
		if t.label != "metadata.name" && t.label != "metadata.namespace" {
			extract = append(extract, t.label)
		}
	}
	if len(extract) > 0 {
		values := r.fields.extract(r, version, set, extract)
		for i := range s.fields {
			s.fields[i].values = values[s.fields[i].label]
		}
	}
	return s, ""
}

// extract returns the values of labels for every object, computing those
// not seen before: each object is decoded once for all missing labels, on
// every core.
func (f *fieldIndex) extract(r *resource, version string, set contract.FieldSet, labels []string) map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var missing []string
	for _, l := range labels {
		if _, ok := f.values[version+"\x00"+l]; !ok {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		cols := make([][]string, len(missing))
		for i := range cols {
			cols[i] = make([]string, len(r.objects))
		}
		parallel(len(r.objects), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				var m map[string]interface{}
				if json.Unmarshal(r.objects[i].item, &m) != nil {
					continue
				}
				for j, l := range missing {
					cols[j][i], _ = set.FieldValue(m, l)
				}
			}
		})
		for j, l := range missing {
			f.values[version+"\x00"+l] = cols[j]
		}
	}
	out := make(map[string][]string, len(labels))
	for _, l := range labels {
		out[l] = f.values[version+"\x00"+l]
	}
	return out
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
