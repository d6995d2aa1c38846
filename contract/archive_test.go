package contract_test

import (
	"archive/tar"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

const podList = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a","namespace":"default"}}]}`

func walkAll(b *contract.Bundle) (map[string]contract.Classification, error) {
	got := map[string]contract.Classification{}
	err := b.Walk(func(e *contract.Entry) error {
		if e.InRoot {
			got[e.Rel] = e.Class
		}
		if e.IsRegular() {
			_, err := e.ReadAll()
			return err
		}
		return nil
	})
	return got, err
}

func TestOpenFindsRoot(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		files []contracttest.File
		root  string
	}{
		{"version.yaml", []contracttest.File{
			{Name: "support-bundle-2024-01-02T03_04_05/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
			{Name: "support-bundle-2024-01-02T03_04_05/cluster-resources/pods/default.json", Body: podList},
		}, "support-bundle-2024-01-02T03_04_05"},
		{"no top folder (before v0.9.48)", []contracttest.File{
			{Name: "version.yaml", Body: "spec: {}\n"},
			{Name: "cluster-resources/pods/default.json", Body: podList},
		}, ""},
		{"shallowest cluster-resources wins over a collector's copy", []contracttest.File{
			{Name: "b/copy-from-host/x/cluster-resources/pods/default.json", Body: podList},
			{Name: "b/cluster-resources/pods/default.json", Body: podList},
		}, "b"},
		{"./ prefix", []contracttest.File{
			{Name: "./sb/cluster-resources/nodes.json", Body: `{"items":[]}`},
		}, "sb"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := contracttest.WriteTarGz(t, dir, filepath.Base(t.Name())+string(rune('a'+i))+".tgz", c.files)
			b, err := contract.Open(p, contract.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if b.Root != c.root {
				t.Errorf("root = %q, want %q", b.Root, c.root)
			}
			if _, err := walkAll(b); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestOpenPlainTarAndStdin(t *testing.T) {
	files := []contracttest.File{{Name: "sb/cluster-resources/pods/default.json", Body: podList}}
	p := filepath.Join(t.TempDir(), "bundle.tar")
	if err := os.WriteFile(p, contracttest.Tar(t, files), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if b.Format != contract.FormatTar {
		t.Errorf("format = %v", b.Format)
	}
	got, err := walkAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if c := got["cluster-resources/pods/default.json"]; c.Class != contract.ClassResourceList || c.Key.Namespace != "default" {
		t.Errorf("classified as %+v", c)
	}

	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sb, err := contract.OpenReader("-", f, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if sb.Entries != 1 || sb.Root != "sb" {
		t.Errorf("stdin bundle: %d entries, root %q", sb.Entries, sb.Root)
	}
	if err := sb.Close(); err != nil {
		t.Errorf("removing the stdin spool: %v", err)
	}
}

// Every hostile archive is refused before anything trusts it, and the
// error names the entry.
func TestHostileArchives(t *testing.T) {
	dir := t.TempDir()
	good := contracttest.File{Name: "sb/cluster-resources/pods/default.json", Body: podList}
	cases := []struct {
		name   string
		files  []contracttest.File
		limits contract.Limits
		entry  string
		msg    string
	}{
		{"absolute path", []contracttest.File{good, {Name: "/etc/cron.d/x", Body: "x"}}, contract.DefaultLimits, "/etc/cron.d/x", "absolute path"},
		{"dot-dot", []contracttest.File{good, {Name: "sb/../../x", Body: "x"}}, contract.DefaultLimits, "sb/../../x", ".."},
		{"symlink leaving", []contracttest.File{good, {Name: "sb/l", Typeflag: tar.TypeSymlink, Linkname: "../../etc/passwd"}}, contract.DefaultLimits, "sb/l", "leaves the bundle"},
		{"absolute symlink", []contracttest.File{good, {Name: "sb/l", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}}, contract.DefaultLimits, "sb/l", "absolute"},
		{"hard link leaving", []contracttest.File{good, {Name: "sb/h", Typeflag: tar.TypeLink, Linkname: "../x"}}, contract.DefaultLimits, "sb/h", "leaves the bundle"},
		{"device", []contracttest.File{good, {Name: "sb/dev", Typeflag: tar.TypeChar}}, contract.DefaultLimits, "sb/dev", "not allowed"},
		// Each link stays inside on its own; through the first, the
		// second leaves.
		{"entry under a link", []contracttest.File{good, {Name: "sb/a/up", Typeflag: tar.TypeSymlink, Linkname: "../.."},
			{Name: "sb/a/up/out", Typeflag: tar.TypeSymlink, Linkname: "../x"}}, contract.DefaultLimits, "sb/a/up/out", `its folder "sb/a/up" is a link`},
		{"link through a link", []contracttest.File{good, {Name: "sb/a/up", Typeflag: tar.TypeSymlink, Linkname: "../.."},
			{Name: "sb/a/l", Typeflag: tar.TypeSymlink, Linkname: "up/../x"}}, contract.DefaultLimits, "sb/a/l", `goes through the link "sb/a/up"`},
		{"hard link through a link", []contracttest.File{good, {Name: "sb/a/up", Typeflag: tar.TypeSymlink, Linkname: "../.."},
			{Name: "sb/h", Typeflag: tar.TypeLink, Linkname: "sb/a/up/sb/cluster-resources/pods/default.json"}}, contract.DefaultLimits, "sb/h", "goes through the link"},
		{"entry over the size limit", []contracttest.File{good, {Name: "sb/big.json", Body: strings.Repeat(" ", 4096)}},
			contract.Limits{MaxEntrySize: 1024, MaxTotalSize: 1 << 30, MaxDecodeSize: 1 << 20}, "sb/big.json", "limit"},
		{"total over the limit", []contracttest.File{good, {Name: "sb/a", Body: strings.Repeat("a", 600)}, {Name: "sb/b", Body: strings.Repeat("b", 600)}},
			contract.Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 1000, MaxDecodeSize: 1 << 20}, "sb/b", "exceeds"},
		{"non-UTF-8 name", []contracttest.File{good, {Name: "sb/\xff\xfe.json", Body: "{}"}}, contract.DefaultLimits, "sb/\xff\xfe.json", "UTF-8"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := contracttest.WriteTarGz(t, dir, string(rune('a'+i))+".tgz", c.files)
			_, err := contract.Open(p, c.limits)
			assertEntryError(t, err, c.entry, c.msg)
		})
	}
}

func assertEntryError(t *testing.T, err error, entry, msg string) {
	t.Helper()
	var ee *contract.EntryError
	if !errors.As(err, &ee) {
		t.Fatalf("error %v is not an EntryError", err)
	}
	if ee.Entry != entry {
		t.Errorf("error names entry %q, want %q (%v)", ee.Entry, entry, err)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not say %q", err, msg)
	}
}

func TestCorruptArchives(t *testing.T) {
	dir := t.TempDir()
	files := []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/nodes.json", Body: strings.Repeat(`{"items":[]}`, 2000)},
	}
	tgz := contracttest.Gzip(t, contracttest.Tar(t, files))
	raw := contracttest.Tar(t, files)
	corruptHeader := append([]byte(nil), raw...)
	copy(corruptHeader[148:156], "garbage!") // the header checksum field
	cases := []struct {
		name string
		data []byte
		msg  string
	}{
		{"truncated gzip", tgz[:len(tgz)/2], "truncated"},
		{"gzip with a bad checksum", append(append([]byte(nil), tgz[:len(tgz)-8]...), 1, 2, 3, 4, 5, 6, 7, 8), "gzip"},
		{"truncated tar", raw[:600], "truncated"}, // inside the first entry's content
		{"corrupt tar header", corruptHeader, "archive"},
		{"not an archive", []byte("hello, I am a text file and not a bundle at all; ..................................."), "not a tar"},
		{"empty file", nil, "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			if err := os.WriteFile(p, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := contract.Open(p, contract.DefaultLimits)
			if err == nil {
				t.Fatal("opened a corrupt archive")
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q should name %s and say %q", err, p, c.msg)
			}
		})
	}
}

func TestDuplicatesAreReportedAndKept(t *testing.T) {
	p := contracttest.WriteTarGz(t, t.TempDir(), "dup.tgz", []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
	})
	b, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Duplicates) != 1 {
		t.Errorf("duplicates = %v", b.Duplicates)
	}
	n := 0
	var superseded []bool
	if err := b.Walk(func(e *contract.Entry) error { n++; superseded = append(superseded, e.Superseded); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("walk delivered %d entries, want both copies", n)
	}
	// An extracting reader keeps the last copy.
	if len(superseded) != 2 || !superseded[0] || superseded[1] {
		t.Errorf("superseded = %v, want the first copy only", superseded)
	}
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Resources) != 1 || rep.Resources[0].Objects != 1 || len(rep.Problems) != 1 {
		t.Errorf("inspect counts %+v, problems %+v; want the last copy's one pod and one problem", rep.Resources, rep.Problems)
	}
}

func TestFolderSymlinks(t *testing.T) {
	root := t.TempDir()
	sb := filepath.Join(root, "sb")
	if err := os.MkdirAll(filepath.Join(sb, "cluster-resources", "custom-resources", "x.example.com"), 0o755); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(sb, "cluster-resources", "custom-resources", "x.example.com", "default.json")
	if err := os.WriteFile(list, []byte(`[{"apiVersion":"example.com/v1","kind":"X","metadata":{"name":"a"}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	// troubleshoot v0.133+ writes the YAML twin as a relative symlink.
	if err := os.Symlink("default.json", strings.TrimSuffix(list, ".json")+".yaml"); err != nil {
		t.Fatal(err)
	}
	b, err := contract.Open(sb, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	var link *contract.Entry
	err = b.Walk(func(e *contract.Entry) error {
		if e.Header.Typeflag == tar.TypeSymlink {
			c := *e
			link = &c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if link == nil || link.LinkRel != "cluster-resources/custom-resources/x.example.com/default.json" {
		t.Fatalf("symlink resolved to %+v", link)
	}

	if err := os.Symlink("../../../../../etc/passwd", filepath.Join(sb, "cluster-resources", "evil.json")); err != nil {
		t.Fatal(err)
	}
	_, err = contract.Open(sb, contract.DefaultLimits)
	assertEntryError(t, err, "cluster-resources/evil.json", "leaves the bundle")
}

func TestReadAllLimit(t *testing.T) {
	p := contracttest.WriteTarGz(t, t.TempDir(), "b.tgz", []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
	})
	b, err := contract.Open(p, contract.Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 1 << 20, MaxDecodeSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Walk(func(e *contract.Entry) error {
		_, err := e.ReadAll()
		return err
	})
	assertEntryError(t, err, "sb/cluster-resources/pods/default.json", "decode limit")
}
