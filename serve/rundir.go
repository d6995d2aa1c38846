package serve

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// What a run must write under a name (the kubeconfig, and a legacy
// bundle's upgraded copy while it loads) goes to the run's private folder
// (0700) in the temporary folder, named after the process that made it:
// bundlectl-serve-<owner>-<random>. Run removes it however it returns,
// the command layer turning every signal it can catch into a return;
// after SIGKILL, which nothing catches, the next run removes it once its
// owner is gone. The owner is the pid and, where the system tells it
// (Linux's /proc/<pid>/stat), the process's start time, so that a pid
// used again by another process is not taken for the owner.

const runDirPrefix = "bundlectl-serve-"

// newRunDir removes the folders of runs that are gone, then makes this
// run's.
func newRunDir() (string, error) {
	sweepRunDirs(os.TempDir())
	return os.MkdirTemp("", runDirPrefix+processTag(os.Getpid())+"-*")
}

// sweepRunDirs removes the run folders in tmp whose owner is gone. What
// it cannot remove (another user's) stays; a link is never followed.
func sweepRunDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), runDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		if tag, _, ok := strings.Cut(rest, "-"); ok && !running(tag) {
			os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}

// processTag names a running process: "<pid>.<start time>", or "<pid>"
// where the start time cannot be read.
func processTag(pid int) string {
	id := strconv.Itoa(pid)
	data, err := os.ReadFile("/proc/" + id + "/stat")
	if err != nil {
		return id
	}
	// The fields after the command name, which is in parentheses and may
	// hold anything: the state is the first, the start time the 20th.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 20 {
		return id
	}
	return id + "." + fields[19]
}

// running says whether the process a tag names still runs. A tag that is
// not one of processTag's is taken as running: its folder is not ours.
func running(tag string) bool {
	id, _, hasStart := strings.Cut(tag, ".")
	pid, err := strconv.Atoi(id)
	if err != nil || pid <= 0 {
		return true
	}
	if hasStart {
		return processTag(pid) == tag
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH)
}
