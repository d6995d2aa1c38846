package app_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bundlectl/bundlectl/internal/contracttest"
	"github.com/bundlectl/bundlectl/internal/testenv"
)

// TestServeScripts runs testdata/script/serve*.txtar: `bundlectl serve`
// in the background (with --write-kubeconfig, waited for with `waitfile`)
// and `bundlectl shell`, with the real kubectl against them. Scripts start
// with `[!kubectl] skip`, which skips them in TestScripts (which does not
// know the condition or `waitfile`) and runs them here.
//
// The scripts see $EXAMPLE (the example bundle the repo ships), $HOME
// (a fresh folder, for kubectl's discovery cache) and `kubectl` on PATH.
// -update rewrites their golden files from what kubectl prints.
func TestServeScripts(t *testing.T) {
	root := contracttest.RepoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "testdata", "script", "serve*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no serve scripts: %v", err)
	}
	kubectl := testenv.Kubectl(t)
	bin := t.TempDir()
	if err := os.Symlink(kubectl, filepath.Join(bin, "kubectl")); err != nil {
		t.Fatal(err)
	}
	example := filepath.Join(root, "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	testscript.Run(t, testscript.Params{
		Files: files,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("EXAMPLE", example)
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "kubectl":
				return true, nil
			}
			return false, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile": waitFile,
		},
		RequireExplicitExec: true,
		UpdateScripts:       testenv.Update(),
	})
}

// waitFile waits for a file to appear: `waitfile FILE` waits up to 60s
// for the kubeconfig a background `bundlectl serve --write-kubeconfig
// FILE` writes once it serves.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not appear within 60s", args[0])
		}
	}
}
