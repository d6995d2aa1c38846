package contract_test

import (
	"archive/tar"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// Each rule of the lists of record, on one archive: every entry says
// whether it is one.
func TestIsListOfRecord(t *testing.T) {
	const root = "support-bundle-2025-11-20T10_00_00/"
	list := `{"kind":"PodList","items":[]}`
	cases := []struct {
		file contracttest.File
		want bool
		rule string
	}{
		{contracttest.File{Name: root + "version.yaml", Body: "kind: SupportBundle\n"}, false, "not a list"},
		{contracttest.File{Name: root + "cluster-resources/pods/default.json", Body: list}, true, "a list"},
		{contracttest.File{Name: "elsewhere/cluster-resources/pods/default.json", Body: list}, false, "outside the root"},
		{contracttest.File{Name: root + "cluster-resources/pods/default.table.json", Body: `{"kind":"Table"}`}, false, "a table"},
		{contracttest.File{Name: root + "cluster-resources/nodes", Typeflag: tar.TypeDir, Mode: 0o755}, false, "a folder"},
		{contracttest.File{Name: root + "cluster-resources/pods/linked.json", Typeflag: tar.TypeSymlink, Linkname: "default.json"}, true, "a link, read as the list it names"},
		{contracttest.File{Name: root + "cluster-resources/pods/dangling.json", Typeflag: tar.TypeSymlink, Linkname: "missing.json"}, false, "a link to no file"},
		{contracttest.File{Name: root + "cluster-resources/pods/twice.json", Body: list}, false, "superseded"},
		{contracttest.File{Name: root + "cluster-resources/pods/twice.json", Body: list}, true, "the last copy"},
		{contracttest.File{Name: root + "cluster-resources/custom-resources/widgets.example.com/a.yaml", Body: "[]\n"}, false, "YAML with a JSON twin"},
		{contracttest.File{Name: root + "cluster-resources/custom-resources/widgets.example.com/a.json", Body: "[]"}, true, "the JSON twin"},
		{contracttest.File{Name: root + "cluster-resources/custom-resources/widgets.example.com/b.yaml", Body: "[]\n"}, true, "YAML alone"},
	}
	var files []contracttest.File
	for _, c := range cases {
		files = append(files, c.file)
	}
	b, err := contract.Open(contracttest.WriteTarGz(t, t.TempDir(), "bundle.tar.gz", files), contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	i := 0
	err = b.Walk(func(e *contract.Entry) error {
		c := cases[i]
		i++
		if got := b.IsListOfRecord(e); got != c.want {
			t.Errorf("%s (%s): IsListOfRecord = %v, want %v", e.Name, c.rule, got, c.want)
		}
		return nil
	})
	if err != nil || i != len(cases) {
		t.Fatalf("walked %d of %d entries: %v", i, len(cases), err)
	}
}

// An entry over the decode limit is a problem of its own; a truncated
// archive is not, it ends the walk.
func TestLocalError(t *testing.T) {
	dir := t.TempDir()
	const name = "sb/cluster-resources/pods/default.json"
	big := `{"items":[` + strings.Repeat(" ", 2000) + `]}`
	path := contracttest.WriteTarGz(t, dir, "bundle.tar.gz", []contracttest.File{{Name: name, Body: big}})
	b, err := contract.Open(path, contract.Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 1 << 20, MaxDecodeSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.Walk(func(e *contract.Entry) error {
		_, err := e.ReadAll()
		if local := e.LocalError(err); local == nil || !strings.Contains(local.Error(), "decode limit") {
			t.Errorf("LocalError(%v) = %v, want the decode limit", err, local)
		}
		truncated := &contract.EntryError{Bundle: filepath.Base(path), Entry: e.Name, Err: fmt.Errorf("truncated archive")}
		if local := e.LocalError(truncated); local != nil {
			t.Errorf("LocalError(%v) = %v, want nil", truncated, local)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
