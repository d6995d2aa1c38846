//go:build unix

package transform_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/internal/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// The upgraded bundle is never readable by more people than the input:
// a 0600 input under umask 077 gives a 0600 archive and a 0700 folder.
func TestUpgradeOutputMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	in := contracttest.WriteTarGz(t, dir, "support-bundle-2025-01-01T00_00_00.tgz", []contracttest.File{
		{Name: "support-bundle-2025-01-01T00_00_00/cluster-resources/nodes.json", Body: `{"kind":"NodeList","apiVersion":"v1","items":[]}`},
	})
	if err := os.Chmod(in, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"new.tgz": 0o600, "new.tar": 0o600, "new": 0o700} {
		out := filepath.Join(dir, name)
		upgrade(t, in, out, transform.Options{})
		if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want %v", name, fi.Mode(), err, want)
		}
	}
}
