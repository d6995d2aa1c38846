package index

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestManagedFieldsSpan(t *testing.T) {
	for _, c := range []struct{ meta, want string }{
		{`{"name":"a","managedFields":[{"manager":"m"}],"uid":"u"}`, `{"name":"a","uid":"u"}`},
		{`{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:x":{}}}]}`, `{"name":"a"}`},
		{`{"managedFields":[],"name":"a"}`, `{"name":"a"}`},
		{`{"managedFields":[{"manager":"m"}]}`, `{}`},
		{`{"name":"managedFields","labels":{"managedFields":"x"}}`, `{"name":"managedFields","labels":{"managedFields":"x"}}`},
		{`{}`, `{}`},
	} {
		meta := []byte(c.meta)
		start, end := managedFieldsSpan(meta)
		got := c.meta
		if end > 0 {
			got = string(meta[:start]) + string(meta[end:])
		}
		if got != c.want || !json.Valid([]byte(got)) {
			t.Errorf("%s: cut to %s, want %s", c.meta, got, c.want)
		}
	}
}

// TestRowsAtLoad checks that every object has its table row once loaded,
// stored or made (the default convertor's, or a stand-in row), so that
// serving a table only puts bytes together.
func TestRowsAtLoad(t *testing.T) {
	x := load(t, smallBundle(t))
	for gr, r := range x.resources {
		for _, o := range r.objects {
			if o.Row == nil || !json.Valid(o.Row.Cells) {
				t.Errorf("%s %s: row %v", gr, o.Key, o.Row)
			}
		}
	}
	secrets := x.resources[schema.GroupResource{Resource: "secrets"}]
	if secrets == nil || len(secrets.objects) == 0 || string(secrets.objects[0].Row.Cells) != `["creds","2025-11-18T10:00:00Z"]` {
		t.Errorf("secrets: %v", secrets)
	}
}
