//go:build unix

package transform_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/transform"
)

// TestUpgradeDiskFull upgrades in a child process whose files cannot
// grow past a limit (RLIMIT_FSIZE: every write past it fails, as on a
// full disk): the upgrade fails with an error naming the output and the
// file system's reason, leaves no output and nothing beside it or in the
// temporary folder, and its input is untouched.
func TestUpgradeDiskFull(t *testing.T) {
	in := exampleBundle
	inSum := treeSum(t, in)
	for _, tc := range []struct {
		dest  string
		limit int64
	}{
		{"new.tar.gz", 4096},
		{"new.tar.gz", 64 << 10},
		{"new.tar", 4096},
		{"new.tar", 400 << 10},
		{"new", 4096},
		{"new", 20 << 10},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.dest, tc.limit), func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			dest := filepath.Join(dir, tc.dest)
			cmd := exec.Command(os.Args[0], "-test.run=^TestUpgradeDiskFullChild$")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "BUNDLECTL_DISKFULL_CHILD="+in,
				"BUNDLECTL_DISKFULL_DEST="+dest, "BUNDLECTL_DISKFULL_LIMIT="+strconv.FormatInt(tc.limit, 10))
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the upgrade succeeded with files limited to %d bytes:\n%s", tc.limit, out)
			}
			if !strings.Contains(string(out), "upgrade failed: writing "+dest) || !strings.Contains(string(out), "file too large") {
				t.Errorf("the error does not name %s and the reason:\n%s", dest, out)
			}
			for _, d := range []string{dir, tmp} {
				if entries, _ := os.ReadDir(d); len(entries) != 0 {
					t.Errorf("left in %s: %v", d, entries)
				}
			}
		})
	}
	if treeSum(t, in) != inSum {
		t.Error("the input changed")
	}
}

// TestUpgradeDiskFullChild is the child process of TestUpgradeDiskFull.
func TestUpgradeDiskFullChild(t *testing.T) {
	in := os.Getenv("BUNDLECTL_DISKFULL_CHILD")
	if in == "" {
		t.Skip("the child process of TestUpgradeDiskFull")
	}
	limit, err := strconv.ParseUint(os.Getenv("BUNDLECTL_DISKFULL_LIMIT"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	if _, err := transform.Upgrade(context.Background(), transform.Options{Source: in, Dest: os.Getenv("BUNDLECTL_DISKFULL_DEST")}); err != nil {
		t.Fatalf("upgrade failed: %v", err)
	}
}

// treeSum hashes every file name and content under root.
func treeSum(t *testing.T, root string) [32]byte {
	t.Helper()
	h := sha256.New()
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.Size())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}
