package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder is a testing.TB whose Skip and Fatalf are recorded instead of
// ending the test that runs it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f with a recorder in a goroutine of its own, which Skip and
// Fatalf end.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestMissingSkipsOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	r := run(t, func(tb testing.TB) { Missing(tb, "no %s", "corpus") })
	if r.skipped != "no corpus" || r.failed != "" {
		t.Errorf("skipped %q, failed %q; want a skip", r.skipped, r.failed)
	}
}

func TestMissingFailsInCI(t *testing.T) {
	t.Setenv("CI", "true")
	r := run(t, func(tb testing.TB) { Missing(tb, "no %s", "corpus") })
	if r.failed != "no corpus (CI=true makes this a failure)" || r.skipped != "" {
		t.Errorf("skipped %q, failed %q; want a failure", r.skipped, r.failed)
	}
}

func TestLookPathMissing(t *testing.T) {
	t.Setenv("CI", "true")
	t.Setenv("PATH", t.TempDir())
	r := run(t, func(tb testing.TB) { LookPath(tb, "kubectl") })
	if r.failed == "" {
		t.Error("a missing kubectl did not fail with CI=true")
	}
}

// KubectlsEnv's clients are asked their version, and keyed by it.
func TestKubectlsFromEnv(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "kubectl")
	script := "#!/bin/sh\necho '{\"clientVersion\":{\"major\":\"1\",\"minor\":\"37+\"}}'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(KubectlsEnv, fake)
	got := Kubectls(t)
	if len(got) != 1 || got["1.37"] != fake {
		t.Errorf("Kubectls = %v, want 1.37: %s", got, fake)
	}
}
