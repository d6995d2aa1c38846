package index

import (
	"errors"
	"fmt"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// rawLabels is a metadata.labels object as stored, read as a
// labels.Labels where a selector asks: a million objects' labels
// decoded into maps cost far more than their bytes.
type rawLabels []byte

// Has says whether the label is set.
func (l rawLabels) Has(label string) bool {
	_, ok := l.Lookup(label)
	return ok
}

// Get is the label's value, "" when it is not set.
func (l rawLabels) Get(label string) string {
	v, _ := l.Lookup(label)
	return v
}

// Lookup is the label's value and whether it is set; of a label written
// twice, the last, as encoding/json decodes it (null is "").
func (l rawLabels) Lookup(label string) (string, bool) {
	var value []byte
	found := false
	rawjson.EachMember(l, func(m rawjson.Member) bool {
		if m.Is(label) {
			value, found = l[m.Start:m.End], true
		}
		return true
	})
	return rawjson.String(value), found
}

// checkLabels says whether v, a compact metadata.labels value, decodes as
// a map of strings, as the server's decoder requires: an object whose
// values are strings or null, or null.
func checkLabels(v []byte) error {
	if string(v) == "null" {
		return nil
	}
	if v[0] != '{' {
		return errors.New("metadata.labels: not an object")
	}
	var err error
	rawjson.EachMember(v, func(m rawjson.Member) bool {
		if c := v[m.Start]; c != '"' && string(v[m.Start:m.End]) != "null" {
			err = fmt.Errorf("metadata.labels: the value of %q is not a string", m.Name())
			return false
		}
		return true
	})
	return err
}
