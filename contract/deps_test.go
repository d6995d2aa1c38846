package contract_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// The contract and the server (its index, its test helpers and every
// test included) must stay usable without the Kubernetes monolith: only
// transform may import k8s.io/kubernetes, and serve upgrades legacy
// bundles through the function the command passes it.
func TestNoKubernetesMonolith(t *testing.T) {
	root := contracttest.RepoRoot(t)
	for _, pkgs := range []string{"./contract/...", "./serve/..."} {
		cmd := exec.Command("go", "list", "-deps", "-test", pkgs)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkgs, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if line == "k8s.io/kubernetes" || strings.HasPrefix(line, "k8s.io/kubernetes/") {
				t.Errorf("%s depends on %s", pkgs, line)
			}
		}
	}
}

// The packages of the product (their tests included) import nothing of
// the conformance harness, whose local kube-apiserver they reach through
// internal/test/localtest.
func TestTestsImportNoHarness(t *testing.T) {
	root := contracttest.RepoRoot(t)
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`,
		"./contract/...", "./serve/...", "./transform/...")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "github.com/bundlectl/bundlectl/conformance") {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// What only tests and benchmarks use lives under internal/test/, and no
// package of the product imports it: internal/ itself holds only the
// product's private packages (localapiserver, rawjson).
func TestProductImportsNoTestPackage(t *testing.T) {
	root := contracttest.RepoRoot(t)
	const module = "github.com/bundlectl/bundlectl/"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	products := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		if strings.HasPrefix(pkg, module+"internal/test/") {
			continue
		}
		products++
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, module+"internal/test/") {
				t.Errorf("%s, a package of the product, imports %s", pkg, imp)
			}
		}
	}
	if products < 10 {
		t.Fatalf("go list found %d packages of the product:\n%s", products, out)
	}
}
