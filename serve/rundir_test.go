package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestSweepRunDirs removes the folders of runs whose owner is gone
// (a pid that no longer runs, a pid now another process's), and leaves
// alone this process's, names of other forms, and links.
func TestSweepRunDirs(t *testing.T) {
	tmp := t.TempDir()
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Skip(err)
	}
	dead := strconv.Itoa(done.Process.Pid)
	self := processTag(os.Getpid())
	target := t.TempDir()
	if err := os.WriteFile(filepath.Join(target, "kept"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	gone := []string{runDirPrefix + dead + ".1-a", runDirPrefix + dead + "-b", runDirPrefix + strconv.Itoa(os.Getpid()) + ".1-c"}
	kept := []string{runDirPrefix + self + "-d", runDirPrefix + "123456789", runDirPrefix + "logs-1", "other-" + dead + "-e"}
	for _, name := range append(slices.Clone(gone), kept...) {
		if err := os.MkdirAll(filepath.Join(tmp, name, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	link := runDirPrefix + dead + ".1-link"
	if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, link)
	sweepRunDirs(tmp)
	var left []string
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	slices.Sort(kept)
	if !slices.Equal(left, kept) {
		t.Errorf("left %v, want %v", left, kept)
	}
	if _, err := os.Stat(filepath.Join(target, "kept")); err != nil {
		t.Errorf("a link's target was touched: %v", err)
	}
}
