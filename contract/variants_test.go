package contract_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// variantFiles are the files of every archive variant.
var variantFiles = []contracttest.File{
	{Name: "sb/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
	{Name: "sb/cluster-resources/pods/default.json", Body: podList},
	{Name: "sb/cluster-resources/nodes.json", Body: `{"items":[]}`},
}

// longHeaderGzip is a gzip member whose header has a file name and a
// comment longer than the gzip package reads (512 bytes), and a header
// checksum: gzip writes such names (-N keeps any) and reads them.
func longHeaderGzip(data []byte) []byte {
	h := []byte{0x1f, 0x8b, 8, 1<<1 | 1<<3 | 1<<4, 0, 0, 0, 0, 0, 3}
	h = append(append(h, bytes.Repeat([]byte("n"), 600)...), 0)
	h = append(append(h, bytes.Repeat([]byte("c"), 3000)...), 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	var buf bytes.Buffer
	buf.Write(h)
	fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	fw.Write(data)
	fw.Close()
	out := binary.LittleEndian.AppendUint32(buf.Bytes(), crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(out, uint32(len(data)))
}

// withoutMarker is a tar stream without its end-of-archive marker and
// the zero blocks after it.
func withoutMarker(data []byte) []byte {
	end := len(data)
	for end >= 512 && !slices.ContainsFunc(data[end-512:end], func(c byte) bool { return c != 0 }) {
		end -= 512
	}
	return slices.Clone(data[:end])
}

// gnuTar runs GNU tar in dir, for the archives only it writes.
func gnuTar(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin := testenv.LookPath(t, "tar")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.Contains(string(out), "GNU tar") {
		testenv.Missing(t, "%s is not GNU tar: %v", bin, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// extracted is what GNU tar extracts of an archive: every regular file's
// content by its name, or the error tar ended with.
func extracted(t *testing.T, archive string) (map[string]string, error) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(testenv.LookPath(t, "tar"), "-xf", archive, "-C", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, stderr.String())
	}
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, nil
}

// Every tar and gzip variant GNU tar and gzip accept, bundlectl reads as
// GNU tar extracts it, file for file and byte for byte, saying what it
// read otherwise than stored: each archive is made here (by hand, or by
// GNU tar for the formats only it writes) and extracted by GNU tar.
func TestArchiveVariants(t *testing.T) {
	dir := t.TempDir()
	raw := contracttest.Tar(t, variantFiles)
	bare := withoutMarker(raw)
	other := contracttest.Tar(t, []contracttest.File{{Name: "other/cluster-resources/pods/x.json", Body: podList}})
	half := len(raw) / 2
	made := map[string][]byte{
		"gzip-long-name.tgz":       append(contracttest.Gzip(t, raw[:half]), longHeaderGzip(raw[half:])...),
		"no-marker.tar":            bare,
		"no-marker.tgz":            contracttest.Gzip(t, bare),
		"lone-zero-block.tar":      append(slices.Clone(bare), make([]byte, 512)...),
		"cut-in-padding.tar":       bare[:len(bare)-100],
		"cut-after-padding.tar":    append(slices.Clone(bare), make([]byte, 100)...),
		"lone-zero-then-entry.tar": append(append(slices.Clone(bare), make([]byte, 512)...), other...),
	}
	for name, data := range made {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// What only GNU tar writes: v7 headers (no magic), a GNU sparse file
	// (type S) of 1 MiB with 5 bytes in it, a volume label (type V).
	src := filepath.Join(dir, "src")
	writeFolder(t, src, variantFiles)
	sparse := filepath.Join(src, "sb", "sparse.bin")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<20); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(sparse, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("hello"), 500000)
	f.Close()
	gnuTar(t, src, "--format=v7", "-cf", "../v7.tar", "sb")
	gnuTar(t, src, "--format=gnu", "--sparse", "-cf", "../sparse-gnu.tar", "sb")
	gnuTar(t, src, "--format=posix", "--sparse", "-cf", "../sparse-pax.tar", "sb")
	gnuTar(t, src, "--format=gnu", "-V", "Cluster bundle, volume 1", "-czf", "../label.tgz", "sb")

	cases := []struct {
		file, warn string // warn: "" for none; refused: the error both say
	}{
		{"gzip-long-name.tgz", ""},
		{"no-marker.tar", "without an end-of-archive marker"},
		{"no-marker.tgz", "without an end-of-archive marker"},
		{"lone-zero-block.tar", "lone zero block"},
		{"cut-in-padding.tar", "refused: truncated"},
		{"cut-after-padding.tar", "in a last block cut short"},
		{"lone-zero-then-entry.tar", "lone zero block"},
		{"v7.tar", ""},
		{"sparse-gnu.tar", "a GNU sparse file: read as the 1048576 bytes tar extracts"},
		{"sparse-pax.tar", ""},
		{"label.tgz", `volume label "Cluster bundle, volume 1"`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := filepath.Join(dir, c.file)
			want, terr := extracted(t, p)
			b, err := contract.Open(p, contract.DefaultLimits)
			if refused, ok := strings.CutPrefix(c.warn, "refused: "); ok {
				if terr == nil || err == nil || !strings.Contains(err.Error(), refused) {
					t.Fatalf("tar: %v; bundlectl: %v; want both to refuse it, bundlectl saying %q", terr, err, refused)
				}
				return
			}
			if terr != nil {
				t.Fatalf("tar -xf: %v", terr)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			got := map[string]string{}
			err = b.Walk(func(e *contract.Entry) error {
				if e.HasContent() {
					data, err := e.ReadAll()
					got[e.Name] = string(data)
					return err
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for name, body := range want {
				if got[name] != body {
					t.Errorf("%s: %d bytes read, tar extracts %d", name, len(got[name]), len(body))
				}
			}
			if len(got) != len(want) {
				t.Errorf("read %d files, tar extracts %d", len(got), len(want))
			}
			var msgs []string
			for _, w := range b.Warnings {
				msgs = append(msgs, w.Message)
			}
			if c.warn == "" && len(msgs) > 0 || c.warn != "" && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, c.warn) }) {
				t.Errorf("warnings %q, want %q", msgs, c.warn)
			}
		})
	}
}
