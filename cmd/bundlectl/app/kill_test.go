//go:build linux

package app_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// TestUpgradeKilled kills `bundlectl upgrade` of a generated bundle at
// several points, with SIGKILL (nothing can clean up), SIGINT (Ctrl-C)
// and the other signals that tell a process to end (SIGTERM, SIGHUP of a
// closed terminal, SIGQUIT), which end it as Ctrl-C does. Whenever it
// stops, OLD is unchanged and NEW does not exist. A signal it catches
// leaves nothing at all; SIGKILL leaves at most the one hidden partial
// file beside NEW (.NEW.tmp-*) and nothing in the temporary folder: the
// spool of a table has no name. An upgrade run afterwards gives a
// complete NEW.
func TestUpgradeKilled(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, contracttest.BundleRoot(contracttest.GeneratedAt)+".tar.gz")
	// Lists of 1,000 pods (over 4 MB) have their tables spooled; the
	// upgrade takes a couple of seconds on two cores.
	spec := contracttest.BundleSpec{Pods: 4000, Namespaces: 4, Deployments: 50, Nodes: 10, Events: 1000,
		LogBytesPerPod: 4096, CollectedAt: contracttest.GeneratedAt, Seed: 1}
	if _, err := contracttest.WriteBundleFile(old, spec); err != nil {
		t.Fatal(err)
	}
	oldSum := fileSum(t, old)
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		t.Fatal(err)
	}
	newPath := filepath.Join(out, "new.tar.gz")
	partial := func() string {
		for _, n := range dirNames(t, out) {
			if strings.HasPrefix(n, ".new.tar.gz.tmp-") {
				return filepath.Join(out, n)
			}
		}
		return ""
	}
	size := func(p string) int64 {
		if fi, err := os.Stat(p); err == nil {
			return fi.Size()
		}
		return -1
	}
	for _, tc := range []struct {
		name   string
		signal syscall.Signal
		// when says, polled every few milliseconds, that the moment has come.
		when func(pid int, tmp string) bool
	}{
		{"SIGKILL while reading OLD", syscall.SIGKILL, func(int, string) bool { return true }},
		{"SIGKILL once NEW's file exists", syscall.SIGKILL, func(int, string) bool { return partial() != "" }},
		{"SIGKILL while a table is spooled", syscall.SIGKILL, func(pid int, tmp string) bool { return holdsTemp(pid, tmp, tableStart) }},
		{"SIGKILL at 1 MiB", syscall.SIGKILL, func(int, string) bool { return size(partial()) >= 1<<20 }},
		{"SIGINT once NEW's file exists", syscall.SIGINT, func(int, string) bool { return partial() != "" }},
		{"SIGINT at 1 MiB", syscall.SIGINT, func(int, string) bool { return size(partial()) >= 1<<20 }},
		{"SIGTERM at 1 MiB", syscall.SIGTERM, func(int, string) bool { return size(partial()) >= 1<<20 }},
		{"SIGHUP at 1 MiB", syscall.SIGHUP, func(int, string) bool { return size(partial()) >= 1<<20 }},
		{"SIGQUIT at 1 MiB", syscall.SIGQUIT, func(int, string) bool { return size(partial()) >= 1<<20 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := bundlectlCmd(t, out, []string{"TMPDIR=" + tmp}, "upgrade", old, newPath)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			fired := false
		poll:
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
				select {
				case <-done:
					break poll
				default:
				}
				if tc.when(cmd.Process.Pid, tmp) {
					cmd.Process.Signal(tc.signal)
					fired = true
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			<-done
			if !fired {
				t.Fatalf("the upgrade ended (exit %d) before the moment came:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
			}
			checkNoPanic(t, childResult{stderr: stderr.String()}, cmd.Args)
			if cmd.ProcessState.Success() {
				t.Fatalf("the upgrade succeeded after %s", tc.signal)
			}
			if fileSum(t, old) != oldSum {
				t.Fatal("OLD changed")
			}
			if _, err := os.Lstat(newPath); !os.IsNotExist(err) {
				t.Errorf("NEW exists: %v", err)
			}
			left := dirNames(t, out)
			caught := tc.signal != syscall.SIGKILL
			switch {
			case caught && len(left) != 0:
				t.Errorf("%s left %v beside NEW", tc.signal, left)
			case len(left) > 1 || len(left) == 1 && !strings.HasPrefix(left[0], ".new.tar.gz.tmp-"):
				t.Errorf("SIGKILL left %v beside NEW, want at most one .new.tar.gz.tmp-*", left)
			}
			if left := dirNames(t, tmp); len(left) != 0 {
				t.Errorf("left in the temporary folder: %v", left)
			}
			if p := partial(); p != "" {
				os.Remove(p) // each kill is judged on its own
			}
			if caught && !strings.Contains(stderr.String(), "bundlectl: ") {
				t.Errorf("no error after %s:\n%s", tc.signal, stderr.String())
			}
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); caught && ws.Signaled() {
				t.Errorf("killed by %s without cleaning up", ws.Signal())
			}
		})
	}
	r := runBundlectl(t, out, []string{"TMPDIR=" + t.TempDir()}, "upgrade", old, newPath)
	if r.code != 0 {
		t.Fatalf("the upgrade after the kills: exit %d\n%s", r.code, r.stderr)
	}
	upgraded := entrySums(t, newPath)
	for _, e := range entrySums(t, old) {
		if !slices.Contains(upgraded, e) {
			t.Errorf("%s is not in NEW unchanged", e)
		}
	}
}

// holdsTemp says whether a process holds open a file of the folder dir
// that has no name there (" (deleted)", as O_TMPFILE's are from their
// start) and whose content starts with start: a table being spooled
// (tableStart), a download's spool or the archive held for standard
// output (gzipStart). The content tells the files apart, where their
// names no longer can.
func holdsTemp(pid int, dir, start string) bool {
	fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fd", "*"))
	return slices.ContainsFunc(fds, func(fd string) bool {
		target, err := os.Readlink(fd)
		if err != nil || filepath.Dir(target) != dir || !strings.HasSuffix(target, " (deleted)") {
			return false
		}
		f, err := os.Open(fd) // the open file itself, though nameless
		if err != nil {
			return false
		}
		defer f.Close()
		head := make([]byte, len(start))
		_, err = io.ReadFull(f, head)
		return err == nil && string(head) == start
	})
}

// The starts of a table (as the upgrade writes it) and of a gzip stream.
const (
	tableStart = `{"kind":"Table"`
	gzipStart  = "\x1f\x8b"
)
