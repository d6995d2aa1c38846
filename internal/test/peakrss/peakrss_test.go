package peakrss

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestRunIsTheChilds holds 300 MB in the test process and measures a child
// that holds almost nothing: os/exec's own figure is the parent's peak,
// the launcher's the child's.
func TestRunIsTheChilds(t *testing.T) {
	launcher := testenv.Build(t, Launcher)
	held := make([]byte, 300<<20)
	for i := range held {
		held[i] = 1
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	direct := exec.Command(self, "-test.run=^$")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	inherited := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	peak, out, err := Run(context.Background(), launcher, self, "-test.run=^$")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("child's peak: %d MB through os/exec, %d MB through the launcher", inherited>>20, peak>>20)
	if inherited < 300<<20 {
		t.Logf("os/exec no longer reports the parent's peak as the child's (%d MB)", inherited>>20)
	}
	if peak <= 0 || peak > 150<<20 {
		t.Errorf("the launcher measured %d MB for a child that holds no more than its own executable", peak>>20)
	}
	_ = held[len(held)-1]
}

// TestRunFails reports a command's failure with its output.
func TestRunFails(t *testing.T) {
	launcher := testenv.Build(t, Launcher)
	if _, _, err := Run(context.Background(), launcher, "false"); err == nil {
		t.Error("false succeeded")
	}
}

// TestFromDisk writes a file, so that all its pages are cached, and finds
// none cached after FromDisk.
func TestFromDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exe")
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, 8<<20), 0o755); err != nil {
		t.Fatal(err)
	}
	if n := cachedPages(t, path); n == 0 {
		t.Fatal("a file just written has no cached pages: cannot tell")
	}
	if err := FromDisk(path); err != nil {
		t.Fatal(err)
	}
	if n := cachedPages(t, path); n != 0 {
		t.Errorf("%d pages still cached after FromDisk", n)
	}
	if err := FromDisk(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("FromDisk of a missing file: %v", err)
	}
}

// cachedPages counts the file's pages in the page cache (mincore of a
// mapping that touches none of them).
func cachedPages(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
