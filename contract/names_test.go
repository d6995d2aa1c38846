package contract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// A backslash is a character of a name, as GNU tar extracts it: the
// entry "cluster-resources\pods\default.json" is a file of that name at
// the top of the bundle, never the list at cluster-resources/pods, which
// stays the one read; the first pass says so.
func TestBackslashNameIsAName(t *testing.T) {
	const evil = `sb\cluster-resources\pods\default.json`
	p := contracttest.WriteTarGz(t, t.TempDir(), "backslash.tgz", []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/" + `cluster-resources\pods\default.json`, Body: emptyPods},
		{Name: evil, Body: emptyPods},
	})
	b, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.Duplicates) > 0 || b.Root != "sb" {
		t.Errorf("duplicates %v, root %q: the names are distinct", b.Duplicates, b.Root)
	}
	got := map[string]contract.Class{}
	var read []string
	err = b.Walk(func(e *contract.Entry) error {
		got[e.Name] = e.Class.Class
		if b.IsListOfRecord(e) {
			data, err := e.ReadAll()
			read = append(read, e.Rel+" "+string(data))
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 1 || read[0] != "cluster-resources/pods/default.json "+podList {
		t.Errorf("lists read %q, want the real one only", read)
	}
	if c, ok := got["sb/"+`cluster-resources\pods\default.json`]; !ok || c != contract.ClassOther {
		t.Errorf("the backslash entry: %v (%v), want a file of its own of no class", c, ok)
	}
	if _, ok := got[evil]; !ok {
		t.Errorf("the top-level backslash entry is missing: %v", got)
	}
	if len(b.Warnings) != 2 || !strings.Contains(b.Warnings[0].Message, "backslash") {
		t.Errorf("warnings %v, want one for each backslash name", b.Warnings)
	}
}

// A folder's file whose name is not UTF-8 is refused when the folder is
// opened, naming it, as an archive's is: never read, then refused in the
// archive the upgrade writes.
func TestFolderNameNotUTF8(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "cluster-resources", "pods", "\xff\xfe.json")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(podList), 0o644); err != nil {
		t.Skipf("this file system takes no such name: %v", err)
	}
	_, err := contract.Open(dir, contract.DefaultLimits)
	assertEntryError(t, err, "cluster-resources/pods/\xff\xfe.json", "not valid UTF-8")
}

// Of two bundle roots side by side, the one read is the first in the
// archive (troubleshoot descends into the first folder), whatever their
// names' order, and every other is named in a warning.
func TestSeveralRoots(t *testing.T) {
	root := func(name string) []contracttest.File {
		return []contracttest.File{
			{Name: name + "/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
			{Name: name + "/cluster-resources/pods/default.json", Body: podList},
			// A collector's copy inside a root is part of it, not a root.
			{Name: name + "/copy/cluster-resources/nodes.json", Body: `{"items":[]}`},
		}
	}
	files := append(append(root("support-bundle-2025-11-20T10_00_00"), root("support-bundle-2025-11-19T10_00_00")...),
		contracttest.File{Name: "z/cluster-resources/pods/default.json", Body: podList})
	b, err := contract.Open(contracttest.WriteTarGz(t, t.TempDir(), "two.tgz", files), contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Root != "support-bundle-2025-11-20T10_00_00" {
		t.Errorf("root %q, want the first in the archive", b.Root)
	}
	var named []string
	for _, w := range b.Warnings {
		if !strings.Contains(w.Message, `another bundle root, not read: one bundle is read, "support-bundle-2025-11-20T10_00_00"`) {
			t.Errorf("warning %v", w)
		}
		named = append(named, w.Path)
	}
	if strings.Join(named, " ") != "support-bundle-2025-11-19T10_00_00 z" {
		t.Errorf("warnings name %q, want the other two roots", named)
	}
}
