//go:build unix

package transform_test

import (
	"archive/tar"
	"crypto/sha256"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// lastCopies reads what extracting a bundle leaves: the last copy of
// each name (contract.Entry.Superseded), files and symlinks only (a
// folder output holds folders its archive never named).
func lastCopies(t *testing.T, path string) map[string]snapshot {
	t.Helper()
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]snapshot{}
	err = b.Walk(func(e *contract.Entry) error {
		if e.Superseded || !e.IsRegular() && e.Header.Typeflag != tar.TypeSymlink {
			return nil
		}
		data, err := io.ReadAll(e.Reader())
		typeflag := e.Header.Typeflag
		if e.IsRegular() {
			typeflag = tar.TypeReg
		}
		out[e.Rel] = snapshot{typeflag: typeflag, linkname: e.Header.Linkname, sum: sha256.Sum256(data)}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An input that holds a name more than once upgrades to a folder as it
// does to an archive: the folder holds the last copy, which is what
// extracting the archive output leaves, and both summaries say the same.
func TestUpgradeDuplicatesToBothOutputs(t *testing.T) {
	dir := t.TempDir()
	root := "support-bundle-2025-01-01T00_00_00/"
	in := contracttest.WriteTarGz(t, dir, "dup.tgz", []contracttest.File{
		{Name: root + "cluster-info/cluster_version.json", Body: `{"info":{"gitVersion":"v1.31.4"}}`},
		{Name: root + "cluster-resources/nodes.json", Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"}}]}`},
		{Name: root + "cluster-resources/nodes.json", Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n2"}}]}`},
		{Name: root + "notes.txt", Typeflag: tar.TypeSymlink, Linkname: "cluster-resources/nodes.json"},
		{Name: root + "notes.txt", Body: "a file after a symlink of its name"},
		{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[]}`},
		{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p","namespace":"default"}}]}`},
	})
	sums := map[string]*transform.Summary{}
	for _, name := range []string{"out.tgz", "out"} {
		sums[name] = upgrade(t, in, filepath.Join(dir, name), transform.Options{})
	}
	archive, folder := lastCopies(t, filepath.Join(dir, "out.tgz")), lastCopies(t, filepath.Join(dir, "out"))
	if !maps.Equal(archive, folder) {
		t.Errorf("the folder holds\n%v\nextracting the archive leaves\n%v", folder, archive)
	}
	if archive["cluster-resources/nodes.json"] != folder["cluster-resources/nodes.json"] || len(archive) < 6 {
		t.Errorf("entries: %v", archive)
	}
	a, f := sums["out.tgz"], sums["out"]
	if !reflect.DeepEqual(a.Problems, f.Problems) || !maps.Equal(a.TablesSynthesized, f.TablesSynthesized) || a.EntriesCopied != f.EntriesCopied {
		t.Errorf("summaries differ:\narchive %+v %v %d\nfolder  %+v %v %d", a.Problems, a.TablesSynthesized, a.EntriesCopied, f.Problems, f.TablesSynthesized, f.EntriesCopied)
	}
	if len(a.Problems) != 2 {
		t.Errorf("problems: %+v, want the two duplicated lists", a.Problems)
	}
}

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
