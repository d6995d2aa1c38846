package contract_test

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

const (
	linkedRoot  = "support-bundle-2025-11-20T10_00_00"
	linkedNodes = `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"}}]}`
	emptyPods   = `{"kind":"PodList","apiVersion":"v1","items":[]}`
)

// linkedFiles is a bundle whose lists are stored as links, as tar and
// extracted folders hold them: a hard link for the second of two
// identical lists, a symlink to a file elsewhere in the root, a symlink
// to a symlink, an early-read file through a link, and a link to nothing.
func linkedFiles() []contracttest.File {
	r := linkedRoot + "/"
	return []contracttest.File{
		{Name: r + "version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
		{Name: r + "dedup/cluster_version.json", Body: `{"info":{"major":"1","minor":"31","gitVersion":"v1.31.2"}}`},
		{Name: r + "dedup/nodes.json", Body: linkedNodes},
		{Name: r + "cluster-info/cluster_version.json", Typeflag: tar.TypeSymlink, Linkname: "../dedup/cluster_version.json"},
		{Name: r + "cluster-resources/pods/a.json", Body: emptyPods},
		{Name: r + "cluster-resources/pods/b.json", Typeflag: tar.TypeLink, Linkname: r + "cluster-resources/pods/a.json"},
		{Name: r + "dedup/nodes-link.json", Typeflag: tar.TypeSymlink, Linkname: "nodes.json"},
		{Name: r + "cluster-resources/nodes.json", Typeflag: tar.TypeSymlink, Linkname: "../dedup/nodes-link.json"},
		{Name: r + "cluster-resources/services/gone.json", Typeflag: tar.TypeSymlink, Linkname: "missing.json"},
	}
}

// writeFolder writes files as an extracted folder under dir, links as
// links, and returns the folder of the root.
func writeFolder(t *testing.T, dir string, files []contracttest.File) string {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch f.Typeflag {
		case tar.TypeSymlink:
			err = os.Symlink(f.Linkname, p)
		case tar.TypeLink:
			err = os.Link(filepath.Join(dir, filepath.FromSlash(f.Linkname)), p)
		default:
			err = os.WriteFile(p, []byte(f.Body), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, linkedRoot)
}

// A list stored as a link reads as the file it names, in every form of
// bundle: extracting the archive gives that file at the link's path, so
// inspect, upgrade and serve (which all read the lists of record) see
// it; a link that names no file is reported, never silently empty.
func TestLinkedListsReadAsTheirFiles(t *testing.T) {
	dir := t.TempDir()
	archive := contracttest.WriteTarGz(t, dir, "linked.tar.gz", linkedFiles())
	folder := writeFolder(t, filepath.Join(dir, "extracted"), linkedFiles())
	for _, path := range []string{archive, folder} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := contract.Open(path, contract.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if !strings.Contains(string(b.ClusterVersion), "v1.31.2") {
				t.Errorf("cluster_version.json through its link: %q", b.ClusterVersion)
			}
			lists := map[string]string{}
			err = b.Walk(func(e *contract.Entry) error {
				if !b.IsListOfRecord(e) {
					return nil
				}
				data, err := e.ReadAll()
				lists[e.Rel] = string(data)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"cluster-resources/pods/a.json": emptyPods,
				"cluster-resources/pods/b.json": emptyPods,
				"cluster-resources/nodes.json":  linkedNodes,
			}
			for rel, body := range want {
				if lists[rel] != body {
					t.Errorf("%s reads %q, want %q", rel, lists[rel], body)
				}
			}
			if len(lists) != len(want) {
				t.Errorf("lists of record %v, want %d", lists, len(want))
			}
			rep, err := contract.Inspect(b)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string][2]int{}
			for _, r := range rep.Resources {
				counts[r.Resource] = [2]int{r.Lists, r.Objects}
			}
			if counts["nodes"] != [2]int{1, 1} || counts["pods"] != [2]int{2, 0} || len(counts) != 2 {
				t.Errorf("inspect counts %v lists and objects, want nodes 1 1 and pods 2 0", counts)
			}
			const gone = "cluster-resources/services/gone.json"
			if len(rep.Problems) != 1 || !strings.HasSuffix(rep.Problems[0].Path, gone) || !strings.Contains(rep.Problems[0].Message, "does not hold") {
				t.Errorf("problems %v, want one naming %s", rep.Problems, gone)
			}
		})
	}
}

// A folder bundle named through a symlink reads as the folder it names,
// its name's collection time included.
func TestSymlinkedFolderBundle(t *testing.T) {
	dir := t.TempDir()
	folder := writeFolder(t, filepath.Join(dir, "x"), []contracttest.File{
		{Name: linkedRoot + "/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
		{Name: linkedRoot + "/cluster-resources/pods/default.json", Body: podList},
	})
	link := filepath.Join(dir, "link-to-bundle")
	if err := os.Symlink(folder, link); err != nil {
		t.Fatal(err)
	}
	direct, err := contract.Open(folder, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	b, err := contract.Open(link, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if b.Entries != direct.Entries || b.Entries < 3 || b.Path != link {
		t.Errorf("through the link: %d entries named %s, directly %d", b.Entries, b.Path, direct.Entries)
	}
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Resources) != 1 || rep.Resources[0].Objects != 1 {
		t.Errorf("resources %+v, want the pod", rep.Resources)
	}
	if ct, err := b.CollectedAt(); err != nil || ct.CollectedAtSource != contract.TimeFromFolderName || ct.CollectedAt.Format("2006-01-02") != "2025-11-20" {
		t.Errorf("collected at %v (%v), want the folder's name's time", ct, err)
	}
}

// The pass that keeps what links name reads entries again: it notes no
// warning of the first pass twice.
func TestLinkedPassWarnsOnce(t *testing.T) {
	p := contracttest.WriteTarGz(t, t.TempDir(), "label.tgz", []contracttest.File{
		{Name: "A label", Typeflag: 'V'},
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/pods/other.json", Typeflag: tar.TypeSymlink, Linkname: "default.json"},
	})
	b, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0].Message, `volume label "A label"`) {
		t.Errorf("warnings %v, want the label's once", b.Warnings)
	}
}
