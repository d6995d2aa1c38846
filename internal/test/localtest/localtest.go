// Package localtest starts a local kube-apiserver (package
// internal/localapiserver) for one test, for the tests of other packages:
//
//	c := localtest.Start(t)
//	cfg, _ := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
//
// A start takes a few seconds. When kube-apiserver and etcd are not built,
// the test is skipped with the command that builds them, except in CI
// (CI=true), where they are built (several minutes, once per machine),
// because CI must not skip.
package localtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/conformance/cluster"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// Options are the local provider's, for StartWith: tests name them
// through this package, not internal/localapiserver.
type Options = localapiserver.Options

// Version is the Kubernetes release Start runs.
const Version = localapiserver.Version

// buildTimeout bounds a build made for a test in CI.
const buildTimeout = 30 * time.Minute

// RequireBinaries returns the folder holding kube-apiserver and etcd of
// the pinned release, for the default cache. Outside CI it skips the test
// when they are missing; with CI=true it builds them, and fails the test
// if that fails.
func RequireBinaries(t testing.TB) string {
	t.Helper()
	return RequireRelease(t, Version)
}

// RequireRelease is RequireBinaries for a release the local provider
// supports ("v1.31.14").
func RequireRelease(t testing.TB, version string) string {
	t.Helper()
	dir := localapiserver.BinDir(localapiserver.DefaultCacheDir(), version)
	_, err := localapiserver.FindBinaries(dir, version)
	if err == nil {
		return dir
	}
	if !errors.Is(err, localapiserver.ErrNotBuilt) {
		t.Fatal(err)
	}
	if !testenv.CI() {
		t.Skipf("kube-apiserver %s and etcd are not built in %s: run `%s` once (several minutes)",
			version, dir, localapiserver.BuildCommand(dir, version))
	}
	t.Logf("CI=true and kube-apiserver %s is not built in %s: building it", version, dir)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	w := &logWriter{t: t}
	if err := localapiserver.Build(ctx, dir, version, w); err != nil {
		w.flush()
		t.Fatal(err)
	}
	w.flush()
	if _, err := localapiserver.FindBinaries(dir, version); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Start starts a local cluster with the default options for the test and
// deletes it when the test ends.
func Start(t testing.TB) *cluster.Cluster {
	t.Helper()
	_, c := StartWith(t, localapiserver.Options{})
	return c
}

// StartWith starts a local cluster with opts (binaries of
// opts.KubeVersion, default the pinned release, from the default cache
// unless opts says otherwise) and deletes it when the test ends. If the
// test failed, the end of kube-apiserver's log is logged first.
func StartWith(t testing.TB, opts localapiserver.Options) (*localapiserver.Provider, *cluster.Cluster) {
	t.Helper()
	if opts.BinDir == "" && opts.CacheDir == "" {
		r, err := localapiserver.LookupRelease(opts.KubeVersion)
		if err != nil {
			t.Fatal(err)
		}
		opts.BinDir = RequireRelease(t, r.Version)
	}
	opts.NoBuild = true
	p := localapiserver.New(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := p.Create(ctx)
	if err != nil {
		t.Fatalf("starting the local kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			_, apiLog := p.LogFiles()
			if data, err := os.ReadFile(apiLog); err == nil {
				t.Logf("the end of %s:\n%s", apiLog, lastLines(string(data), 30))
			}
		}
		if err := p.Delete(context.Background()); err != nil {
			t.Errorf("stopping the local kube-apiserver: %v", err)
		}
	})
	return p, c
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// logWriter passes the build's output to t.Log line by line.
type logWriter struct {
	t   testing.TB
	buf []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.t.Log(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

func (w *logWriter) flush() {
	if len(w.buf) > 0 {
		w.t.Log(string(w.buf))
		w.buf = nil
	}
}
