package app_test

import (
	"crypto/subtle"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestMain lets testscript run `bundlectl` in process: the scripts call the
// same Main as the binary, with real argument parsing and exit codes.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "bundlectl" {
		catchIgnoredHangup()
	}
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"bundlectl": func() int {
			code := app.Main(os.Args[1:], app.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
			reportPeakRSS()
			return code
		},
	}))
}

// catchIgnoredHangup: where the tests run with SIGHUP ignored (under
// nohup), the bundlectl they start would inherit that and, as nohup asks,
// outlive a hangup, which the tests of SIGHUP send. A caught signal,
// unlike an ignored one, is reset to its default when a child is
// executed: caught and dropped here, SIGHUP still does not end the tests,
// and ends their bundlectl as it ends a user's.
func catchIgnoredHangup() {
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

// TestScripts runs testdata/script/*.txtar, every script of bundlectl's
// command line, with one testscript.Run. The scripts see $CORPUS (the
// folder of real bundles), $EXAMPLE (the example bundle the repo ships),
// $HOME (a fresh folder, for kubectl's discovery cache) and the kubectl
// the tests run first on PATH. Conditions: [corpus] and [kubectl]; a
// script that needs one starts with `[!corpus] skip` or `[!kubectl] skip`,
// and in CI (CI=true) neither may be missing, so nothing is skipped there.
// `waitfile FILE` waits for the kubeconfig a background `bundlectl serve
// --write-kubeconfig FILE` writes once it serves; `httpserve` serves a
// file over HTTPS from the test process. go test -update
// rewrites the scripts' golden files from what the commands print.
func TestScripts(t *testing.T) {
	root := contracttest.RepoRoot(t)
	corpus := ""
	if testenv.CI() || hasCorpus(root) {
		corpus = contracttest.CorpusDir(t)
	}
	kubectl := testenv.FindKubectl()
	bin := t.TempDir()
	if kubectl != "" {
		if err := os.Symlink(kubectl, filepath.Join(bin, "kubectl")); err != nil {
			t.Fatal(err)
		}
	}
	example := filepath.Join(root, "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORPUS", corpus)
			env.Setenv("EXAMPLE", example)
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				return corpus != "", nil
			case "kubectl":
				if kubectl == "" && testenv.CI() {
					return false, fmt.Errorf("no kubectl in %s or on PATH (CI=true makes this a failure)", testenv.KubectlDir)
				}
				return kubectl != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitfile":  waitFile,
			"httpserve": httpServe,
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       testenv.Update(),
	})
}

func hasCorpus(root string) bool {
	_, err := os.Stat(filepath.Join(root, "..", "shared", "bundles", "SOURCES.md"))
	return err == nil || os.Getenv(testenv.CorpusEnv) != ""
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

// httpServe serves a file over HTTPS from the test process until the
// script ends: `httpserve [-token TOKEN] FILE` sets $URL to the file's
// URL, $SERVER to the server's (any other path is 404 Not Found) and $CA
// to a PEM file of the server's certificate, for --certificate-authority.
// With -token a request without "Authorization: Bearer TOKEN" is 401
// Unauthorized. Each request is appended to $WORK/httpserve.log (method,
// path and query, and whether it carried the token), for scripts that
// check what reached the server.
func httpServe(ts *testscript.TestScript, neg bool, args []string) {
	token := ""
	if len(args) == 3 && args[0] == "-token" {
		token, args = args[1], args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpserve [-token TOKEN] FILE")
	}
	file := ts.MkAbs(args[0])
	name := "/" + filepath.Base(file)
	log, err := os.Create(ts.MkAbs("httpserve.log"))
	ts.Check(err)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		authorized := subtle.ConstantTimeCompare([]byte(auth), []byte("Bearer "+token)) == 1
		fmt.Fprintf(log, "%s %s token=%t\n", r.Method, r.URL.RequestURI(), authorized && token != "")
		switch {
		case token != "" && !authorized:
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case r.URL.Path != name:
			http.NotFound(w, r)
		default:
			http.ServeFile(w, r, file)
		}
	}))
	ts.Defer(func() {
		srv.Close()
		log.Close()
	})
	ca := ts.MkAbs("httpserve-ca.pem")
	ts.Check(os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	ts.Setenv("SERVER", srv.URL)
	ts.Setenv("URL", srv.URL+name)
	ts.Setenv("CA", ca)
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
