package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/contracttest"
	"github.com/bundlectl/bundlectl/internal/testenv"
)

// k9sBinary is the k9s TestK9s drives: BUNDLECTL_K9S names it ("1" for
// the one scripts/k9s.sh builds into ~/.cache/bundlectl/k9s). The test is
// opt-in (make k9s): k9s is built from the module proxy, minutes of both
// cores.
func k9sBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("BUNDLECTL_K9S")
	switch bin {
	case "":
		t.Skip("set BUNDLECTL_K9S=1 or the path of a k9s binary (make k9s)")
	case "1":
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(home, ".cache", "bundlectl", "k9s", "v0.50.16", "k9s")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("k9s: %v (scripts/k9s.sh builds it)", err)
	}
	return bin
}

// k9sSession is k9s running in a detached tmux session of its own tmux
// server, 200x50, against a served bundle.
type k9sSession struct {
	t      *testing.T
	socket string
}

func startK9s(t *testing.T, bin, kubeconfig string, args ...string) *k9sSession {
	t.Helper()
	tmux := testenv.LookPath(t, "tmux")
	dir := t.TempDir()
	s := &k9sSession{t: t, socket: filepath.Join(dir, "tmux.sock")}
	env := []string{"KUBECONFIG=" + kubeconfig, "HOME=" + dir, "TERM=xterm-256color", "PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	// No look-up of k9s's latest release: the test runs offline.
	if err := os.MkdirAll(filepath.Join(dir, "config", "k9s"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "k9s", "config.yaml"), []byte("k9s:\n  skipLatestRevCheck: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shell := "env -i " + strings.Join(env, " ") + " " + bin + " " + strings.Join(args, " ")
	cmd := exec.Command(tmux, "-S", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "k9s", shell)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", s.socket, "kill-server").Run() })
	return s
}

func (s *k9sSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends keys as tmux send-keys names them ("Enter", "Escape").
func (s *k9sSession) keys(keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "k9s"}, keys...)...)
}

// command types a k9s command (":pods") and waits for its view.
func (s *k9sSession) command(cmd string, want ...string) string {
	s.t.Helper()
	s.keys(":")
	time.Sleep(300 * time.Millisecond)
	s.keys("-l", cmd)
	s.keys("Enter")
	return s.waitFor(":"+cmd, want...)
}

// waitFor waits until the screen shows every string of want, and fails
// with the screen when it does not within 30 s.
func (s *k9sSession) waitFor(what string, want ...string) string {
	s.t.Helper()
	var screen string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		screen = s.tmux("capture-pane", "-p", "-t", "k9s")
		if missing(screen, want) == nil {
			return screen
		}
	}
	s.t.Fatalf("%s: the screen lacks %q:\n%s", what, missing(screen, want), screen)
	return ""
}

func missing(screen string, want []string) []string {
	var out []string
	for _, w := range want {
		if !strings.Contains(screen, w) {
			out = append(out, w)
		}
	}
	return out
}

// lineOf is the screen line that holds s.
func lineOf(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestK9s drives k9s against the served 2025 baseline: the pods,
// deployments, events and nodes views list the bundle's objects, with the
// CPU and memory of its node metrics; describe and YAML open on a pod;
// and, on the 2022 bundle, whose pods have logs, the logs view shows a
// container's log.
func TestK9s(t *testing.T) {
	bin := k9sBinary(t)
	corpus := contracttest.CorpusDir(t)
	t.Run("baseline-2025", func(t *testing.T) {
		kubeconfig, _ := serveCorpusForTest(t, filepath.Join(corpus, "troubleshoot-baseline-v0.123.14-2025-12/baseline.tar.gz"))
		s := startK9s(t, bin, kubeconfig, "--readonly", "-A", "-c", "pods")
		// coredns: usageNanoCores 5793912 -> 6m, workingSetBytes
		// 14745600 -> 14Mi (k9s's pods view prints millicores and MiB).
		screen := s.waitFor("pods view", "coredns-56f6fc8fd7-p4x9z", "metrics-server-5985cbc9d7-9jgk6", "traefik-57b79cf995-qn4jm")
		if row := strings.Fields(lineOf(screen, "coredns-56f6fc8fd7-p4x9z")); !containsAll(row, "6", "14") {
			t.Errorf("pods view: coredns's CPU and MEM are not 6 and 14:\n%s", screen)
		}
		s.command("deployments", "coredns", "local-path-provisioner", "metrics-server", "traefik")
		s.command("events", "primary-node", "Starting")
		// primary-node: usageNanoCores 45418338 -> 46m, workingSetBytes
		// 737718272 -> 703Mi.
		screen = s.command("nodes", "primary-node")
		if row := strings.Fields(lineOf(screen, "primary-node")); !containsAll(row, "46", "703") {
			t.Errorf("nodes view: primary-node's CPU and MEM are not 46 and 703:\n%s", screen)
		}
		s.command("pods", "coredns-56f6fc8fd7-p4x9z")
		s.keys("/")
		s.keys("-l", "coredns")
		s.keys("Enter")
		s.waitFor("filter", "coredns-56f6fc8fd7-p4x9z")
		s.keys("d")
		s.waitFor("describe", "Describe(kube-system/coredns-56f6fc8fd7-p4x9z)", "Controlled By:", "ReplicaSet/coredns-56f6fc8fd7")
		s.keys("Escape")
		s.waitFor("back from describe", "coredns-56f6fc8fd7-p4x9z")
		s.keys("y")
		s.waitFor("yaml", "YAML", "apiVersion: v1", "kind: Pod", "name: coredns-56f6fc8fd7-p4x9z")
		s.keys("Escape")
	})
	t.Run("logs-2022", func(t *testing.T) {
		kubeconfig, _ := serveCorpusForTest(t, filepath.Join(corpus, "troubleshoot-testdata-v0.50.0-2022-12/support-bundle.tar.gz"))
		s := startK9s(t, bin, kubeconfig, "--readonly", "-n", "kube-system", "-c", "pods")
		s.waitFor("pods view", "coredns-b96499967-tncf4")
		s.keys("/")
		s.keys("-l", "coredns")
		s.keys("Enter")
		s.waitFor("filter", "coredns-b96499967-tncf4")
		s.keys("l")
		want := firstLogLine(t, filepath.Join(corpus, "troubleshoot-testdata-v0.50.0-2022-12/support-bundle.tar.gz"), "kube-system/coredns-b96499967-tncf4/coredns.log")
		s.waitFor("logs", want)
	})
}

func containsAll(fields []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, f := range fields {
			found = found || f == w
		}
		if !found {
			return false
		}
	}
	return true
}

// firstLogLine is the start of a log's first line, as the bundle holds it.
func firstLogLine(t *testing.T, bundle, log string) string {
	t.Helper()
	out, err := exec.Command("tar", "-xzOf", bundle, "support-bundle/cluster-resources/pods/logs/"+log).Output()
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	if len(line) > 60 {
		line = line[:60]
	}
	if line == "" {
		t.Fatal(fmt.Errorf("%s is empty", log))
	}
	return line
}
