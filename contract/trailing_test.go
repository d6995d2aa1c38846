package contract_test

import (
	"archive/tar"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// What may follow a bundle in its file: gzip and GNU tar accept zero
// padding after the gzip stream and read concatenated gzip members as one
// stream, so bundlectl does too; anything else after the bundle is
// ignored as tar ignores it, but never silently: it is a warning.
func TestTrailingData(t *testing.T) {
	a := []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/nodes.json", Body: `{"items":[]}`},
	}
	b := []contracttest.File{{Name: "other/cluster-resources/pods/kube-system.json", Body: podList}}
	tarA, tarB := contracttest.Tar(t, a), contracttest.Tar(t, b)
	half := len(tarA) / 2
	cases := []struct {
		name string
		data []byte
		warn string // "" for no warning
	}{
		{"gzip followed by zero padding", append(contracttest.Gzip(t, tarA), make([]byte, 10000)...), ""},
		{"a tar split over two gzip members", append(contracttest.Gzip(t, tarA[:half]), contracttest.Gzip(t, tarA[half:])...), ""},
		{"gzip followed by other bytes", append(contracttest.Gzip(t, tarA), []byte("\x00\x00trailer")...), "after the gzip stream are neither gzip nor zero padding"},
		{"two tar.gz concatenated", append(contracttest.Gzip(t, tarA), contracttest.Gzip(t, tarB)...), "a second tar archive"},
		{"two tars concatenated", append(slices.Clone(tarA), tarB...), "a second tar archive"},
		{"data after the end-of-archive marker", append(slices.Clone(tarA), []byte("not a tar header")...), "bytes of data after the end-of-archive marker are ignored"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, string(rune('a'+i))+".tgz")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			bundle, err := contract.Open(p, contract.DefaultLimits)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer bundle.Close()
			got, err := walkAll(bundle)
			if err != nil {
				t.Fatalf("Walk: %v", err)
			}
			if len(got) != len(a) {
				t.Errorf("read %d entries of the bundle, want %d: %v", len(got), len(a), got)
			}
			var msgs []string
			for _, w := range bundle.Warnings {
				if w.Path != p {
					t.Errorf("warning names %q, want the archive %q", w.Path, p)
				}
				msgs = append(msgs, w.Message)
			}
			switch {
			case c.warn == "" && len(msgs) > 0:
				t.Errorf("warnings %q, want none", msgs)
			case c.warn != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], c.warn)):
				t.Errorf("warnings %q, want one saying %q", msgs, c.warn)
			}
			rep, err := contract.Inspect(bundle)
			if err != nil {
				t.Fatal(err)
			}
			if c.warn != "" && !slices.ContainsFunc(rep.Problems, func(p contract.Problem) bool { return strings.Contains(p.Message, c.warn) }) {
				t.Errorf("inspect does not report the warning: %v", rep.Problems)
			}
		})
	}

	// A second gzip member that is corrupt is still a corrupt bundle.
	bad := append(contracttest.Gzip(t, tarA[:half]), contracttest.Gzip(t, tarA[half:])...)
	bad[len(bad)-6] ^= 0xff // the last member's CRC-32
	p := filepath.Join(dir, "bad.tgz")
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := contract.Open(p, contract.DefaultLimits); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("a corrupt second member: err = %v, want a gzip error", err)
	}
}

// A regular entry whose name ends in "/" is a folder to GNU tar, which
// skips its bytes; bundlectl reads it the same way and says so, instead
// of failing (Go's tar writer cannot encode such a name).
func TestRegularEntryEndingInSlash(t *testing.T) {
	files := []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/weird/x.json", Body: `{"items":[]}`},
	}
	p := filepath.Join(t.TempDir(), "slash.tgz")
	data := append(ustarEntry("sb/cluster-resources/weird/", "hello"), contracttest.Tar(t, files)...)
	if err := os.WriteFile(p, contracttest.Gzip(t, data), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	if len(b.Warnings) != 1 || b.Warnings[0].Path != "sb/cluster-resources/weird" || !strings.Contains(b.Warnings[0].Message, "5 bytes skipped") {
		t.Errorf("warnings %v, want one naming sb/cluster-resources/weird and its 5 skipped bytes", b.Warnings)
	}
	folders := map[string]bool{}
	err = b.Walk(func(e *contract.Entry) error {
		if e.Header.Typeflag == tar.TypeDir {
			folders[e.Rel] = true
			if e.Header.Size != 0 {
				t.Errorf("%s: a folder of %d bytes", e.Rel, e.Header.Size)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !folders["cluster-resources/weird"] {
		t.Errorf("the entry is not walked as a folder: %v", folders)
	}
}

// ustarEntry is a regular-file tar entry written byte by byte, for names
// Go's tar writer refuses to encode.
func ustarEntry(name, body string) []byte {
	h := make([]byte, 512)
	copy(h, name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", len(body)))
	copy(h[136:], "00000000000\x00")
	copy(h[148:], "        ")
	h[156] = tar.TypeReg
	copy(h[257:], "ustar\x0000")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	content := make([]byte, (len(body)+511)/512*512)
	copy(content, body)
	return append(h, content...)
}

// The first pass reads the version, discovery and CRD files of every
// folder (the root is known only at its end), so each has a cap and all
// of them together a budget: a bundle full of decoy copies cannot hold
// the first pass's memory hostage. What is over its cap is a warning;
// the root's own copy, when the decoys took the budget, is read again.
func TestEarlyReadBudget(t *testing.T) {
	big := `{"info":{"gitVersion":"v1.31.2"},"string":"` + strings.Repeat("x", 1<<20) + `"}`
	crds := `{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[]}`
	rootCRDs := crds + strings.Repeat(" ", 600)
	files := []contracttest.File{
		{Name: "decoy1/sb/cluster-resources/custom-resource-definitions.json", Body: crds + strings.Repeat(" ", 700)},
		{Name: "decoy2/sb/cluster-resources/custom-resource-definitions.json", Body: crds + strings.Repeat(" ", 700)},
		{Name: "decoy3/cluster-info/cluster_version.json", Body: big},
		{Name: "sb/cluster-resources/custom-resource-definitions.json", Body: rootCRDs},
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
	}
	p := contracttest.WriteTarGz(t, t.TempDir(), "decoys.tgz", files)
	limits := contract.DefaultLimits
	limits.MaxDecodeSize = 1500
	b, err := contract.Open(p, limits)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	if b.Root != "sb" {
		t.Fatalf("root %q", b.Root)
	}
	var msgs []string
	for _, w := range b.Warnings {
		if !strings.Contains(w.Message, "another bundle root") { // the decoys' folders
			msgs = append(msgs, w.Path+": "+w.Message)
		}
	}
	want := "decoy3/cluster-info/cluster_version.json: 1048621 bytes is over the 1500-byte limit"
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], want) {
		t.Fatalf("warnings %q, want %q...", msgs, want)
	}
	// The first decoy took most of the budget; the root's own list,
	// over what was left, was read again once the root was known.
	if string(b.CRDList) != rootCRDs {
		t.Errorf("CRDList = %.80q, want the root's", b.CRDList)
	}
}

func TestParseClusterVersion(t *testing.T) {
	for v, ok := range map[string]bool{
		"v1.31.2": true, "v1.24.4-eks-a1b2c3d": true, "v1.33.4+k3s1": true, "v1.20.2": true,
		"garbage": false, "1.31.2": false, "v1": false, "v1.31.2 && rm -rf": false,
		"v1.31." + strings.Repeat("9", 2<<20): false,
	} {
		_, err := contract.ParseClusterVersion([]byte(`{"info":{"gitVersion":"` + v + `"}}`))
		if (err == nil) != ok {
			t.Errorf("%.40q: err = %v, want ok %v", v, err, ok)
		}
		if err != nil && len(err.Error()) > 200 {
			t.Errorf("%.40q: an error of %d bytes", v, len(err.Error()))
		}
	}
}

// A name longer than any path (PAX records allow a megabyte) is refused,
// and the error does not repeat it whole.
func TestNameOverPathMax(t *testing.T) {
	long := "sb/cluster-resources/" + strings.Repeat("a/", 3000) + "x.json"
	p := contracttest.WriteTarGz(t, t.TempDir(), "long.tgz", []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: long, Body: "{}"},
	})
	_, err := contract.Open(p, contract.DefaultLimits)
	if err == nil || !strings.Contains(err.Error(), "over the 4096-byte limit") {
		t.Fatalf("err = %v, want the name refused", err)
	}
	if len(err.Error()) > 600 {
		t.Errorf("an error of %d bytes", len(err.Error()))
	}
}

// An analysis.json that is not troubleshoot's list is a problem naming it.
func TestAnalysisNotAList(t *testing.T) {
	rep := inspectFiles(t, []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/analysis.json", Body: `{"not":"a list"}`},
	})
	if len(rep.Problems) != 1 || rep.Problems[0].Path != contract.AnalysisPath || !strings.Contains(rep.Problems[0].Message, "analyzer results") {
		t.Errorf("problems %v", rep.Problems)
	}
}

// Of a root's early file that occurs twice, the last copy is read (as
// extracting keeps it), whichever of the two fit the first pass's budget.
func TestEarlyReadDuplicates(t *testing.T) {
	crds := func(pad int) string {
		return `{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[]}` + strings.Repeat(" ", pad)
	}
	const name = "sb/cluster-resources/custom-resource-definitions.json"
	decoy := contracttest.File{Name: "x/decoy/cluster-resources/custom-resource-definitions.json", Body: crds(400)}
	for _, files := range [][]contracttest.File{
		{{Name: name, Body: crds(0)}, {Name: name, Body: crds(850)}},        // the last over the budget: read again
		{decoy, {Name: name, Body: crds(500)}, {Name: name, Body: crds(0)}}, // the first over it, the last within
	} {
		files = append(files, contracttest.File{Name: "sb/cluster-resources/pods/default.json", Body: podList})
		p := contracttest.WriteTarGz(t, t.TempDir(), "dup.tgz", files)
		limits := contract.DefaultLimits
		limits.MaxDecodeSize = 1000 // the early files' budget, and the CRD list's cap
		b, err := contract.Open(p, limits)
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
		if last := files[len(files)-2].Body; string(b.CRDList) != last || slices.ContainsFunc(b.Warnings, func(p contract.Problem) bool { return !strings.Contains(p.Message, "another bundle root") }) {
			t.Errorf("read a copy of %d bytes, want the last, of %d; warnings %v", len(b.CRDList), len(last), b.Warnings)
		}
	}
}
