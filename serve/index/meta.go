package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// objectMetaFields are the JSON names of metav1.ObjectMeta's fields.
var objectMetaFields = func() map[string]bool {
	names := map[string]bool{}
	t := reflect.TypeFor[metav1.ObjectMeta]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}()

// serverMeta is an object's metadata as the server would have stored and
// served it, when that differs from the stored one: members that are not
// ObjectMeta's are dropped (typed objects are decoded into ObjectMeta, and
// the apiextensions server prunes a custom resource's metadata to it), so
// that what kubectl decodes, the PartialObjectMetadata of Table rows
// above all, always decodes: a stored `metadata.x: 1e400` cannot make
// kubectl fail for a whole list. It is nil when every member is
// ObjectMeta's, as in every bundle collected from a real server (whose
// values it validated). Otherwise the metadata is decoded into
// ObjectMeta and encoded again, in field order, or with sorted keys for
// a custom resource as unstructured objects are written; a member whose
// value does not decode as its field is left out too, and named in
// problems.
func serverMeta(meta []byte, custom bool) (out []byte, problems []string) {
	known := true
	rawjson.EachMember(meta, func(m rawjson.Member) bool {
		known = objectMetaFields[m.Name()]
		return known
	})
	if known {
		return nil, nil
	}
	var m metav1.ObjectMeta
	if err := json.Unmarshal(meta, &m); err != nil {
		// One member at a time, to keep every other one.
		m = metav1.ObjectMeta{}
		rawjson.EachMember(meta, func(mem rawjson.Member) bool {
			if !objectMetaFields[mem.Name()] {
				return true
			}
			one := append(append([]byte{'{'}, meta[mem.KeyStart:mem.End]...), '}')
			if err := json.Unmarshal(one, &metav1.ObjectMeta{}); err != nil {
				problems = append(problems, fmt.Sprintf("metadata.%s: %v", mem.Name(), err))
				return true
			}
			json.Unmarshal(one, &m)
			return true
		})
	}
	out, err := json.Marshal(&m)
	if err == nil && custom {
		out, err = sortedKeys(out)
	}
	if err != nil {
		return nil, append(problems, fmt.Sprintf("metadata: %v", err))
	}
	return out, problems
}

// sortedKeys writes a JSON object with its keys sorted, at every depth,
// as unstructured objects are written.
func sortedKeys(data []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
