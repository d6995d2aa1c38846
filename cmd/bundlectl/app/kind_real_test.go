//go:build linux

package app_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// lockedBuffer is a child's stderr, read while the child writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRealKindInterrupted interrupts `bundlectl conformance --kind` (Ctrl-C,
// SIGINT) while kind starts the node and while the fixtures are applied:
// the run fails with an error and no container of the cluster is left.
// It needs Docker, kubectl on PATH and a node image (BUNDLECTL_KIND_IMAGE,
// as scripts/conformance-kind.sh sets it); without the image it is
// skipped.
func TestRealKindInterrupted(t *testing.T) {
	image := os.Getenv(testenv.KindImageEnv)
	if image == "" {
		t.Skip(testenv.KindImageEnv + " is not set: no real kind cluster (make conformance-kind sets it)")
	}
	containers := func(name string) []string {
		out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=io.x-k8s.kind.cluster="+name).Output()
		if err != nil {
			t.Fatalf("docker ps: %v", err)
		}
		return strings.Fields(string(out))
	}
	for _, tc := range []struct {
		name, cluster string
		// when says, polled every half second, that the moment has come.
		when func(stderr string) bool
	}{
		{"while kind starts the node", "bundlectl-ctrlc-create", func(string) bool {
			return len(containers("bundlectl-ctrlc-create")) > 0
		}},
		{"while the fixtures are applied", "bundlectl-ctrlc-fixtures", func(stderr string) bool {
			return strings.Contains(stderr, "conformance: applying the fixtures")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if left := containers(tc.cluster); len(left) > 0 {
				t.Fatalf("containers of %s exist before the test: %v", tc.cluster, left)
			}
			cmd := bundlectlCmd(t, t.TempDir(), nil, "conformance", "--kind", "--kind-image", image, "--kind-name", tc.cluster)
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			fired := false
		poll:
			for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); {
				select {
				case <-done:
					break poll
				case <-time.After(500 * time.Millisecond):
				}
				if tc.when(stderr.String()) {
					cmd.Process.Signal(syscall.SIGINT)
					fired = true
					break
				}
			}
			select {
			case <-done:
			case <-time.After(5 * time.Minute):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 5 minutes after SIGINT:\n%s", stderr.String())
			}
			if !fired {
				t.Fatalf("the run ended (exit %d) before the moment came:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
			}
			checkNoPanic(t, childResult{stderr: stderr.String()}, cmd.Args)
			if cmd.ProcessState.Success() || !strings.Contains(stderr.String(), "bundlectl: ") {
				t.Errorf("after SIGINT: exit %d, no error:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
			}
			if left := containers(tc.cluster); len(left) > 0 {
				t.Errorf("containers left after SIGINT: %v\n%s", left, stderr.String())
			}
		})
	}
}
