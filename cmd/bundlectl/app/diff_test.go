package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// diff's exit status is diff(1)'s: 0 when the bundles are the same, 1 when
// they differ, 2 on any error, cobra's own (flags, arguments) included.
func TestDiffExitStatus(t *testing.T) {
	root := contracttest.RepoRoot(t)
	example := filepath.Join(root, "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	// The example bundle whose StorageClasses were deleted.
	fewer := filepath.Join(t.TempDir(), filepath.Base(example))
	if err := os.CopyFS(fewer, os.DirFS(example)); err != nil {
		t.Fatal(err)
	}
	none := `{"kind":"StorageClassList","apiVersion":"storage.k8s.io/v1","items":[]}`
	if err := os.WriteFile(filepath.Join(fewer, "cluster-resources", "storage-classes.json"), []byte(none), 0o644); err != nil {
		t.Fatal(err)
	}
	// The example bundle with a list that is not JSON.
	broken := filepath.Join(t.TempDir(), filepath.Base(example))
	if err := os.CopyFS(broken, os.DirFS(example)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "cluster-resources", "pods", "shop.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{example, example}, 0, "No differences.", ""},
		{[]string{example, fewer}, 1, "storageclasses.storage.k8s.io   0       3 ", ""},
		{[]string{"--kind", "pods", example, fewer}, 0, "No differences.", ""},
		{[]string{example, broken}, 2, "pods of A not compared: cluster-resources/pods/shop.json could not be read in B", "cluster-resources/pods/shop.json: invalid JSON"},
		{[]string{example, "missing"}, 2, "", "bundlectl: opening bundle: stat missing: no such file or directory"},
		{[]string{"--no-such-flag", example, fewer}, 2, "", "unknown flag: --no-such-flag"},
		{[]string{example}, 2, "", "accepts 2 arg(s), received 1"},
		{[]string{"-o", "yaml", example, fewer}, 2, "", `unknown output format "yaml"`},
	} {
		var out, errOut strings.Builder
		code := app.Main(append([]string{"diff"}, tc.args...), app.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderr) {
			t.Errorf("bundlectl diff %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(tc.args, " "), code, tc.code, out.String(), errOut.String())
		}
	}
}
