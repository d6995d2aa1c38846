package diff_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform/diff"
)

// exampleCopy copies the example bundle the repository ships into a new
// folder and returns its path.
func exampleCopy(t *testing.T) string {
	t.Helper()
	src := filepath.Join(contracttest.RepoRoot(t), "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	dest := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dest, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dest
}

// A list one side could not read, or a resource it did not collect, does
// not make the other side's objects added or removed: they are counted
// as not compared, and the unreadable file is a warning naming it.
func TestObjectsOneSideDoesNotTell(t *testing.T) {
	a, b := exampleCopy(t), exampleCopy(t)
	pods := filepath.Join("cluster-resources", "pods", "shop.json")
	if err := os.WriteFile(filepath.Join(b, pods), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(b, "cluster-resources", "clusterroles.json")); err != nil {
		t.Fatal(err)
	}
	rep := run(t, diff.Options{A: a, B: b, Log: io.Discard})
	if !rep.Equal || len(rep.Objects) != 0 {
		t.Errorf("changes %v, want none", changes(rep))
	}
	var got []string
	for _, n := range rep.NotCompared {
		got = append(got, n.Side+" "+n.Resource+": "+n.Why)
		if n.Objects == 0 {
			t.Errorf("%+v counts no object", n)
		}
	}
	want := []string{"B clusterroles.rbac.authorization.k8s.io: not collected", "B pods: cluster-resources/pods/shop.json could not be read"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("not compared (-want +got):\n%s", d)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], pods+": ") {
		t.Errorf("warnings %q, want one naming %s", rep.Warnings, pods)
	}
}

// Past the sorters' budget, the records the passes hand each other are
// written to the temporary file as sorted runs and merged back: the
// report is the same as with every record in memory.
func TestRunBudget(t *testing.T) {
	a, b := hourLater(t, 60)
	o := diff.Options{A: a, B: b, Log: io.Discard}
	want := run(t, o)
	if len(want.Objects) < 50 {
		t.Fatalf("%d changes: the test needs many", len(want.Objects))
	}
	for _, budget := range []int{20000, 1} {
		got := run(t, diff.WithRunBudget(o, budget))
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("with a budget of %d bytes (-want +got):\n%s", budget, d)
		}
	}
}
