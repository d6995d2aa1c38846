package contract_test

import (
	"archive/tar"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// walked is what a Walk delivers of every entry.
type walked struct {
	name, rel string
	typeflag  byte
	size      int64
	body      []byte
}

func walkEntries(t *testing.T, b *contract.Bundle) ([]walked, error) {
	t.Helper()
	var out []walked
	err := b.Walk(func(e *contract.Entry) error {
		w := walked{name: e.Name, rel: e.Rel, typeflag: e.Header.Typeflag, size: e.Header.Size}
		if e.IsRegular() {
			var err error
			if w.body, err = io.ReadAll(e.Reader()); err != nil {
				return err
			}
		}
		out = append(out, w)
		return nil
	})
	return out, err
}

// keptStreamBundle writes a .tar.gz whose stream spans many s2 blocks
// (a megabyte of incompressible bytes among small files) and has data
// after its end-of-archive marker, and returns it with the entries a
// Walk of it must deliver.
func keptStreamBundle(t *testing.T, dir string) (string, []walked) {
	t.Helper()
	noise := make([]byte, 1<<20)
	rng := rand.NewChaCha8([32]byte{7})
	rng.Read(noise)
	files := []contracttest.File{
		{Name: "sb/version.yaml", Body: "apiVersion: troubleshoot.sh/v1beta2\n"},
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/pods/logs/default/a/c.log", Body: string(noise)},
		{Name: "sb/cluster-resources/empty/", Typeflag: tar.TypeDir},
	}
	for i := range 50 {
		files = append(files, contracttest.File{Name: fmt.Sprintf("sb/host-collectors/f%02d.txt", i), Body: strings.Repeat("line\n", i*100)})
	}
	data := append(contracttest.Tar(t, files), "after the marker"...)
	p := filepath.Join(dir, "kept.tar.gz")
	if err := os.WriteFile(p, contracttest.Gzip(t, data), 0o600); err != nil {
		t.Fatal(err)
	}
	var want []walked
	for _, f := range files {
		w := walked{name: strings.TrimSuffix(f.Name, "/"), rel: strings.TrimSuffix(strings.TrimPrefix(f.Name, "sb/"), "/"), typeflag: tar.TypeReg, size: int64(len(f.Body)), body: []byte(f.Body)}
		if f.Typeflag == tar.TypeDir {
			w.typeflag, w.size, w.body = tar.TypeDir, 0, nil
		}
		want = append(want, w)
	}
	return p, want
}

// A bundle opened with KeepStream is walked from what its first pass
// kept: the same entries, byte for byte, pass after pass, even once the
// archive itself is gone.
func TestKeptStreamIsTheArchive(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	p, want := keptStreamBundle(t, dir)
	plain, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	kept, err := contract.OpenContext(t.Context(), p, contract.OpenOptions{KeepStream: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept.Warnings, plain.Warnings) || len(kept.Warnings) != 1 {
		t.Errorf("warnings %v, want those of a bundle opened without KeepStream, %v", kept.Warnings, plain.Warnings)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		got, err := walkEntries(t, kept)
		if err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pass %d delivered %d entries that differ from the archive's %d", pass, len(got), len(want))
		}
	}
	if _, err := walkEntries(t, plain); err == nil {
		t.Error("a bundle opened without KeepStream walked an archive that is gone")
	}
	if err := kept.Close(); err != nil {
		t.Fatal(err)
	}
}

// Where the stream cannot be kept (no temporary folder), the bundle is
// walked from the archive, as without KeepStream.
func TestKeptStreamFallsBackToTheArchive(t *testing.T) {
	dir := t.TempDir()
	p, want := keptStreamBundle(t, dir)
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	b, err := contract.OpenContext(t.Context(), p, contract.OpenOptions{KeepStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := walkEntries(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delivered %d entries that differ from the archive's %d", len(got), len(want))
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := walkEntries(t, b); err == nil {
		t.Error("walked an archive that is gone: the stream was kept after all")
	}
}

// A stream cut short is not kept: the first pass fails and names the
// problem, as without KeepStream.
func TestKeptStreamOfATruncatedArchive(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	p, _ := keptStreamBundle(t, dir)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = contract.OpenContext(t.Context(), p, contract.OpenOptions{KeepStream: true})
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("err = %v, want the archive named truncated", err)
	}
}
