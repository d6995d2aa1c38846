package contract_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

var writerEntries = []struct {
	hdr  tar.Header
	body string
}{
	{tar.Header{Name: "b/", Typeflag: tar.TypeDir, Mode: 0o750, ModTime: contracttest.Epoch}, ""},
	{tar.Header{Name: "b/cluster-resources/pods/default.json", Typeflag: tar.TypeReg, Mode: 0o640, ModTime: contracttest.Epoch}, `{"items":[]}`},
	{tar.Header{Name: "b/cluster-resources/pods/default.yaml", Typeflag: tar.TypeSymlink, Linkname: "default.json", ModTime: contracttest.Epoch}, ""},
	{tar.Header{Name: "b/copy.json", Typeflag: tar.TypeLink, Linkname: "b/cluster-resources/pods/default.json", ModTime: contracttest.Epoch}, ""},
}

func writeAll(t *testing.T, w *contract.Writer) {
	t.Helper()
	for _, e := range writerEntries {
		hdr := e.hdr
		hdr.Size = int64(len(e.body))
		if err := w.WriteEntry(&hdr, strings.NewReader(e.body)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriterArchiveRoundTrip(t *testing.T) {
	for _, name := range []string{"out.tar.gz", "out.tgz", "out.tar", "out"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, name)
			w, err := contract.CreateWriter(dest, contract.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			writeAll(t, w)
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Fatalf("destination visible before Commit: %v", err)
			}
			if err := w.Commit(context.Background()); err != nil {
				t.Fatal(err)
			}
			b, err := contract.Open(dest, contract.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			err = b.Walk(func(e *contract.Entry) error {
				body, _ := io.ReadAll(e.Reader())
				got[e.Rel] = string(body) + "|" + e.LinkRel
				if e.IsRegular() && !e.Header.ModTime.Equal(contracttest.Epoch) {
					t.Errorf("%s: mtime %v", e.Rel, e.Header.ModTime)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got["cluster-resources/pods/default.json"] != `{"items":[]}|` {
				t.Errorf("list: %q", got["cluster-resources/pods/default.json"])
			}
			if got["cluster-resources/pods/default.yaml"] != "|cluster-resources/pods/default.json" {
				t.Errorf("symlink: %q", got["cluster-resources/pods/default.yaml"])
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("temporary files left beside the destination: %v", entries)
			}
			if f, _ := contract.DestFormat(dest); f == contract.FormatFolder {
				fi, err := os.Stat(filepath.Join(dest, "b"))
				if err != nil || !fi.ModTime().Equal(contracttest.Epoch) || fi.Mode().Perm() != 0o750 {
					t.Errorf("folder b: %v %v", fi, err)
				}
			}
		})
	}
}

func TestWriterAbortAndForce(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "new.tar.gz")
	w, err := contract.CreateWriter(dest, contract.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w)
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Abort left %v", entries)
	}
	writeDest(t, dest, contract.WriterOptions{})
	old, _ := os.ReadFile(dest)
	if _, err := contract.CreateWriter(dest, contract.WriterOptions{}); err == nil || !strings.Contains(err.Error(), "pass --force") {
		t.Fatalf("an existing destination was not refused: %v", err)
	}
	w, err = contract.CreateWriter(dest, contract.WriterOptions{Force: true, Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w)
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(dest); bytes.Equal(data, old) {
		t.Fatal("--force did not replace the destination")
	}
}

func TestWriterStdoutOnlyAtCommit(t *testing.T) {
	var out bytes.Buffer
	w, err := contract.CreateWriter("-", contract.WriterOptions{Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w)
	if out.Len() != 0 {
		t.Fatal("bytes reached stdout before Commit")
	}
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b := out.Bytes(); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("stdout is not gzip: %q", b[:min(len(b), 8)])
	}
}

func TestWriterFolderRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out")
	w, err := contract.CreateWriter(dest, contract.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, hdr := range []*tar.Header{
		{Name: "../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644},
		{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "../../etc"},
		{Name: "abs", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
	} {
		if err := w.WriteEntry(hdr, strings.NewReader("x")); err == nil {
			t.Errorf("%s -> %s was written", hdr.Name, hdr.Linkname)
		}
	}
	// A symlink inside the bundle cannot be followed out by a later entry.
	if err := w.WriteEntry(&tar.Header{Name: "up", Typeflag: tar.TypeSymlink, Linkname: "."}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evil")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written outside the bundle: %v", err)
	}
}

func TestWriterShortBody(t *testing.T) {
	w, err := contract.CreateWriter(filepath.Join(t.TempDir(), "x.tar.gz"), contract.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	err = w.WriteEntry(&tar.Header{Name: "a", Typeflag: tar.TypeReg, Size: 10, ModTime: time.Unix(0, 0)}, strings.NewReader("abc"))
	if err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("short body: %v", err)
	}
}

// A signal that arrives after the last entry was written but before the
// output is published (the command's context is cancelled) publishes
// nothing and leaves nothing behind: an interrupted command has no output.
func TestWriterCommitCancelled(t *testing.T) {
	for _, name := range []string{"out.tar.gz", "out"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, name)
			w, err := contract.CreateWriter(dest, contract.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			writeAll(t, w)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := w.Commit(ctx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), dest) {
				t.Fatalf("Commit = %v, want context.Canceled naming %s", err, dest)
			}
			left, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// A folder holds every hard link tar can extract: one whose target comes
// later in the archive (or behind another such link) is made at the end;
// one a folder cannot hold (to a folder, to nothing, to itself, or a name
// part over 255 bytes) is skipped and reported, and the rest is written.
func TestWriterFolderLinks(t *testing.T) {
	long := strings.Repeat("n", 256)
	entries := []tar.Header{
		{Name: "b/fwd", Typeflag: tar.TypeLink, Linkname: "b/chain"},
		{Name: "b/chain", Typeflag: tar.TypeLink, Linkname: "b/later.json"},
		{Name: "b/dangling", Typeflag: tar.TypeLink, Linkname: "b/nope"},
		{Name: "b/self", Typeflag: tar.TypeLink, Linkname: "b/self"},
		{Name: "b/sub/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "b/dirlink", Typeflag: tar.TypeLink, Linkname: "b/sub"},
		{Name: "b/" + long + ".json", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2},
		{Name: "b/later.json", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2},
	}
	dest := filepath.Join(t.TempDir(), "out")
	w, err := contract.CreateWriter(dest, contract.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for i := range entries {
		if err := w.WriteEntry(&entries[i], strings.NewReader("{}")); err != nil {
			t.Fatalf("%s: %v", entries[i].Name, err)
		}
	}
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b/fwd", "b/chain", "b/later.json"} {
		if data, err := os.ReadFile(filepath.Join(dest, name)); err != nil || string(data) != "{}" {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	skipped := map[string]string{}
	for _, p := range w.Skipped {
		skipped[p.Path] = p.Message
	}
	for name, why := range map[string]string{
		"b/dangling":          "does not hold",
		"b/self":              "to itself",
		"b/dirlink":           "not a file",
		"b/" + long + ".json": "over the 255-byte limit",
	} {
		if !strings.Contains(skipped[name], why) {
			t.Errorf("%.20s: skipped %q, want it reported with %q", name, skipped[name], why)
		}
	}
	if len(skipped) != 4 {
		t.Errorf("skipped %d entries, want 4: %v", len(skipped), skipped)
	}
}

// A header archive/tar reads as of no format it names (a macOS tar's
// folder: PAX records of libarchive's beside the time to the nanosecond)
// is written with its time whole, not rounded to the second.
func TestWriterKeepsSubsecondTimes(t *testing.T) {
	at := contracttest.Epoch.Add(314129752)
	hdr := &tar.Header{Name: "b/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: at, Format: tar.FormatUnknown,
		PAXRecords: map[string]string{"LIBARCHIVE.xattr.com.apple.provenance": "AQIAw4lEFfmmMy8"}}
	dest := filepath.Join(t.TempDir(), "out.tar")
	w, err := contract.CreateWriter(dest, contract.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteEntry(hdr, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := tar.NewReader(f).Next()
	if err != nil {
		t.Fatal(err)
	}
	if !got.ModTime.Equal(at) || got.PAXRecords["LIBARCHIVE.xattr.com.apple.provenance"] != "AQIAw4lEFfmmMy8" {
		t.Errorf("written %v %v, want %v and the record", got.ModTime, got.PAXRecords, at)
	}
}
