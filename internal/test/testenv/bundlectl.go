package testenv

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// Bundlectl is the bundlectl executable a test runs as a user would:
// BinEnv (the Makefile's build), or one built for the test.
func Bundlectl(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(BinEnv); p != "" {
		return p
	}
	return Build(t, "github.com/bundlectl/bundlectl/cmd/bundlectl")
}

// Build builds the command pkg into the test's temporary folder and
// returns the executable's path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), path.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, b)
	}
	return out
}
