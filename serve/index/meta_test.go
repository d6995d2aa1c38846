package index

import (
	"strings"
	"testing"
)

// TestServerMeta re-encodes metadata as the server stores it only when it
// holds members ObjectMeta has not, dropping those (and values that do
// not decode as their field, which are reported).
func TestServerMeta(t *testing.T) {
	for _, tc := range []struct {
		meta   string
		custom bool
		want   string // "" when the stored metadata stands
		probs  string
	}{
		{`{"name":"a","namespace":"n","labels":{"x":"1"},"managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]}`, false, "", ""},
		{`{"name":"a","x":1e400,"namespace":"n","resourceVersion":"3"}`, false, `{"name":"a","namespace":"n","resourceVersion":"3"}`, ""},
		// A custom resource is written as unstructured: keys sorted.
		{`{"uid":"u","name":"a","x":{"y":[1]},"labels":{"b":"2","a":"1"}}`, true, `{"labels":{"a":"1","b":"2"},"name":"a","uid":"u"}`, ""},
		{`{"name":"a","generation":"many","x":1,"labels":{"k":"v"}}`, false, `{"name":"a","labels":{"k":"v"}}`, "metadata.generation: json: cannot unmarshal string into Go struct field ObjectMeta.generation of type int64"},
	} {
		got, probs := serverMeta([]byte(tc.meta), tc.custom)
		if string(got) != tc.want || strings.Join(probs, "; ") != tc.probs {
			t.Errorf("%s: %s %q, want %s %q", tc.meta, got, probs, tc.want, tc.probs)
		}
	}
}
