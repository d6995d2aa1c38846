//go:build unix

package app

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeEndClosed says whether f is a pipe or socket whose reader is gone:
// poll reports an error or a hang-up on it. Through SyscallConn, since
// Fd would put the file in blocking mode.
func writeEndClosed(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	rc.Control(func(fd uintptr) {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		if n, err := unix.Poll(p, 0); err == nil && n > 0 {
			closed = p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		}
	})
	return closed
}
