package transform_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform"
)

var storageClassesGR = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}

// storageClass is a StorageClass item as troubleshoot stores it.
func storageClass(name, created string, isDefault bool) json.RawMessage {
	meta := map[string]any{"name": name, "uid": "u-" + name, "resourceVersion": "1", "creationTimestamp": created}
	if isDefault {
		meta["annotations"] = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	}
	data, _ := json.Marshal(map[string]any{"metadata": meta, "provisioner": "example.com/" + name, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"})
	return data
}

// storageClassBundle writes a legacy bundle of a cluster of minor with
// three StorageClasses annotated default (two created in the same second)
// and one that is not.
func storageClassBundle(t *testing.T, minor string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "support-bundle-2025-11-20T10_00_00")
	items := []json.RawMessage{
		storageClass("plain", "2025-06-01T00:00:00Z", false),
		storageClass("old", "2024-01-01T00:00:00Z", true),
		storageClass("beta", "2025-03-01T00:00:00Z", true),
		storageClass("alpha", "2025-03-01T00:00:00Z", true),
	}
	list, _ := json.Marshal(map[string]any{"kind": "StorageClassList", "apiVersion": "storage.k8s.io/v1", "metadata": map[string]any{"resourceVersion": "9"}, "items": items})
	writeFiles(t, dir, map[string]string{
		"cluster-info/cluster_version.json":      `{"info":{"major":"1","minor":"` + minor + `","gitVersion":"v1.` + minor + `.1"},"string":"v1.` + minor + `.1"}`,
		"cluster-resources/storage-classes.json": string(list),
	})
	return dir
}

// rankedRowsOf reads a bundle's ranked rows of gr: nil when it has none.
func rankedRowsOf(t *testing.T, bundle string, gr schema.GroupResource) *contract.RankedRows {
	t.Helper()
	b, err := contract.Open(bundle, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out *contract.RankedRows
	err = b.Walk(func(e *contract.Entry) error {
		if e.Rel != contract.RankedRowsPath(gr) {
			return nil
		}
		if e.Class.Class != contract.ClassRankedRows {
			t.Errorf("%s is classified %s", e.Rel, e.Class.Class)
		}
		data, err := e.ReadAll()
		if err == nil {
			out, err = contract.ParseRankedRows(data)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type rankedRow struct{ Name, Row, TopRow string }

// names is what the rows show in their NAME cells.
func names(t *testing.T, r *contract.RankedRows) []rankedRow {
	t.Helper()
	var out []rankedRow
	first := func(cells json.RawMessage) string {
		var c []any
		if err := json.Unmarshal(cells, &c); err != nil || len(c) == 0 {
			t.Fatalf("cells %s: %v", cells, err)
		}
		return c[0].(string)
	}
	for _, row := range r.Rows {
		out = append(out, rankedRow{row.Name, first(row.Row.Cells), first(row.TopRow.Cells)})
	}
	return out
}

// The upgrade of a 1.37 bundle finds, with the printers, the
// StorageClasses whose NAME a list marks only when they are the newest of
// the listed ones annotated default, ranks them (newest first, the first
// name of the same second first) and writes both rows of each; the one
// not annotated is left out. Upgrading the result again changes nothing.
func TestUpgradeRanksRowsThatDependOnTheList(t *testing.T) {
	out := filepath.Join(t.TempDir(), "upgraded.tar.gz")
	sum := upgrade(t, storageClassBundle(t, "37"), out, transform.Options{})
	if d := cmp.Diff([]string{"storageclasses.storage.k8s.io"}, sum.RankedRows); d != "" {
		t.Errorf("summary's ranked rows (-want +got):\n%s", d)
	}
	if len(sum.Problems) > 0 {
		t.Errorf("problems: %+v", sum.Problems)
	}
	r := rankedRowsOf(t, out, storageClassesGR)
	if r == nil {
		t.Fatal("no ranked rows")
	}
	want := []rankedRow{{"alpha", "alpha", "alpha (default)"}, {"beta", "beta", "beta (default)"}, {"old", "old", "old (default)"}}
	if d := cmp.Diff(want, names(t, r)); d != "" {
		t.Errorf("ranked rows (-want +got):\n%s", d)
	}
	// The rest of the cells are the table's: ages as of the collection.
	var table metav1.Table
	if err := json.Unmarshal(readEntry(t, out, "cluster-resources/storage-classes.table.json"), &table); err != nil {
		t.Fatal(err)
	}
	var oldCells []any
	if err := json.Unmarshal(r.Rows[2].Row.Cells, &oldCells); err != nil {
		t.Fatal(err)
	}
	for _, row := range table.Rows {
		if row.Cells[0] == "old" {
			if d := cmp.Diff(row.Cells[1:], oldCells[1:]); d != "" {
				t.Errorf("old's cells besides NAME differ from its table row's:\n%s", d)
			}
		}
	}
	upgradeAgainIsANoOp(t, out)
}

// Before 1.37 every annotated StorageClass is marked, alone and in any
// list: nothing depends on the list, and no file is written.
func TestUpgradeOfAnOlderMinorHasNoRankedRows(t *testing.T) {
	out := filepath.Join(t.TempDir(), "upgraded")
	sum := upgrade(t, storageClassBundle(t, "36"), out, transform.Options{})
	if sum.RankedRows != nil || rankedRowsOf(t, out, storageClassesGR) != nil {
		t.Errorf("ranked rows %v for 1.36", sum.RankedRows)
	}
	if _, err := os.Stat(filepath.Join(out, contract.MetaPath(), contract.RankedRowsDir)); !os.IsNotExist(err) {
		t.Errorf("the ranked rows folder: %v", err)
	}
}

// A bundle with its tables already (collected from a live server) is
// searched all the same: its ranked rows are made from its lists.
func TestUpgradeRanksRowsOfABundleWithTables(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	upgrade(t, storageClassBundle(t, "37"), first, transform.Options{})
	root := first
	if err := os.Remove(filepath.Join(root, contract.RankedRowsPath(storageClassesGR))); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again")
	sum := upgrade(t, first, again, transform.Options{})
	if sum.Tables() != 0 || len(sum.RankedRows) != 1 {
		t.Fatalf("%d tables made, ranked rows %v", sum.Tables(), sum.RankedRows)
	}
	if r := rankedRowsOf(t, again, storageClassesGR); r == nil || len(r.Rows) != 3 {
		t.Errorf("ranked rows: %+v", r)
	}
}

func readEntry(t *testing.T, bundle, rel string) []byte {
	t.Helper()
	b, err := contract.Open(bundle, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var data []byte
	err = b.Walk(func(e *contract.Entry) error {
		if e.Rel == rel {
			data, err = e.ReadAll()
			return err
		}
		return nil
	})
	if err != nil || data == nil {
		t.Fatalf("%s in %s: %v", rel, bundle, err)
	}
	return data
}

// Too many objects to rank is a problem, and no file: the tables are
// served as stored.
func TestUpgradeReportsRowsItCannotRank(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "support-bundle-2025-11-20T10_00_00")
	var items []json.RawMessage
	for i := range 1001 {
		items = append(items, storageClass(fmt.Sprintf("sc-%04d", i), "2025-03-01T00:00:00Z", true))
	}
	list, _ := json.Marshal(map[string]any{"kind": "StorageClassList", "apiVersion": "storage.k8s.io/v1", "metadata": map[string]any{"resourceVersion": "9"}, "items": items})
	writeFiles(t, dir, map[string]string{
		"cluster-info/cluster_version.json":      `{"info":{"major":"1","minor":"37","gitVersion":"v1.37.1"},"string":"v1.37.1"}`,
		"cluster-resources/storage-classes.json": string(list),
	})
	out := filepath.Join(t.TempDir(), "upgraded")
	sum := upgrade(t, dir, out, transform.Options{})
	want := contract.Problem{Path: contract.RankedRowsPath(storageClassesGR), Message: "storageclasses.storage.k8s.io: more than 1000 objects whose rows depend on the rest of the list, which are not ranked (a table of two per comparison); its tables are served as stored, with the same rows whatever a request selects"}
	if d := cmp.Diff([]contract.Problem{want}, sum.Problems); d != "" || sum.RankedRows != nil {
		t.Errorf("problems (-want +got):\n%s\nranked rows %v", d, sum.RankedRows)
	}
	if rankedRowsOf(t, out, storageClassesGR) != nil || sum.Tables() != 1 {
		t.Errorf("ranked rows written; %d tables", sum.Tables())
	}
}

// A list of a bundle with tables that cannot be printed is reported, and
// its table kept.
func TestUpgradeReportsListsItCannotSearch(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	upgrade(t, storageClassBundle(t, "37"), first, transform.Options{})
	if err := os.Remove(filepath.Join(first, contract.RankedRowsPath(storageClassesGR))); err != nil {
		t.Fatal(err)
	}
	bad := `{"kind":"StorageClassList","apiVersion":"storage.k8s.io/v1","metadata":{},"items":[{"metadata":{"name":"x"},"provisioner":5}]}`
	writeFiles(t, first, map[string]string{"cluster-resources/storage-classes.json": bad})
	sum := upgrade(t, first, filepath.Join(dir, "again"), transform.Options{})
	if len(sum.Problems) != 1 || sum.Problems[0].Path != "cluster-resources/storage-classes.json" ||
		!strings.HasPrefix(sum.Problems[0].Message, "not searched for rows that depend on the rest of the list: item 0 (x): ") {
		t.Errorf("problems: %+v", sum.Problems)
	}
	if sum.RankedRows != nil || sum.TablesKept != 1 {
		t.Errorf("ranked rows %v, %d tables kept", sum.RankedRows, sum.TablesKept)
	}
}
