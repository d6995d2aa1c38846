package transform_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/transform"
)

// TestGoldenTables guards the tables of the example bundle, which holds a
// kind of every group troubleshoot collects in every hard state (pods in
// CrashLoopBackOff with restarts, Init:1/2, Terminating and sidecars,
// events with series, jobs with durations, a CRD with a column of every
// type): any change to a cell shows in the diff. The conformance gate
// proves such tables against a live server; this keeps them from drifting.
// They are the pinned release's (the bundle's own 1.35 is TestMinorTables'
// business).
func TestGoldenTables(t *testing.T) {
	out := filepath.Join(t.TempDir(), "example.tar")
	upgrade(t, exampleBundle, out, transform.Options{KubeVersion: contract.PinnedVersion})
	got := renderTables(t, out)
	golden := filepath.Join("testdata", "golden", "example-bundle.txt")
	if testenv.Update() {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("tables differ from %s (-want +got):\n%s", golden, diff)
	}
}

// renderTables prints every table of a bundle as text: its path, its
// columns (name, type, format, priority) and one JSON line of cells (and
// conditions) per row, in file order.
func renderTables(t *testing.T, bundle string) []byte {
	t.Helper()
	b, err := contract.Open(bundle, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]*metav1.Table{}
	err = b.Walk(func(e *contract.Entry) error {
		if e.Class.Class != contract.ClassTable {
			return nil
		}
		data, err := io.ReadAll(e.Reader())
		if err != nil {
			return err
		}
		var table metav1.Table
		if err := json.Unmarshal(data, &table); err != nil {
			return fmt.Errorf("%s: %w", e.Rel, err)
		}
		tables[e.Rel] = &table
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, 0, len(tables))
	for p := range tables {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	for _, p := range paths {
		table := tables[p]
		fmt.Fprintf(&buf, "== %s\n", p)
		var cols []string
		for _, c := range table.ColumnDefinitions {
			col := c.Name + ":" + c.Type
			if c.Format != "" {
				col += ":" + c.Format
			}
			if c.Priority != 0 {
				col += fmt.Sprintf(":p%d", c.Priority)
			}
			cols = append(cols, col)
		}
		fmt.Fprintf(&buf, "   %s\n", strings.Join(cols, " | "))
		for _, row := range table.Rows {
			fmt.Fprintf(&buf, "   %s", readableJSON(row.Cells))
			if len(row.Conditions) > 0 {
				fmt.Fprintf(&buf, " %s", readableJSON(row.Conditions))
			}
			buf.WriteString("\n")
		}
	}
	return buf.Bytes()
}

// readableJSON is compact JSON without the HTML escaping of <none>.
func readableJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err.Error()
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
