//go:build linux

package app_test

import (
	"bytes"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// exampleBundle is the legacy example bundle the repo ships: serve
// upgrades it on load, and it holds pod logs.
func exampleBundle(t *testing.T) string {
	return filepath.Join(contracttest.RepoRoot(t), "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
}

// running is a bundlectl child process.
type running struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan struct{}
}

func start(t *testing.T, cmd *exec.Cmd) *running {
	t.Helper()
	r := &running{cmd: cmd, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	if cmd.Stderr == nil {
		cmd.Stderr = r.stderr
	}
	// A shell's command left running must not hold Wait on the pipe.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.done
	})
	return r
}

// wait waits for the process to end by itself; it fails the test if it
// has not within a minute, or if it died of a signal or a panic.
func (r *running) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still running a minute later:\n%s", what, r.stderr)
	}
	checkNoPanic(t, childResult{stderr: r.stderr.String()}, r.cmd.Args)
	if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Errorf("%s: killed by %v, without cleaning up:\n%s", what, ws.Signal(), r.stderr)
	}
}

// runKubeconfig waits for a serve run's kubeconfig in tmp (the run's
// folder, bundlectl-serve-*/kubeconfig), other than the one of a run
// before, and returns its path.
func runKubeconfig(t *testing.T, r *running, tmp string, before ...string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(filepath.Join(tmp, "bundlectl-serve-*", "kubeconfig"))
		matches = slices.DeleteFunc(matches, func(m string) bool { return slices.Contains(before, m) })
		if len(matches) == 1 {
			return matches[0]
		}
		select {
		case <-r.done:
			t.Fatalf("ended before serving:\n%s", r.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no kubeconfig in %s:\n%s", tmp, r.stderr)
	return ""
}

// checkEmpty fails the test when dir holds anything.
func checkEmpty(t *testing.T, what, dir string) {
	t.Helper()
	if left := dirNames(t, dir); len(left) != 0 {
		t.Errorf("%s left %v in %s", what, left, dir)
	}
}

// TestServeExits ends `bundlectl serve` of a legacy bundle with logs
// (upgraded on load) every way a process can be told to end from
// outside. Each time it ends by itself and leaves nothing in the
// temporary folder: not its kubeconfig with the token (nor the file
// --write-kubeconfig named), nor the upgraded bundle, nor a log. Only Ctrl-C and SIGTERM did; SIGHUP (a closed
// terminal), SIGQUIT and a closed output (`serve -v ... | head`) killed
// it on the spot.
func TestServeExits(t *testing.T) {
	example := exampleBundle(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			r := start(t, bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "serve", example))
			runKubeconfig(t, r, tmp)
			if err := r.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			r.wait(t, sig.String())
			checkEmpty(t, "serve ended by "+sig.String(), tmp)
		})
	}
	t.Run("SIGHUP with --write-kubeconfig", func(t *testing.T) {
		tmp, dir := t.TempDir(), t.TempDir()
		kubeconfig := filepath.Join(dir, "kubeconfig")
		r := start(t, bundlectlCmd(t, dir, []string{"TMPDIR=" + tmp}, "serve", "--write-kubeconfig", kubeconfig, example))
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(kubeconfig); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no kubeconfig:\n%s", r.stderr)
			}
		}
		r.cmd.Process.Signal(syscall.SIGHUP)
		r.wait(t, "SIGHUP")
		checkEmpty(t, "serve ended by SIGHUP", tmp)
		checkEmpty(t, "serve ended by SIGHUP", dir)
	})
	t.Run("closed stderr", func(t *testing.T) {
		// serve -v 2>&1 | head: a request's line finds no reader.
		tmp := t.TempDir()
		cmd := bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "serve", "-v", example)
		rd, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = wr
		r := start(t, cmd)
		wr.Close()
		go io.Copy(r.stderr, rd)
		kubeconfig := runKubeconfig(t, r, tmp)
		rd.Close()
		getWith(t, kubeconfig, "/api/v1/namespaces")
		r.wait(t, "closed stderr")
		checkEmpty(t, "serve with its standard error closed", tmp)
	})
	t.Run("closed stdout", func(t *testing.T) {
		// serve ... | head -1: head is gone when serve prints its summary.
		tmp := t.TempDir()
		cmd := bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "serve", example)
		rd, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		rd.Close()
		cmd.Stdout = wr
		r := start(t, cmd)
		wr.Close()
		r.wait(t, "closed stdout")
		if !strings.Contains(r.stderr.String(), "Upgraded ") {
			t.Errorf("ended before it loaded:\n%s", r.stderr)
		}
		checkEmpty(t, "serve with its standard output closed", tmp)
	})
}

// getWith sends one GET with the kubeconfig's credentials; it may fail
// (the server is going away): what matters is that it was asked.
func getWith(t *testing.T, kubeconfig, path string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := client.Get(cfg.Host + path); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}
}

// TestServeKilled: SIGKILL cannot be caught, so what serve writes under a
// name is only its kubeconfig, in the run's private folder (0700): the
// upgraded bundle is gone once loaded and the logs' spool never had a
// name. The next serve removes the folder, its owner being gone.
func TestServeKilled(t *testing.T) {
	example := exampleBundle(t)
	tmp := t.TempDir()
	r := start(t, bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "serve", example))
	kubeconfig := runKubeconfig(t, r, tmp)
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-r.done
	runDir := filepath.Dir(kubeconfig)
	if left := dirNames(t, tmp); len(left) != 1 || left[0] != filepath.Base(runDir) {
		t.Errorf("SIGKILL left %v in TMPDIR, want only the run's folder", left)
	}
	if left := dirNames(t, runDir); len(left) != 1 || left[0] != "kubeconfig" {
		t.Errorf("SIGKILL left %v in the run's folder, want only the kubeconfig", left)
	}
	if fi, err := os.Stat(runDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the run's folder: %v %v", fi.Mode(), err)
	}
	next := start(t, bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "serve", example))
	runKubeconfig(t, next, tmp, kubeconfig)
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("the next serve left the killed run's folder: %v", err)
	}
	next.cmd.Process.Signal(syscall.SIGINT)
	next.wait(t, "the next serve")
	checkEmpty(t, "the next serve", tmp)
}

// TestServeParentGone: serve (or shell) started by a process that then
// dies (a script killed, an IDE's test runner) stops and cleans up, where
// it served on, token and all, for nobody; shell tells its shell with
// SIGHUP. Under nohup serve was asked to outlive its parent, and does,
// SIGHUP ignored.
func TestServeParentGone(t *testing.T) {
	example := exampleBundle(t)
	for _, tc := range []struct {
		name    string
		command string
		nohup   bool
	}{
		{"serve", `bundlectl serve "$1"`, false},
		{"shell", `bundlectl shell "$1" -c 'exec sleep 600'`, false},
		{"serve under nohup", `bundlectl serve "$1"`, true},
	} {
		nohup := tc.nohup
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			trap := ""
			if nohup {
				trap = "trap '' HUP; "
			}
			// sh starts bundlectl in the background, says its pid, and
			// becomes a sleep that the test kills.
			parent := exec.Command("sh", "-c", trap+tc.command+` >/dev/null 2>&1 & echo $!; exec sleep 600`, "sh", example)
			parent.Env = append(os.Environ(), "TMPDIR="+tmp, "SHELL=/bin/sh")
			pid, serve := startChild(t, parent, "serve")
			alive := func() bool { return serve.Signal(syscall.Signal(0)) == nil && !zombie(pid) }
			deadline := time.Now().Add(2 * time.Minute)
			for {
				if m, _ := filepath.Glob(filepath.Join(tmp, "bundlectl-serve-*", "kubeconfig")); len(m) == 1 {
					break
				}
				if time.Now().After(deadline) || !alive() {
					t.Fatal("serve did not start")
				}
				time.Sleep(20 * time.Millisecond)
			}
			parent.Process.Kill()
			parent.Wait()
			if nohup {
				serve.Signal(syscall.SIGHUP)
				time.Sleep(3 * time.Second)
				if !alive() {
					t.Fatal("serve under nohup ended with its parent or on SIGHUP")
				}
				serve.Signal(syscall.SIGINT)
			}
			for deadline := time.Now().Add(time.Minute); alive(); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%s still runs a minute after its parent ended", tc.name)
				}
			}
			checkEmpty(t, tc.name+" whose parent ended", tmp)
		})
	}
}

// zombie says whether pid has ended but not been reaped (an orphan's end
// is reaped by init, which may take a moment).
func zombie(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// TestShellExits: `bundlectl shell` passes SIGTERM and SIGHUP on to the
// shell, kills a shell that does not end within its grace (one that
// ignored SIGTERM kept bundlectl serving for ever), and ends with it, as
// shells report a command a signal ended (128+n, where it exited 0),
// leaving nothing in the temporary folder. Ctrl-C (SIGINT) is the
// shell's to handle: it does not stop serving.
func TestShellExits(t *testing.T) {
	example := exampleBundle(t)
	for _, tc := range []struct {
		name    string
		command string
		signals []syscall.Signal
		code    int
	}{
		{"SIGTERM", "exec sleep 600", []syscall.Signal{syscall.SIGTERM}, 128 + 15},
		{"SIGHUP", "exec sleep 600", []syscall.Signal{syscall.SIGHUP}, 128 + 1},
		{"SIGINT then SIGTERM", "exec sleep 600", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, 128 + 15},
		{"a shell that ignores SIGTERM", "trap '' TERM; while :; do sleep 1; done", []syscall.Signal{syscall.SIGTERM}, 128 + 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			r := start(t, bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp, "SHELL=/bin/sh"}, "shell", example, "-c", tc.command))
			runKubeconfig(t, r, tmp)
			time.Sleep(500 * time.Millisecond) // the shell starts
			for i, sig := range tc.signals {
				if i > 0 {
					time.Sleep(2 * time.Second)
					select {
					case <-r.done:
						t.Fatalf("shell ended on %s:\n%s", tc.signals[i-1], r.stderr)
					default:
					}
				}
				r.cmd.Process.Signal(sig)
			}
			r.wait(t, tc.name)
			if code := r.cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, r.stderr)
			}
			checkEmpty(t, "shell ended by "+tc.name, tmp)
		})
	}
}

// TestUpgradeToClosedOutput: `upgrade OLD - | head -c 100` fails (its
// output was cut) and leaves nothing in the temporary folder, where the
// whole bundle was left there on every run.
func TestUpgradeToClosedOutput(t *testing.T) {
	tmp := t.TempDir()
	cmd := bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "upgrade", exampleBundle(t), "-")
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = wr
	r := start(t, cmd)
	wr.Close()
	head := make([]byte, 100)
	if _, err := io.ReadFull(rd, head); err != nil {
		t.Fatalf("the first 100 bytes: %v\n%s", err, r.stderr)
	}
	rd.Close()
	r.wait(t, "upgrade to a closed output")
	if r.cmd.ProcessState.Success() {
		t.Errorf("succeeded though its output was cut:\n%s", r.stderr)
	}
	checkEmpty(t, "upgrade to a closed output", tmp)
}

// TestUpgradeToStdoutKilled: `upgrade OLD -` keeps what it writes to
// standard output in a file of the temporary folder until it is
// complete; killed with SIGKILL meanwhile, it left the whole bundle
// there. The file has no name from its start: the temporary folder is
// empty whenever it is looked at, and once the upgrade is killed with
// the archive's first MiB written.
func TestUpgradeToStdoutKilled(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	old := filepath.Join(dir, contracttest.BundleRoot(contracttest.GeneratedAt)+".tar.gz")
	// Its upgrade is over 1 MiB, the output's buffer: the archive
	// reaches its file before it is complete.
	spec := contracttest.Small()
	spec.Pods = 4000
	if _, err := contracttest.WriteBundleFile(old, spec); err != nil {
		t.Fatal(err)
	}
	cmd := bundlectlCmd(t, dir, []string{"TMPDIR=" + tmp}, "upgrade", old, "-")
	cmd.Stdout = io.Discard
	r := start(t, cmd)
	pid := r.cmd.Process.Pid
	for deadline := time.Now().Add(time.Minute); !holdsTemp(pid, tmp, gzipStart); time.Sleep(2 * time.Millisecond) {
		select {
		case <-r.done:
			t.Fatalf("the upgrade ended before its output reached its file:\n%s", r.stderr)
		default:
		}
		if left := dirNames(t, tmp); len(left) != 0 {
			t.Fatalf("the temporary folder holds %v during the upgrade", left)
		}
		if time.Now().After(deadline) {
			t.Fatal("no output file within a minute")
		}
	}
	r.cmd.Process.Kill()
	<-r.done
	checkEmpty(t, "upgrade to standard output killed", tmp)
}

// TestUpgradeParentGone: an upgrade whose parent ended (here in a
// download that stalls) ends as Ctrl-C ends it, with no NEW and nothing
// in the temporary folder, where it waited on for nobody.
func TestUpgradeParentGone(t *testing.T) {
	// The download is a real bundle archive (what is none is refused
	// from its first bytes) that stalls halfway.
	archive := contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{
		{Name: "support-bundle-2025-11-20T10_00_00/cluster-resources/nodes.json", Body: `{"kind":"NodeList","apiVersion":"v1","items":[]}`},
	}))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
		w.Write(archive[:len(archive)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after the upgrade is killed, which may hold a connection
	dir, tmp := t.TempDir(), t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	parent := exec.Command("sh", "-c", `bundlectl upgrade --url-timeout 10m --certificate-authority "$1" "$2" new.tgz 2>upgrade.err & echo $!; exec sleep 600`, "sh", ca, srv.URL+"/b.tgz")
	parent.Dir, parent.Env = dir, append(os.Environ(), "TMPDIR="+tmp)
	pid, upgrade := startChild(t, parent, "upgrade")
	for deadline := time.Now().Add(time.Minute); !holdsTemp(pid, tmp, gzipStart); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no download within a minute")
		}
	}
	parent.Process.Kill()
	parent.Wait()
	for deadline := time.Now().Add(time.Minute); upgrade.Signal(syscall.Signal(0)) == nil && !zombie(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("upgrade still runs a minute after its parent ended")
		}
	}
	errText, _ := os.ReadFile(filepath.Join(dir, "upgrade.err"))
	if !strings.Contains(string(errText), "bundlectl: ") || strings.Contains(string(errText), "goroutine ") {
		t.Errorf("stderr:\n%s", errText)
	}
	if left := dirNames(t, dir); len(left) != 2 {
		t.Errorf("left beside NEW: %v", left)
	}
	checkEmpty(t, "upgrade whose parent ended", tmp)
}

// startChild starts parent, a shell that starts bundlectl in the
// background, prints its pid and stays (exec sleep), and returns
// bundlectl's pid and process; both are killed when t ends.
func startChild(t *testing.T, parent *exec.Cmd, what string) (int, *os.Process) {
	t.Helper()
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parent.Process.Kill(); parent.Wait() })
	var line [32]byte
	n, _ := out.Read(line[:])
	pid, err := strconv.Atoi(strings.TrimSpace(string(line[:n])))
	if err != nil {
		t.Fatalf("%s's pid: %q %v", what, line[:n], err)
	}
	p, _ := os.FindProcess(pid)
	t.Cleanup(func() { p.Kill() })
	return pid, p
}
