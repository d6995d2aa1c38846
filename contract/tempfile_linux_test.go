package contract_test

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"golang.org/x/sys/unix"
)

// TestTempFileNameless: on Linux a temporary file has no name from its
// start (O_TMPFILE), so a process killed at any moment leaves nothing in
// the temporary folder; it is written and read back through its
// descriptor.
func TestTempFileNameless(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if fd, err := unix.Open(tmp, unix.O_TMPFILE|unix.O_RDWR, 0o600); err != nil {
		// Overlayfs before Linux 6.6, NFS: TempFile removes its file
		// right after making it instead.
		t.Skipf("the temporary folder's filesystem has no O_TMPFILE: %v", err)
	} else {
		unix.Close(fd)
	}
	f, name, err := contract.TempFile("bundlectl-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if name != "" {
		t.Errorf("name %q, want none", name)
	}
	if entries, err := os.ReadDir(tmp); err != nil || len(entries) != 0 {
		t.Errorf("the temporary folder holds %v (%v)", entries, err)
	}
	target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	// The kernel shows a file that never had a name as "#INODE (deleted)",
	// one that was removed by its name.
	if filepath.Dir(target) != tmp || !strings.HasPrefix(filepath.Base(target), "#") || !strings.HasSuffix(target, " (deleted)") {
		t.Errorf("the file is %q, want one of %s that never had a name", target, tmp)
	}
	if _, err := f.WriteString("spooled"); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.NewSectionReader(f, 0, 100))
	if err != nil || string(got) != "spooled" {
		t.Errorf("read back %q (%v)", got, err)
	}
}
