package transform

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// The converted lists are made from the lists the stream kept, without
// reading the bundle again, and are the same when nothing could be kept
// (no temporary folder) and the bundle is read again instead.
func TestConvertedListsFromTheSpool(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, contracttest.BundleRoot(contracttest.GeneratedAt)+".tar.gz")
	spec := contracttest.Large()
	spec.Pods, spec.Events = 200, 300
	if _, err := contracttest.WriteBundleFile(in, spec); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{in, filepath.Join("..", "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")} {
		run := func(tmp, out string) (*Summary, []byte) {
			t.Setenv("TMPDIR", tmp)
			sum, err := Upgrade(context.Background(), Options{Source: src, Dest: out, Force: true,
				CollectedAt: time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			return sum, data
		}
		sum, spooled := run(t.TempDir(), filepath.Join(dir, "spooled.tar.gz"))
		if sum.convertedFrom != "spool" || len(sum.ListsConverted) == 0 {
			t.Errorf("%s: converted %v from %q, want from the spool", src, sum.ListsConverted, sum.convertedFrom)
		}
		sum, read := run(filepath.Join(dir, "no-such-folder"), filepath.Join(dir, "read.tar.gz"))
		if sum.convertedFrom != "bundle" {
			t.Errorf("%s: converted from %q without a temporary folder, want from the bundle", src, sum.convertedFrom)
		}
		if !bytes.Equal(spooled, read) {
			t.Errorf("%s: the upgrade differs when the lists are read from the bundle again", src)
		}
	}
}
