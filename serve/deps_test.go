package serve

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract/contracttest"
)

// TestNoKubernetesMonolith keeps serve, its tests included, free of
// k8s.io/kubernetes: the server must build without the monolith, and
// legacy bundles are upgraded by the command layer, not here.
func TestNoKubernetesMonolith(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-test", "./serve/...")
	cmd.Dir = contracttest.RepoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Split(string(out), "\n") {
		if pkg == "k8s.io/kubernetes" || strings.HasPrefix(pkg, "k8s.io/kubernetes/") {
			t.Errorf("serve depends on %s", pkg)
		}
	}
}
