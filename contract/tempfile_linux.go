package contract

import (
	"os"

	"golang.org/x/sys/unix"
)

// openNameless opens a new file in dir that has no name (open(2),
// O_TMPFILE): it is gone once its last descriptor is closed. Filesystems
// without O_TMPFILE refuse it, and TempFile then names and removes one.
func openNameless(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDWR|unix.O_TMPFILE, 0o600)
}
