package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const serverTable = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"528"},
"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"d","priority":0},{"name":"Status","type":"string","format":"","description":"s","priority":0},{"name":"Age","type":"string","format":"","description":"a","priority":0}],
"rows":[
 {"cells":["scheduler","Unhealthy","10s"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"scheduler","uid":"1"}}},
 {"cells":["etcd-0","Healthy","10s"],"conditions":[{"type":"Completed","status":"True"}],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"etcd-0","uid":"2"}}}
]}`

func compareTablesText(t *testing.T, server, synth string, norms []string, slack time.Duration) ([]Divergence, *normalizer) {
	t.Helper()
	n := newNormalizer(norms, window{0, slack}, window{})
	d, err := compareTables([]byte(server), []byte(synth), n)
	if err != nil {
		t.Fatal(err)
	}
	return d, n
}

func TestCompareTables(t *testing.T) {
	if d, _ := compareTablesText(t, serverTable, serverTable, nil, 0); len(d) != 0 {
		t.Fatalf("identical tables differ: %+v", d)
	}
	// Whitespace and key order are JSON's business, not the table's.
	compact := strings.NewReplacer("\n", "", " ", "").Replace(serverTable)
	if d, _ := compareTablesText(t, serverTable, compact, nil, 0); len(d) != 0 {
		t.Fatalf("compact table differs: %+v", d)
	}
	for name, tc := range map[string]struct {
		synth string
		want  string
	}{
		"cell":      {strings.Replace(serverTable, `"Unhealthy"`, `"Healthy"`, 1), "cells of scheduler"},
		"number":    {strings.Replace(serverTable, `"priority":0}]`, `"priority":0.0}]`, 1), "columnDefinitions"},
		"condition": {strings.Replace(serverTable, `"status":"True"`, `"status":"False"`, 1), "conditions of etcd-0"},
		"object":    {strings.Replace(serverTable, `"uid":"2"}`, `"uid":"2","labels":{"a":"b"}}`, 1), "object of etcd-0"},
		"column":    {strings.Replace(serverTable, `"description":"s"`, `"description":"S"`, 1), "columnDefinitions"},
		"metadata":  {strings.Replace(serverTable, `"528"`, `"529"`, 1), "metadata"},
		"order":     {swapRows(serverTable), "rows (identity and order)"},
		"age":       {strings.Replace(serverTable, `"10s"`, `"9s"`, 1), "cells of scheduler"},
	} {
		d, _ := compareTablesText(t, serverTable, tc.synth, nil, 0)
		if len(d) != 1 || d[0].Output != tc.want {
			t.Errorf("%s: got %+v, want one divergence in %q", name, d, tc.want)
		}
	}
	// The rows of a resource the server computes in no order compare as a set.
	d, n := compareTablesText(t, serverTable, swapRows(serverTable), []string{NormUnorderedRows}, 0)
	if len(d) != 0 || n.counts[NormUnorderedRows] != 1 {
		t.Errorf("unordered: %+v %v", d, n.counts)
	}
	// When the tables did not fit in one second, a server age may be
	// ahead by the slack, never behind.
	d, n = compareTablesText(t, serverTable, strings.Replace(serverTable, `"10s"`, `"9s"`, 1), []string{NormAges}, 2*time.Second)
	if len(d) != 0 || n.counts[NormAges] != 1 {
		t.Errorf("slack: %+v %v", d, n.counts)
	}
	if d, _ := compareTablesText(t, serverTable, strings.Replace(serverTable, `"10s"`, `"11s"`, 1), []string{NormAges}, 2*time.Second); len(d) != 1 {
		t.Errorf("a synthesized age ahead of the server's was forgiven")
	}
}

func swapRows(table string) string {
	i := strings.Index(table, ` {"cells":["scheduler"`)
	j := strings.Index(table, ` {"cells":["etcd-0"`)
	end := strings.LastIndex(table, "\n]}")
	first := strings.TrimSuffix(table[i:j], ",\n")
	second := table[j:end]
	return table[:i] + second + ",\n" + first + table[end:]
}

func TestCompareTablesEmptyRows(t *testing.T) {
	empty := func(rows string) string {
		return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[],"rows":` + rows + `}`
	}
	if d, _ := compareTablesText(t, empty("null"), empty("null"), nil, 0); len(d) != 0 {
		t.Errorf("null vs null: %+v", d)
	}
	// The default convertor sends null, the printers []: a reader of the
	// raw table sees the difference.
	if d, _ := compareTablesText(t, empty("null"), empty("[]"), nil, 0); len(d) != 1 || d[0].Output != "rows encoding" {
		t.Errorf("null vs []: %+v", d)
	}
}

func TestStripContract(t *testing.T) {
	src := t.TempDir()
	root := filepath.Join(src, "support-bundle-2026-11-23T06_56_06")
	for _, f := range []string{
		"version.yaml",
		"cluster-resources/pods/a.json",
		"cluster-resources/pods/a.table.json",
		"cluster-resources/nodes.json",
		"cluster-resources/nodes.table.json",
		"cluster-resources/_meta/discovery.json",
		"cluster-resources/_meta/selectable-fields/core.v1.pods.json",
		"cluster-resources/pods/logs/a/web/app.log",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(t.TempDir(), "legacy")
	if err := stripContract(src, dest); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.Walk(dest, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	want := "support-bundle-2026-11-23T06_56_06/cluster-resources/nodes.json support-bundle-2026-11-23T06_56_06/cluster-resources/pods/a.json support-bundle-2026-11-23T06_56_06/cluster-resources/pods/logs/a/web/app.log support-bundle-2026-11-23T06_56_06/version.yaml"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v", got)
	}
}

// A converted list's Table revision is forgiven with resourceVersion (the
// server's LIST ran later than the one converted), and only then.
func TestCompareTablesRevision(t *testing.T) {
	moved := strings.Replace(serverTable, `"resourceVersion":"528"`, `"resourceVersion":"529"`, 1)
	if d, n := compareTablesText(t, serverTable, moved, []string{NormResourceVersion}, 0); len(d) != 0 || n.counts[NormResourceVersion] != 1 {
		t.Errorf("a moved revision was not forgiven (%v): %+v", n.counts, d)
	}
	if d, _ := compareTablesText(t, serverTable, moved, nil, 0); len(d) != 1 || d[0].Output != "metadata" {
		t.Errorf("a moved revision was forgiven without the normalization: %+v", d)
	}
}
