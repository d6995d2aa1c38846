package localapiserver_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/localapiserver"
)

// fakeGo puts a `go` command first in PATH that "builds" a binary
// answering --version like the real ones, after delay, and logs each
// build (with its pid) to the returned file. Like the real etcd, the
// binary writes its version in several writes, the last one late, so a
// version check that stops reading early gets it killed by SIGPIPE.
func fakeGo(t *testing.T, delay string) (log string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the build script needs bash")
	}
	dir := t.TempDir()
	log = filepath.Join(dir, "builds.log")
	// The script reads the release's go.mod for its staging modules, and
	// looks for the generated OpenAPI code in its folder.
	mod := filepath.Join(dir, "kubernetes.mod")
	if err := os.WriteFile(mod, []byte("module k8s.io/kubernetes\n\nreplace k8s.io/api => ./staging/src/k8s.io/api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "kubernetes")
	openapi := filepath.Join(src, "pkg", "generated", "openapi")
	if err := os.MkdirAll(openapi, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(openapi, "zz_generated.openapi.go"), []byte("package openapi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/usr/bin/env bash
[[ "$1 $2 $3" == "mod download -json" ]] && { printf '{\n\t"Dir": "%s",\n\t"GoMod": "%s"\n}\n' ` + src + ` ` + mod + `; exit 0; }
[[ $1 == build ]] || exit 0
out=; v=none; while [[ $# -gt 0 ]]; do
	[[ $1 == -o ]] && out=$2
	[[ $1 == -ldflags && $2 =~ gitVersion=(v[0-9.]+) ]] && v=${BASH_REMATCH[1]}
	shift
done
echo "$$ $out" >>` + log + `
sleep ` + delay + `
printf '#!/bin/sh\necho "Kubernetes '$v'"\necho "etcd Version: ` + strings.TrimPrefix(localapiserver.EtcdVersion, "v") + `"\nsleep 0.2\necho "Go Version: fake"\n' >"$out"
chmod +x "$out"
`
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// Two builds into one cache at once: one builds, the other waits for it
// and finds the binaries; nothing half-written is left.
func TestConcurrentBuildsShareTheCache(t *testing.T) {
	log := fakeGo(t, "1")
	binDir := filepath.Join(t.TempDir(), "bin")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	outs := make([]bytes.Buffer, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = localapiserver.Build(context.Background(), binDir, localapiserver.Version, &outs[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("build %d: %v\n%s", i, err, outs[i].String())
		}
	}
	if _, err := localapiserver.FindBinaries(binDir, localapiserver.Version); err != nil {
		t.Error(err)
	}
	data, _ := os.ReadFile(log)
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("%d go builds, want 2 (kube-apiserver and etcd, once):\n%s", n, data)
	}
	entries, _ := os.ReadDir(binDir)
	for _, e := range entries {
		if name := e.Name(); name != "kube-apiserver" && name != "etcd" && name != ".build.lock" {
			t.Errorf("%s left in the cache", name)
		}
	}
}

// Cancelling a build stops the whole of it (the script and what it runs).
func TestCancelledBuildStopsEverything(t *testing.T) {
	log := fakeGo(t, "60")
	binDir := filepath.Join(t.TempDir(), "bin")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- localapiserver.Build(ctx, binDir, localapiserver.Version, nil) }()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, _ := os.ReadFile(log)
		if f := strings.Fields(string(data)); len(f) > 0 {
			pid, _ = strconv.Atoi(f[0])
		}
	}
	if pid == 0 || !alive(pid) {
		t.Fatalf("the fake go build did not start (pid %d)", pid)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Build: %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Build did not return after its context was cancelled")
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid) && !zombie(pid) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) && !zombie(pid) {
		t.Errorf("the build's go command (pid %d) still runs", pid)
	}
	if _, err := localapiserver.FindBinaries(binDir, localapiserver.Version); !errors.Is(err, localapiserver.ErrNotBuilt) {
		t.Errorf("after a cancelled build: %v", err)
	}
}
