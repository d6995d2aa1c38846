//go:build unix

package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// TestServeBindsLoopback runs `bundlectl serve` as the real command: by
// default it listens on 127.0.0.1 only and says nothing; another address
// needs the explicit --address flag and is announced with a warning
// before the bundle is loaded. The kubeconfig is private (0600).
func TestServeBindsLoopback(t *testing.T) {
	bundle := servetest.Small().WriteDir(t, t.TempDir())
	for _, tc := range []struct {
		args []string
		warn string
	}{
		{nil, ""},
		{[]string{"--address", "0.0.0.0"}, "warning: --address 0.0.0.0 is not a loopback address: other machines can reach the served bundle"},
	} {
		work := t.TempDir()
		kubeconfig := filepath.Join(work, "kubeconfig")
		s := startServe(t, work, []string{"TMPDIR=" + t.TempDir()}, kubeconfig, append(tc.args, bundle)...)
		if s.exited != nil {
			t.Fatalf("serve %v: exit %d\n%s", tc.args, s.exited.code, s.exited.stderr)
		}
		fi, err := os.Stat(kubeconfig)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("kubeconfig: %v %v", fi, err)
		}
		cfg, err := clientcmd.LoadFromFile(kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range cfg.Clusters {
			if !strings.HasPrefix(c.Server, "https://127.0.0.1:") {
				t.Errorf("%v: cluster %s at %s", tc.args, name, c.Server)
			}
		}
		r := s.stop(t)
		switch {
		case tc.warn == "" && strings.Contains(r.stderr, "warning"):
			t.Errorf("serve warned on loopback:\n%s", r.stderr)
		case tc.warn != "" && !strings.Contains(r.stderr, tc.warn):
			t.Errorf("serve %v did not warn:\n%s", tc.args, r.stderr)
		}
	}
}
