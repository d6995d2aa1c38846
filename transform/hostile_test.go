package transform_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/contracttest"
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
