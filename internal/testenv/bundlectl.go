package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Bundlectl is the bundlectl executable a test runs as a user would:
// BUNDLECTL_BIN (the Makefile's build), or one built for the test.
func Bundlectl(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("BUNDLECTL_BIN"); p != "" {
		return p
	}
	out := filepath.Join(t.TempDir(), "bundlectl")
	cmd := exec.Command("go", "build", "-o", out, "github.com/bundlectl/bundlectl/cmd/bundlectl")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building bundlectl: %v\n%s", err, b)
	}
	return out
}
