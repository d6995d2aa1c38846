package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// kubectlDir holds the real kubectl of each minor version (kubectl.1.27 to
// kubectl.1.33 on the CI image); /usr/bin/kubectl there is a dispatcher
// that picks one by server version and warns about version skew.
const kubectlDir = "/usr/lib/google-cloud-sdk/bin"

// findKubectl returns the newest kubectl.1.NN of kubectlDir, else the
// kubectl on PATH, else "". The command tests compare kubectl's output
// with golden files, so they run one known kubectl; serve/kubectl_test.go
// runs every version.
func findKubectl() string {
	for minor := 40; minor >= 27; minor-- {
		p := filepath.Join(kubectlDir, "kubectl.1."+strconv.Itoa(minor))
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("kubectl")
	return p
}

// RequireKubectl returns the kubectl the command tests run (exported for
// the scripts' test, in package app_test). Without one the test is
// skipped on a laptop, but it fails in CI (CI=true), where a missing
// kubectl would silently turn the serve tests off.
func RequireKubectl(t *testing.T) string {
	t.Helper()
	k := findKubectl()
	if k == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no kubectl in %s or on PATH (CI=true makes this a failure)", kubectlDir)
		}
		t.Skipf("no kubectl in %s or on PATH", kubectlDir)
	}
	return k
}
