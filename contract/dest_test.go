//go:build unix

package contract_test

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// writeDest writes a bundle of the contract (writerEntries and a
// discovery.json under the root folder b) to dest, as upgrade and collect
// do.
func writeDest(t *testing.T, dest string, opts contract.WriterOptions) *contract.Writer {
	t.Helper()
	w, err := contract.CreateWriter(dest, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	writeAll(t, w)
	disc := `{"bundleSchemaVersion":"1.0"}`
	hdr := &tar.Header{Name: "b/" + contract.DiscoveryPath(), Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(disc)), ModTime: contracttest.Epoch}
	if err := w.WriteEntry(hdr, strings.NewReader(disc)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w
}

// tree is every file under dir: its kind, permission and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %x", sha256.Sum256(data))
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			v += " -> " + target
		}
		out[strings.TrimPrefix(p, dir)] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func TestDestFormat(t *testing.T) {
	for name, want := range map[string]contract.SourceFormat{
		"-": contract.FormatTarGz, "new.tar.gz": contract.FormatTarGz, "X.TAR.GZ": contract.FormatTarGz,
		"x.Tgz": contract.FormatTarGz, "dir.tar.gz/X.TGZ": contract.FormatTarGz,
		"new.tar": contract.FormatTar, "NEW.TAR": contract.FormatTar,
		"out": contract.FormatFolder, "support-bundle-2025-01-02T03_04_05": contract.FormatFolder,
		"v1.31": contract.FormatFolder, "x.zip/out": contract.FormatFolder,
	} {
		if got, err := contract.DestFormat(name); err != nil || got != want {
			t.Errorf("DestFormat(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, name := range []string{"x.tar.zst", "x.zip", "x.tar.xz", "x.tar.bz2", "X.ZIP", "x.TAR.ZST", "x.gz", "x.7z", "x.txz"} {
		if _, err := contract.DestFormat(name); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("DestFormat(%q) = %v, want an error naming it", name, err)
		}
		dir := t.TempDir()
		if _, err := contract.CreateWriter(filepath.Join(dir, name), contract.WriterOptions{}); err == nil {
			t.Errorf("CreateWriter(%q) accepted it", name)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("CreateWriter(%q) left %v", name, left)
		}
	}
}

// The writer never writes where its source is: not over it, not inside
// it, and (with --force) not over a folder that holds it, whichever name
// leads there. Nothing is written, not even a temporary file.
func TestWriterRefusesOverlap(t *testing.T) {
	cases := map[string]func(dir string) (src, dest, want string){
		"the input": func(dir string) (string, string, string) {
			return dir + "/in.tgz", dir + "/in.tgz", "is"
		},
		"the input through ./ and ..": func(dir string) (string, string, string) {
			return dir + "/in.tgz", dir + "/d/.././in.tgz", "is"
		},
		"the input through a symlink": func(dir string) (string, string, string) {
			symlink(t, "in.tgz", dir+"/link.tgz")
			return dir + "/in.tgz", dir + "/link.tgz", "is"
		},
		"the input through a hard link": func(dir string) (string, string, string) {
			if err := os.Link(dir+"/in.tgz", dir+"/hard.tgz"); err != nil {
				t.Fatal(err)
			}
			return dir + "/in.tgz", dir + "/hard.tgz", "is"
		},
		"the input folder": func(dir string) (string, string, string) {
			return dir + "/bundle", dir + "/bundle/", "is"
		},
		"inside the input": func(dir string) (string, string, string) {
			return dir + "/bundle", dir + "/bundle/out.tgz", "lies inside"
		},
		"deep inside the input": func(dir string) (string, string, string) {
			return dir + "/bundle", dir + "/bundle/cluster-resources/out", "lies inside"
		},
		"inside the input through a symlink": func(dir string) (string, string, string) {
			symlink(t, "bundle", dir+"/link")
			return dir + "/bundle", dir + "/link/out.tgz", "lies inside"
		},
		"inside the input through a symlink's ..": func(dir string) (string, string, string) {
			// Lexically dir/out.tgz, outside; really bundle/out.tgz.
			symlink(t, "bundle/cluster-resources", dir+"/deep")
			return dir + "/bundle", dir + "/deep/../out.tgz", "lies inside"
		},
		"inside the input named by a symlink": func(dir string) (string, string, string) {
			symlink(t, "bundle", dir+"/link")
			return dir + "/link", dir + "/bundle/out", "lies inside"
		},
		"the folder holding the input": func(dir string) (string, string, string) {
			return dir + "/d/old.tar.gz", dir + "/d", "holds"
		},
		"the folder holding the input deeper": func(dir string) (string, string, string) {
			return dir + "/d/sub/x.tgz", dir + "/d", "holds"
		},
		"the folder holding the input, named through ..": func(dir string) (string, string, string) {
			return dir + "/d/old.tar.gz", dir + "/bundle/../d", "holds"
		},
		"the folder holding the input, through a symlink": func(dir string) (string, string, string) {
			symlink(t, "d", dir+"/l")
			return dir + "/l/old.tar.gz", dir + "/d", "holds"
		},
		"the folder holding the input's target": func(dir string) (string, string, string) {
			symlink(t, "d/old.tar.gz", dir+"/link.tgz")
			return dir + "/link.tgz", dir + "/d", "holds"
		},
		"the folder holding the input's symlink": func(dir string) (string, string, string) {
			symlink(t, "../in.tgz", dir+"/d/link.tgz")
			return dir + "/d/link.tgz", dir + "/d", "holds"
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir+"/in.tgz", string(contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{{Name: "a", Body: "x"}}))))
			writeFile(t, dir+"/bundle/cluster-resources/nodes.json", `{"items":[]}`)
			// d would be replaceable: a bundle's discovery.json at its top.
			writeFile(t, dir+"/d/"+contract.DiscoveryPath(), `{"bundleSchemaVersion":"1.0"}`)
			writeFile(t, dir+"/d/old.tar.gz", "old")
			writeFile(t, dir+"/d/sub/x.tgz", "old")
			src, dest, want := setup(dir)
			before := tree(t, dir)
			for _, force := range []bool{false, true} {
				_, err := contract.CreateWriter(dest, contract.WriterOptions{Source: src, Force: force})
				if err == nil || !strings.Contains(err.Error(), "refusing to write") || !strings.Contains(err.Error(), "it "+want+" the bundle") {
					t.Errorf("force=%t: %v, want it refused as %q", force, err, want)
				}
			}
			if after := tree(t, dir); !maps.Equal(before, after) {
				t.Errorf("the folder changed:\n%v\nwas\n%v", after, before)
			}
		})
	}
}

// --force replaces only what bundlectl writes: an archive file, or a
// folder holding a bundle of the contract (discovery.json) at its top or
// in its only folder. Anything else is refused, and kept as it was.
func TestWriterForceReplacesOnlyOutputs(t *testing.T) {
	archive := string(contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{{Name: "a", Body: "x"}})))
	cases := []struct {
		name, dest string
		setup      func(dest string)
		replace    bool
	}{
		{"an archive bundlectl wrote", "old.tgz", func(d string) { writeDest(t, d, contract.WriterOptions{}) }, true},
		{"a tar bundlectl wrote", "old.tar", func(d string) { writeDest(t, d, contract.WriterOptions{}) }, true},
		{"a gzip archive", "old.TAR.GZ", func(d string) { writeFile(t, d, archive) }, true},
		{"a folder bundlectl wrote", "out", func(d string) { writeDest(t, d, contract.WriterOptions{}) }, true},
		{"a folder with a bundle at its top", "out", func(d string) {
			writeFile(t, d+"/"+contract.DiscoveryPath(), `{"bundleSchemaVersion":"1.0"}`)
		}, true},
		{"a text file named as an archive", "notes.tgz", func(d string) { writeFile(t, d, "my notes") }, false},
		{"a folder named as an archive", "dir.tgz", func(d string) { writeFile(t, d+"/notes.txt", "mine") }, false},
		{"a symlink to an archive", "link.tgz", func(d string) {
			writeFile(t, d+".real", archive)
			symlink(t, filepath.Base(d)+".real", d)
		}, false},
		{"a folder of other files", "d", func(d string) {
			writeFile(t, d+"/old.tar.gz", archive)
			writeFile(t, d+"/notes.txt", "mine")
		}, false},
		{"a bundle with notes beside its root folder", "out", func(d string) {
			writeDest(t, d, contract.WriterOptions{})
			writeFile(t, d+"/notes.txt", "mine")
		}, false},
		{"a legacy bundle folder", "out", func(d string) {
			writeFile(t, d+"/cluster-resources/nodes.json", `{"items":[]}`)
		}, false},
		{"a folder whose discovery.json is not the contract's", "out", func(d string) {
			writeFile(t, d+"/"+contract.DiscoveryPath(), `{}`)
		}, false},
		{"a file where a folder goes", "out", func(d string) { writeFile(t, d, "mine") }, false},
		{"a symlink to a bundle folder", "out", func(d string) {
			writeDest(t, d+".real", contract.WriterOptions{})
			symlink(t, filepath.Base(d)+".real", d)
		}, false},
		{"the home folder", "home", func(d string) {
			writeFile(t, d+"/.bashrc", "mine")
			writeFile(t, d+"/bundles/old.tgz", archive)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, c.dest)
			c.setup(dest)
			before := tree(t, dir)
			_, err := contract.CreateWriter(dest, contract.WriterOptions{})
			want := "already exists, and --force would not replace it"
			if c.replace {
				want = "already exists; pass --force to replace it"
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("without --force: %v, want %q", err, want)
			}
			w, err := contract.CreateWriter(dest, contract.WriterOptions{Force: true})
			if !c.replace {
				if err == nil || !strings.Contains(err.Error(), "refusing to replace "+dest) {
					t.Errorf("--force: %v, want it refused", err)
				}
				if after := tree(t, dir); !maps.Equal(before, after) {
					t.Errorf("the folder changed:\n%v\nwas\n%v", after, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("--force: %v", err)
			}
			defer w.Abort()
			writeAll(t, w)
			if err := w.Commit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if after := tree(t, dir); maps.Equal(before, after) {
				t.Error("--force did not replace it")
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
				t.Errorf("left beside it: %v", left)
			}
		})
	}
}

// A destination that became one --force may not replace while the bundle
// was being written is refused at Commit, and kept.
func TestWriterForceChecksAgainAtCommit(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out")
	writeDest(t, dest, contract.WriterOptions{})
	w, err := contract.CreateWriter(dest, contract.WriterOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	writeAll(t, w)
	writeFile(t, dest+"/notes.txt", "written meanwhile")
	if err := w.Commit(context.Background()); err == nil || !strings.Contains(err.Error(), "refusing to replace") {
		t.Fatalf("Commit = %v, want it refused", err)
	}
	if data, err := os.ReadFile(dest + "/notes.txt"); err != nil || string(data) != "written meanwhile" {
		t.Errorf("notes.txt: %q, %v", data, err)
	}
}

// The output and its temporary file are never readable by more people
// than the input, whatever the umask: a 0600 input gives a 0600 archive
// (0700 folder), an input read from no file an owner-only one.
func TestWriterMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, c := range []struct {
		srcMode    fs.FileMode
		srcDir     bool
		file, fold fs.FileMode
	}{
		{0o600, false, 0o600, 0o700},
		{0o640, false, 0o640, 0o750},
		{0o644, false, 0o644, 0o755},
		{0o750, true, 0o640, 0o750},
	} {
		src := filepath.Join(dir, fmt.Sprintf("src-%o-%t", c.srcMode, c.srcDir))
		if c.srcDir {
			mkdirs(t, src)
		} else {
			writeFile(t, src, "x")
		}
		if err := os.Chmod(src, c.srcMode); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"new.tar.gz", "new"} {
			dest := filepath.Join(dir, fmt.Sprintf("%o-%t-%s", c.srcMode, c.srcDir, name))
			want := c.file
			if name == "new" {
				want = c.fold
			}
			checkMode(t, src, dest, want)
		}
	}
	for _, src := range []string{"", "-", "https://example.com/b.tgz"} {
		checkMode(t, src, filepath.Join(dir, fmt.Sprintf("none-%d.tgz", len(src))), 0o600)
		checkMode(t, src, filepath.Join(dir, fmt.Sprintf("none-%d", len(src))), 0o700)
	}
}

func checkMode(t *testing.T, src, dest string, want fs.FileMode) {
	t.Helper()
	w, err := contract.CreateWriter(dest, contract.WriterOptions{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	writeAll(t, w)
	tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*"))
	for _, p := range tmp {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&^want != 0 {
			t.Errorf("%s: temporary %s is %v, wider than %v", src, p, fi.Mode(), want)
		}
	}
	if len(tmp) != 1 {
		t.Errorf("temporary files: %v", tmp)
	}
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != want {
		t.Errorf("source %q: %s is %v, want %v", src, filepath.Base(dest), fi.Mode(), want)
	}
}

// A name the archive holds more than once is, in a folder, what
// extracting the archive output leaves: the last copy (Entry.Superseded).
// A folder with files in it stays, and the later entry is reported.
func TestWriterDuplicatesLastWins(t *testing.T) {
	entries := []tar.Header{
		{Name: "b/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "b/a.json", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "one"},
		{Name: "b/a.json", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "two"},
		{Name: "b/l", Typeflag: tar.TypeSymlink, Linkname: "a.json"},
		{Name: "b/l", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "a file over a symlink"},
		{Name: "b/f", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "a file under a symlink"},
		{Name: "b/f", Typeflag: tar.TypeSymlink, Linkname: "a.json"},
		{Name: "b/d/", Typeflag: tar.TypeDir, Mode: 0o700},
		{Name: "./b/d", Typeflag: tar.TypeDir, Mode: 0o750},
		{Name: "b/x", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "a file under a folder"},
		{Name: "b/x/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "b/x/y", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "y"},
		{Name: "b/full/z", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "z"},
		{Name: "b/full", Typeflag: tar.TypeReg, Mode: 0o644, Linkname: "over a folder with files"},
	}
	dir := t.TempDir()
	read := map[string]map[string]string{}
	for _, name := range []string{"out.tar", "out"} {
		dest := filepath.Join(dir, name)
		w, err := contract.CreateWriter(dest, contract.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for _, hdr := range entries {
			body := ""
			if hdr.Typeflag == tar.TypeReg {
				body, hdr.Linkname = hdr.Linkname, ""
				hdr.Size = int64(len(body))
			}
			if err := w.WriteEntry(&hdr, strings.NewReader(body)); err != nil {
				t.Fatalf("%s: %s: %v", name, hdr.Name, err)
			}
		}
		if err := w.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if name == "out" && (len(w.Skipped) != 1 || w.Skipped[0].Path != "b/full" || !strings.Contains(w.Skipped[0].Message, "folder with files")) {
			t.Errorf("skipped: %+v, want b/full", w.Skipped)
		}
		b, err := contract.Open(dest, contract.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		err = b.Walk(func(e *contract.Entry) error {
			if e.Superseded {
				return nil
			}
			body, err := io.ReadAll(e.Reader())
			got[e.Rel] = fmt.Sprintf("%c %s %s", e.Header.Typeflag, body, e.Header.Linkname)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		read[name] = got
	}
	// The folder cannot hold a file over a folder with files; extracting
	// the archive cannot either.
	if read["out.tar"]["b/full"] != "0 over a folder with files " {
		t.Errorf("the archive: b/full is %q", read["out.tar"]["b/full"])
	}
	read["out.tar"]["b/full"] = read["out"]["b/full"]
	if !maps.Equal(read["out.tar"], read["out"]) {
		t.Errorf("the folder holds\n%q\nextracting the archive gives\n%q", read["out"], read["out.tar"])
	}
	if fi, err := os.Stat(filepath.Join(dir, "out", "b", "d")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("b/d: %v, %v; want the later entry's 0750", fi.Mode(), err)
	}
}
