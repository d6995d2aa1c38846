//go:build unix

package app_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

// bundlectlCmd runs bundlectl as a child process: the test binary
// itself, which TestMain runs as bundlectl when its argv[0] is
// "bundlectl". Signals, exit codes, peak memory and files left behind
// are those of the real command.
func bundlectlCmd(t testing.TB, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	peak := peakFileEnv + "=" + filepath.Join(t.TempDir(), "peak-rss")
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"bundlectl"}, args...), Dir: dir, Env: append(append(os.Environ(), env...), peak)}
	return cmd
}

// childResult is what a finished child did.
type childResult struct {
	code           int
	stdout, stderr string
	peakRSS        int64 // bytes
}

// runBundlectl runs bundlectl to its end.
func runBundlectl(t testing.TB, dir string, env []string, args ...string) childResult {
	t.Helper()
	cmd := bundlectlCmd(t, dir, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("bundlectl %s: %v", strings.Join(args, " "), err)
	}
	r := childResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), peakRSS: peakRSS(cmd)}
	checkNoPanic(t, r, args)
	return r
}

// checkNoPanic fails the test when a child died of a panic or a fatal
// runtime error (exit status 2 with a goroutine dump), or of a signal it
// was not sent.
func checkNoPanic(t testing.TB, r childResult, args []string) {
	t.Helper()
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "fatal error:") || strings.Contains(r.stderr, "goroutine ") {
		t.Errorf("bundlectl %s crashed:\n%s", strings.Join(args, " "), r.stderr)
	}
}

// peakRSS is a finished child's peak resident set size in bytes: what it
// reported itself (see peakFileEnv), else its rusage, which counts the
// test binary's own peak too.
func peakRSS(cmd *exec.Cmd) int64 {
	for _, kv := range cmd.Env {
		if path, ok := strings.CutPrefix(kv, peakFileEnv+"="); ok {
			if data, err := os.ReadFile(path); err == nil {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(string(data), " kB"), 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss
	}
	return ru.Maxrss * 1024
}

// entrySums lists every entry of a bundle as "name type sha256", sorted:
// the same multiset for two bundles means the same entries, duplicates
// included.
func entrySums(t testing.TB, path string) []string {
	t.Helper()
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out []string
	err = b.Walk(func(e *contract.Entry) error {
		h := sha256.New()
		if _, err := io.Copy(h, e.Reader()); err != nil {
			return err
		}
		typ := e.Header.Typeflag
		if typ == 0 {
			typ = '0'
		}
		out = append(out, fmt.Sprintf("%s %c %s %s", e.Name, typ, e.Header.Linkname, hex.EncodeToString(h.Sum(nil))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// fileSum hashes a file.
func fileSum(t testing.TB, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dirNames lists a folder's entries.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
