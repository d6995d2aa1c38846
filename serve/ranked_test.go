package serve

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

var storageClasses = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}

// rankedBundle is a bundle of four StorageClasses, as a 1.37 server lists
// them: a, b and c are ranked in that order (the upgrade found that a
// list marks the first of them it holds), plain is not; its stored table
// marks a, the first of the whole list. ranked, when not nil, replaces
// the ranked-rows file.
func rankedBundle(t *testing.T, ranked []byte) string {
	t.Helper()
	d := contract.Discovery{BundleSchemaVersion: contract.SchemaVersion, CollectedAt: metav1.NewTime(servetest.CollectedAt),
		KubernetesVersion: "v1.37.1", APIVersion: "v1",
		Groups: []metav1.APIGroup{{Name: "storage.k8s.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "storage.k8s.io/v1", Version: "v1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "storage.k8s.io/v1", Version: "v1"}}},
		Resources: map[string][]metav1.APIResource{"v1": {}, "storage.k8s.io/v1": {{Name: "storageclasses", SingularName: "storageclass",
			Kind: "StorageClass", ShortNames: []string{"sc"}, Verbs: []string{"get", "list", "watch"}}}},
	}
	disc, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tiers := map[string]string{"a": "gold", "b": "gold", "c": "silver", "plain": "silver"}
	var items []any
	var rows []metav1.TableRow
	for i, n := range []string{"a", "b", "c", "plain"} {
		meta := metav1.ObjectMeta{Name: n, ResourceVersion: "10" + string(rune('0'+i)), Labels: map[string]string{"tier": tiers[n]}}
		items = append(items, map[string]any{"metadata": meta, "provisioner": "p"})
		name := n
		if n == "a" {
			name += " (default)"
		}
		rows = append(rows, metav1.TableRow{Cells: []any{name, "p"}, Object: rawPartial(t, meta)})
	}
	list, _ := json.Marshal(map[string]any{"kind": "StorageClassList", "apiVersion": "storage.k8s.io/v1", "metadata": map[string]any{"resourceVersion": "110"}, "items": items})
	table, _ := json.Marshal(metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}, {Name: "Provisioner", Type: "string"}}, Rows: rows})
	if ranked == nil {
		r := &contract.RankedRows{}
		for _, n := range []string{"a", "b", "c"} {
			r.Rows = append(r.Rows, contract.RankedRow{Name: n, Row: contract.RowCells{Cells: json.RawMessage(`["` + n + `","p"]`)},
				TopRow: contract.RowCells{Cells: json.RawMessage(`["` + n + ` (default)","p"]`)}})
		}
		if ranked, err = r.Marshal(); err != nil {
			t.Fatal(err)
		}
	}
	return servetest.Files{
		contract.DiscoveryPath():                       disc,
		"cluster-resources/storage-classes.json":       list,
		"cluster-resources/storage-classes.table.json": table,
		contract.RankedRowsPath(storageClasses):        ranked,
		"cluster-info/cluster_version.json":            []byte(`{"info":{"major":"1","minor":"37","gitVersion":"v1.37.1"}}`),
	}.WriteDir(t, t.TempDir())
}

func rawPartial(t *testing.T, meta metav1.ObjectMeta) runtime.RawExtension {
	t.Helper()
	data, err := json.Marshal(metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}, ObjectMeta: meta})
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: data}
}

// firstCells are the NAME cells of a Table answer.
func firstCells(t *testing.T, r response) []string {
	t.Helper()
	if r.code != 200 {
		t.Fatalf("%d: %s", r.code, r.body)
	}
	var out []string
	for _, row := range decode(t, r)["rows"].([]any) {
		out = append(out, row.(map[string]any)["cells"].([]any)[0].(string))
	}
	return out
}

// A list marks the highest-ranked object it lists, whatever selects it;
// each page is a list of its own; a single object's table, a GET's or a
// watch event's, marks none.
func TestRankedRows(t *testing.T) {
	srv := newHandlerServer(t, load(t, rankedBundle(t, nil)))
	const sc = "/apis/storage.k8s.io/v1/storageclasses"
	for query, want := range map[string][]string{
		"":                                    {"a (default)", "b", "c", "plain"},
		"labelSelector=tier%3Dsilver":         {"c (default)", "plain"},
		"labelSelector=tier%21%3Dsilver":      {"a (default)", "b"},
		"fieldSelector=metadata.name%3Db":     {"b (default)"},
		"fieldSelector=metadata.name%3Dplain": {"plain"},
		"fieldSelector=metadata.name%21%3Da":  {"b (default)", "c", "plain"},
		"limit=2":                             {"a (default)", "b"},
	} {
		if got := firstCells(t, get(t, srv, sc+"?"+query, tableAccept)); !slices.Equal(got, want) {
			t.Errorf("list ?%s: %q, want %q", query, got, want)
		}
	}
	// The second page of two, from the continue token of the first.
	first := decode(t, get(t, srv, sc+"?limit=2", tableAccept))
	cont := first["metadata"].(map[string]any)["continue"].(string)
	if got := firstCells(t, get(t, srv, sc+"?limit=2&continue="+url.QueryEscape(cont), tableAccept)); !slices.Equal(got, []string{"c (default)", "plain"}) {
		t.Errorf("second page: %q", got)
	}
	for _, n := range []string{"a", "b", "plain"} {
		if got := firstCells(t, get(t, srv, sc+"/"+n, tableAccept)); !slices.Equal(got, []string{n}) {
			t.Errorf("GET %s: %q", n, got)
		}
	}
	events, _ := watchEvents(t, srv, sc+"?watch=1&timeoutSeconds=1", tableAccept)
	var watched []string
	for _, e := range events {
		watched = append(watched, e.Object["rows"].([]any)[0].(map[string]any)["cells"].([]any)[0].(string))
	}
	if !slices.Equal(watched, []string{"a", "b", "c", "plain"}) {
		t.Errorf("watch: %q", watched)
	}
	// Other forms are not tables: the objects as stored.
	if r := get(t, srv, sc+"/a"); !strings.Contains(r.body, `"name":"a"`) {
		t.Errorf("GET a as JSON: %s", r.body)
	}
}

// A ranked-rows file that cannot be read is reported, and the tables are
// served as stored.
func TestRankedRowsUnreadable(t *testing.T) {
	x := load(t, rankedBundle(t, []byte(`{"rows":[{"name":"a","row":{"cells":"a"},"topRow":{"cells":["a (default)"]}}]}`)))
	if !slices.ContainsFunc(x.Warnings, func(w string) bool {
		return strings.Contains(w, "ranked-rows/storage.k8s.io.storageclasses.json: ranked rows: row 0 (a): row: cells must be a JSON array; the tables of storageclasses.storage.k8s.io are served as stored")
	}) {
		t.Errorf("warnings: %q", x.Warnings)
	}
	srv := newHandlerServer(t, x)
	if got := firstCells(t, get(t, srv, "/apis/storage.k8s.io/v1/storageclasses?labelSelector=tier%3Dsilver", tableAccept)); !slices.Equal(got, []string{"c", "plain"}) {
		t.Errorf("list: %q", got)
	}
}

// A row of an object the bundle does not hold is left out, and reported.
func TestRankedRowsOfMissingObjects(t *testing.T) {
	r := &contract.RankedRows{Rows: []contract.RankedRow{
		{Name: "gone", Row: contract.RowCells{Cells: json.RawMessage(`["gone","p"]`)}, TopRow: contract.RowCells{Cells: json.RawMessage(`["gone (default)","p"]`)}},
		{Name: "c", Row: contract.RowCells{Cells: json.RawMessage(`["c","p"]`)}, TopRow: contract.RowCells{Cells: json.RawMessage(`["c (default)","p"]`)}},
	}}
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	x := load(t, rankedBundle(t, data))
	if !slices.ContainsFunc(x.Warnings, func(w string) bool {
		return strings.HasSuffix(w, "storage.k8s.io.storageclasses.json: 1 of its 2 rows name no object of storageclasses.storage.k8s.io; they are left out")
	}) {
		t.Errorf("warnings: %q", x.Warnings)
	}
	srv := newHandlerServer(t, x)
	if got := firstCells(t, get(t, srv, "/apis/storage.k8s.io/v1/storageclasses", tableAccept)); !slices.Equal(got, []string{"a (default)", "b", "c (default)", "plain"}) {
		t.Errorf("list: %q", got)
	}
}
