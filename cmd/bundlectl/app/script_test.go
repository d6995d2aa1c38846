package app_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
	"github.com/bundlectl/bundlectl/contract/contracttest"
)

// TestMain lets testscript run `bundlectl` in process: the scripts call the
// same Main as the binary, with real argument parsing and exit codes.
func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"bundlectl": func() int {
			return app.Main(os.Args[1:], app.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
		},
	}))
}

// TestScripts runs testdata/script/*.txtar. $CORPUS is the folder of real
// bundles; scripts that need it start with `[!corpus] skip`, and in CI the
// corpus is required, so nothing is skipped there.
func TestScripts(t *testing.T) {
	root := contracttest.RepoRoot(t)
	corpus := ""
	if os.Getenv("CI") == "true" || hasCorpus(root) {
		corpus = contracttest.CorpusDir(t)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(root, "testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORPUS", corpus)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				return corpus != "", nil
			}
			return false, nil
		},
		RequireExplicitExec: true,
	})
}

func hasCorpus(root string) bool {
	_, err := os.Stat(filepath.Join(root, "..", "shared", "bundles", "SOURCES.md"))
	return err == nil || os.Getenv("BUNDLECTL_CORPUS") != ""
}
