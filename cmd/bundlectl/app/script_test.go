package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
	"github.com/bundlectl/bundlectl/internal/contracttest"
	"github.com/bundlectl/bundlectl/internal/testenv"
)

// TestMain lets testscript run `bundlectl` in process: the scripts call the
// same Main as the binary, with real argument parsing and exit codes.
func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"bundlectl": func() int {
			code := app.Main(os.Args[1:], app.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
			reportPeakRSS()
			return code
		},
	}))
}

// TestScripts runs testdata/script/*.txtar. $CORPUS is the folder of real
// bundles; scripts that need it start with `[!corpus] skip`, and in CI the
// corpus is required, so nothing is skipped there.
func TestScripts(t *testing.T) {
	root := contracttest.RepoRoot(t)
	corpus := ""
	if testenv.CI() || hasCorpus(root) {
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

// peakFileEnv names the file a bundlectl child writes its own peak RSS
// to as it ends. The kernel's rusage cannot tell it: Go starts a child
// with vfork, sharing the parent's memory until exec, and Linux records
// the parent's peak at that exec as the child's, so a test binary that
// has used 250 MB would see every child peak at 250 MB.
const peakFileEnv = "BUNDLECTL_TEST_PEAK_FILE"

// reportPeakRSS writes VmHWM of /proc/self/status ("123456 kB") to the
// file peakFileEnv names, when it is set and the system has /proc.
func reportPeakRSS() {
	path := os.Getenv(peakFileEnv)
	if path == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			os.WriteFile(path, []byte(strings.TrimSpace(v)), 0o600)
			return
		}
	}
}
