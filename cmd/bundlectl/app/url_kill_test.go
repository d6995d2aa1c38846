//go:build linux

package app_test

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// TestUpgradeURLKilled stops `bundlectl upgrade URL NEW` in the middle of
// the download, with SIGINT (Ctrl-C) and SIGKILL: it fails, NEW does not
// exist, and nothing is left in the temporary folder, since the spool of
// the download has no name from the start (contract.TempFile).
func TestUpgradeURLKilled(t *testing.T) {
	body := contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{
		{Name: "support-bundle-2024-01-02T03_04_05/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
		{Name: "support-bundle-2024-01-02T03_04_05/cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[]}`},
	}))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Half the bundle, then silence until the client goes.
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp, out := t.TempDir(), t.TempDir()
			cmd := bundlectlCmd(t, out, []string{"TMPDIR=" + tmp}, "upgrade", "--certificate-authority", ca, srv.URL+"/b.tgz?sig=s3cret", "new.tgz")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for !holdsTemp(cmd.Process.Pid, tmp, gzipStart) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("no download spool within a minute:\n%s", stderr.String())
				}
				time.Sleep(2 * time.Millisecond)
			}
			if left := dirNames(t, tmp); len(left) != 0 {
				t.Errorf("the spool has a name during the download: %v", left)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			checkNoPanic(t, childResult{stderr: stderr.String()}, cmd.Args)
			if cmd.ProcessState.Success() {
				t.Fatalf("the upgrade succeeded after %s", sig)
			}
			if left := dirNames(t, out); len(left) != 0 {
				t.Errorf("left beside NEW: %v", left)
			}
			if left := dirNames(t, tmp); len(left) != 0 {
				t.Errorf("left in the temporary folder: %v", left)
			}
			if sig == syscall.SIGINT {
				want := "bundlectl: " + srv.URL + "/b.tgz?REDACTED: download interrupted after "
				if !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "s3cret") {
					t.Errorf("stderr %q, want %q", stderr.String(), want)
				}
			}
		})
	}
}
