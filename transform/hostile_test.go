package transform_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// A list of another kind than its path says gets no table (it would be
// the wrong table) and is not in discovery; its raw entry is copied.
func TestUpgradeWrongKinds(t *testing.T) {
	dir := t.TempDir()
	root := "support-bundle-2025-01-01T00_00_00/"
	p := contracttest.WriteTarGz(t, dir, "old.tgz", []contracttest.File{
		{Name: root + "cluster-info/cluster_version.json", Body: `{"info":{"gitVersion":"v1.35.4"}}`},
		{Name: root + "cluster-resources/nodes.json", Body: `{"kind":"DeploymentList","apiVersion":"apps/v1","items":[{"metadata":{"name":"d","namespace":"default"}}]}`},
		{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a","namespace":"default"}},{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"default"}}]}`},
		{Name: root + "cluster-resources/pods/other.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"b","namespace":"other"}}]}`},
	})
	out := filepath.Join(dir, "new.tgz")
	sum := upgrade(t, p, out, transform.Options{})
	got := map[string]string{}
	for _, pr := range sum.Problems {
		got[pr.Path] = pr.Message
	}
	for path, want := range map[string]string{
		"cluster-resources/nodes.json":        "the list is a DeploymentList, but its path holds Node objects",
		"cluster-resources/pods/default.json": "item 1 is a Secret, but its path holds Pod objects",
	} {
		if !strings.Contains(got[path], want) {
			t.Errorf("%s: problem %q, want %q", path, got[path], want)
		}
	}
	if len(sum.Problems) != 2 || sum.TablesSynthesized["pods"] != 1 {
		t.Errorf("problems %+v, tables %v", sum.Problems, sum.TablesSynthesized)
	}
	b, after := readBundle(t, out)
	_, before := readBundle(t, p)
	for name, s := range before {
		if after[name] != s {
			t.Errorf("%s was not copied unchanged", name)
		}
	}
	for _, rel := range []string{"cluster-resources/nodes.table.json", "cluster-resources/pods/default.table.json"} {
		if b.Names[rel] {
			t.Errorf("%s was made", rel)
		}
	}
	d, err := b.Discovery()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Resources["apps/v1"] {
		if r.Name == "nodes" {
			t.Errorf("discovery serves nodes in apps/v1: %+v", r)
		}
	}
	if r, ok := d.Resource("v1", "nodes"); ok && r.Kind != "Node" {
		t.Errorf("discovery: v1 nodes are %s", r.Kind)
	}
}

// nestedA is {"a":{"a":...{"a":"x"}}}, depth levels deep, as JSON.
func nestedA(depth int) string {
	return strings.Repeat(`{"a":`, depth) + `"x"` + strings.Repeat(`}`, depth)
}

// A CRD printer column with recursive descents on an object nested deep
// would keep client-go's JSONPath busy for minutes, unstoppable: that
// cell is left empty and reported; the object's other cells and the
// other objects' cells are the convertor's.
func TestUpgradeCostlyPrinterColumn(t *testing.T) {
	dir := t.TempDir()
	root := "support-bundle-2025-01-01T00_00_00/"
	crd := `{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[{"metadata":{"name":"widgets.example.com"},` +
		`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},` +
		`"additionalPrinterColumns":[{"name":"Deep","type":"string","jsonPath":".spec..a..a..a"},{"name":"Color","type":"string","jsonPath":".spec.color"}]}]},` +
		`"status":{"conditions":[{"type":"Established","status":"True"}]}}]}`
	var items []string
	for _, w := range []struct {
		name  string
		depth int
	}{{"deep", 300}, {"shallow", 3}, {"deeper", 400}} {
		items = append(items, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"`+w.name+`","namespace":"default","creationTimestamp":"2025-01-01T00:00:00Z"},"spec":{"color":"blue","a":`+nestedA(w.depth)+`}}`)
	}
	p := contracttest.WriteTarGz(t, dir, "old.tgz", []contracttest.File{
		{Name: root + "cluster-info/cluster_version.json", Body: `{"info":{"gitVersion":"v1.37.1"}}`},
		{Name: root + "cluster-resources/custom-resource-definitions.json", Body: crd},
		{Name: root + "cluster-resources/custom-resources/widgets.example.com/default.json", Body: "[" + strings.Join(items, ",") + "]"},
	})
	out := filepath.Join(dir, "new")
	sum := upgrade(t, p, out, transform.Options{})
	var reported []string
	for _, pr := range sum.Problems {
		if pr.Path == "cluster-resources/custom-resources/widgets.example.com/default.json" && strings.Contains(pr.Message, `printer column "Deep" (jsonPath .spec..a..a..a)`) {
			reported = append(reported, pr.Message)
		}
	}
	if len(reported) != 2 || !strings.Contains(strings.Join(reported, "\n"), "default/deeper") {
		t.Errorf("reported %q; problems %+v", reported, sum.Problems)
	}
	data, err := os.ReadFile(filepath.Join(out, root, "cluster-resources/custom-resources/widgets.example.com/default.table.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	got := map[string][]any{}
	for _, r := range table.Rows {
		got[r.Cells[0].(string)] = r.Cells[1:]
	}
	// What client-go's JSONPath prints for the shallow one: the first
	// value that three descents to an "a" reach.
	want := map[string][]any{"deep": {nil, "blue"}, "deeper": {nil, "blue"}, "shallow": {`{"a":"x"}`, "blue"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}
