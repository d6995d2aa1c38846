package gomod

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRequire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "go.mod")
	if err := os.WriteFile(path, []byte("module x\n\ngo 1.26.0\n\nrequire (\n\ta.example/b v1.2.3\n\tc.example/d v0.1.0 // indirect\n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for module, want := range map[string]string{"a.example/b": "v1.2.3", "c.example/d": "v0.1.0"} {
		if got, err := Require(path, module); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %s", module, got, err, want)
		}
	}
	if _, err := Require(path, "e.example/f"); err == nil {
		t.Error("a module go.mod does not require was found")
	}
	if _, err := Require(filepath.Join(t.TempDir(), "go.mod"), "a.example/b"); err == nil {
		t.Error("a missing go.mod was read")
	}
}
