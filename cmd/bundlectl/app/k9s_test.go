package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// k9sBinary is the k9s TestK9s drives: testenv.K9sEnv names it ("1" for
// the one scripts/k9s.sh builds into ~/.cache/bundlectl/k9s). The test is
// opt-in (make k9s): k9s is built from the module proxy, minutes of both
// cores.
func k9sBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(testenv.K9sEnv)
	switch bin {
	case "":
		t.Skip("set " + testenv.K9sEnv + "=1 or the path of a k9s binary (make k9s)")
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
	// The view's title ("nodes(all)[1]") tells that the view changed.
	return s.waitFor(":"+cmd, append([]string{cmd + "("}, want...)...)
}

// filter narrows the current view to the rows matching text ("/" then
// the text) and waits until the row named selected shows.
func (s *k9sSession) filter(text, selected string) {
	s.t.Helper()
	s.keys("/")
	s.keys("-l", text)
	s.keys("Enter")
	s.waitFor("filter", selected)
}

// back leaves a describe or YAML view for the pods view it was opened
// from. A lone Escape is the start of a key sequence to a terminal
// until nothing follows, so the screen is polled, Escape sent again,
// until the pods view's title shows.
func (s *k9sSession) back() {
	s.t.Helper()
	for range 10 {
		s.keys("Escape")
		time.Sleep(time.Second)
		if strings.Contains(s.tmux("capture-pane", "-p", "-t", "k9s"), "pods(") {
			return
		}
	}
	s.waitFor("back to the pods view", "pods(")
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

// cell is the column col of the table row whose first cells hold key,
// read from the screen by the header line's words (k9s's cells hold no
// spaces where these tests read them; "↑" marks the sort column).
func cell(screen, key, col string) string {
	var header []string
	for _, l := range strings.Split(screen, "\n") {
		fields := strings.Fields(strings.ReplaceAll(l, "│", " "))
		if len(fields) > 1 && (strings.HasPrefix(fields[0], "NAME") || fields[0] == "NAMESPACE↑") && header == nil {
			header = fields
			continue
		}
		if header == nil || len(fields) != len(header) || !slices.Contains(fields[:2], key) {
			continue
		}
		for i, h := range header {
			if strings.TrimRight(h, "↑↓") == col {
				return fields[i]
			}
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
		if cpu, mem := cell(screen, "coredns-56f6fc8fd7-p4x9z", "CPU"), cell(screen, "coredns-56f6fc8fd7-p4x9z", "MEM"); cpu != "6" || mem != "14" {
			t.Errorf("pods view: coredns's CPU and MEM are %q and %q, not 6 and 14:\n%s", cpu, mem, screen)
		}
		s.command("deployments", "coredns", "local-path-provisioner", "metrics-server", "traefik")
		s.command("events", "primary-node", "Starting")
		// primary-node: usageNanoCores 45418338 -> 46m, workingSetBytes
		// 737718272 -> 703Mi.
		screen = s.command("nodes", "primary-node")
		if cpu, mem := cell(screen, "primary-node", "CPU"), cell(screen, "primary-node", "MEM"); cpu != "46" || mem != "703" {
			t.Errorf("nodes view: primary-node's CPU and MEM are %q and %q, not 46 and 703:\n%s", cpu, mem, screen)
		}
		s.command("pods", "coredns-56f6fc8fd7-p4x9z")
		s.filter("coredns", "coredns-56f6fc8fd7-p4x9z")
		s.keys("d")
		s.waitFor("describe", "Describe(kube-system/coredns-56f6fc8fd7-p4x9z)", "Controlled By:", "ReplicaSet/coredns-56f6fc8fd7")
		s.back()
		s.keys("y")
		s.waitFor("yaml", "YAML", "apiVersion: v1", "kind: Pod", "name: coredns-56f6fc8fd7-p4x9z")
		s.back()
	})
	t.Run("logs-2022", func(t *testing.T) {
		kubeconfig, _ := serveCorpusForTest(t, filepath.Join(corpus, "troubleshoot-testdata-v0.50.0-2022-12/support-bundle.tar.gz"))
		s := startK9s(t, bin, kubeconfig, "--readonly", "-n", "kube-system", "-c", "pods")
		s.waitFor("pods view", "coredns-b96499967-tncf4")
		s.filter("coredns", "coredns-b96499967-tncf4")
		s.keys("l")
		want := firstLogLine(t, filepath.Join(corpus, "troubleshoot-testdata-v0.50.0-2022-12/support-bundle.tar.gz"), "kube-system/coredns-b96499967-tncf4/coredns.log")
		s.waitFor("logs", want)
	})
}

// firstLogLine is the end of a log's first line, as the bundle holds it
// (its start may be "[WARNING]", which k9s's view reads as a style tag).
func firstLogLine(t *testing.T, bundle, log string) string {
	t.Helper()
	out, err := exec.Command("tar", "-xzOf", bundle, "support-bundle/cluster-resources/pods/logs/"+log).Output()
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	if len(line) > 40 {
		line = line[len(line)-40:]
	}
	if line == "" {
		t.Fatal(fmt.Errorf("%s is empty", log))
	}
	return line
}
