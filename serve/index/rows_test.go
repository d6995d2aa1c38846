package index

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
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

// TestRowsThatMatchNoObject: a stored table whose rows do not pair with
// the list's objects (a row naming an object the list lacks; rows without
// objects, fewer than the objects; no table beside a list) is reported once at load, naming the
// table and the list; the rows that match are served, and the others'
// "<unknown>" cells are never silent.
func TestRowsThatMatchNoObject(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	const table, list = "cluster-resources/pods/default.table.json", "cluster-resources/pods/default.json"
	for _, tc := range []struct {
		name string
		edit func(rows []map[string]any) []map[string]any
		want string
		// matched are the pods of default that keep their stored row.
		matched int
	}{
		{"a row names another object", func(rows []map[string]any) []map[string]any {
			rows[0]["object"].(map[string]any)["metadata"].(map[string]any)["name"] = "nobody"
			return rows
		}, table + ": 1 of its 2 rows match no object of " + list + ", and 1 of the list's 2 objects have no row", 1},
		{"rows without objects, one missing", func(rows []map[string]any) []map[string]any {
			for _, r := range rows {
				delete(r, "object")
			}
			return rows[1:]
		}, table + ": 1 of its 1 rows match no object of " + list + ", and 2 of the list's 2 objects have no row", 0},
		{"no table beside the list", nil, list + ": no table is stored beside it (" + table + ") while other lists of pods have one: its 2 objects show <unknown>", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := servetest.Small()
			if tc.edit == nil {
				delete(files, table)
			} else {
				var tab map[string]any
				if err := json.Unmarshal(files[table], &tab); err != nil {
					t.Fatal(err)
				}
				var rows []map[string]any
				for _, r := range tab["rows"].([]any) {
					rows = append(rows, r.(map[string]any))
				}
				if len(rows) != 2 {
					t.Fatalf("%d rows in %s, the test expects 2", len(rows), table)
				}
				tab["rows"] = tc.edit(rows)
				data, err := json.Marshal(tab)
				if err != nil {
					t.Fatal(err)
				}
				files[table] = data
			}
			x := load(t, files.WriteDir(t, t.TempDir()))
			var warned []string
			for _, w := range x.Warnings {
				if strings.Contains(w, "<unknown>") {
					warned = append(warned, w)
				}
			}
			if len(warned) != 1 || !strings.Contains(warned[0], tc.want) {
				t.Errorf("warnings %q, want one with %q", warned, tc.want)
			}
			matched := 0
			for _, o := range x.resources[pods].objects {
				if o.Namespace() != "default" {
					continue
				}
				var cells []any
				if err := json.Unmarshal(o.Row.Cells, &cells); err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(cells, any("<unknown>")) {
					matched++
				}
			}
			if matched != tc.matched {
				t.Errorf("%d pods of default keep their row, want %d", matched, tc.matched)
			}
		})
	}
}
