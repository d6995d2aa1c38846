package contract_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/contracttest"
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
