package peakrss

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// FromDisk drops an executable's pages from the page cache, so that the
// next run reads it from disk as any installed binary is read, and the
// runs after it find it cached the same way.
//
// Without it a run's peak depends on how the file came into the page
// cache: on Linux 6.18 (ext4, large folios) `bundlectl` just written by the
// linker keeps 54-57 MB resident where the same bytes read from disk keep
// 46-47 MB (read-only data mapped a whole folio at a time), and that
// difference moves with the age of the build, not with the code measured.
func FromDisk(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Dirty pages are not dropped: write them first.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("%s: dropping its cached pages: %w", path, err)
	}
	return nil
}
