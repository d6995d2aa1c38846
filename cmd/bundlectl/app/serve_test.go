package app_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// TestServeUpgradesLegacyOnLoad serves a bundle without discovery.json or
// tables: serve upgrades it on load, so kubectl gets the printers' columns
// (READY, STATUS) rather than only NAME and AGE.
func TestServeUpgradesLegacyOnLoad(t *testing.T) {
	const kubectl = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl at %s", kubectl)
	}
	files := servetest.Small()
	for name := range files {
		if name == contract.DiscoveryPath() || strings.HasSuffix(name, contract.TableSuffix) {
			delete(files, name)
		}
	}
	dir := files.WriteDir(t, t.TempDir())
	t.Setenv("SHELL", "/bin/sh")
	script := "HOME=" + t.TempDir() + " " + kubectl + " get pods -n team-a\n"
	var out, errOut bytes.Buffer
	code := app.Main([]string{"shell", dir}, app.IOStreams{In: strings.NewReader(script), Out: &out, ErrOut: &errOut})
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	if !regexp.MustCompile(`NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE`).MatchString(out.String()) {
		t.Errorf("kubectl did not get the printers' table:\n%s\n%s", out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "Upgraded "+dir+" on load") {
		t.Errorf("serve did not say it upgraded the bundle:\n%s", errOut.String())
	}
}

// TestShell runs a shell that reads the kubeconfig (and, when a real
// kubectl is at hand, lists pods through it) and exits with a code of its
// own: bundlectl exits with it and removes the kubeconfig.
func TestShell(t *testing.T) {
	dir := servetest.Small().WriteDir(t, t.TempDir())
	t.Setenv("SHELL", "/bin/sh")
	script := `test -f "$KUBECONFIG" && echo "kubeconfig is $KUBECONFIG"` + "\n"
	const kubectl = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
	if _, err := os.Stat(kubectl); err == nil {
		script += "HOME=" + t.TempDir() + " " + kubectl + " get pods -n team-a -o name\n"
	}
	script += "exit 3\n"
	var out, errOut bytes.Buffer
	code := app.Main([]string{"shell", dir}, app.IOStreams{In: strings.NewReader(script), Out: &out, ErrOut: &errOut})
	if code != 3 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	m := regexp.MustCompile(`kubeconfig is (\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the shell did not see the kubeconfig:\n%s\n%s", out.String(), errOut.String())
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("kubeconfig left behind: %v", err)
	}
	if strings.Contains(script, "kubectl") && !strings.Contains(out.String(), "pod/job-x\npod/web-3\n") {
		t.Errorf("kubectl in the shell:\n%s\n%s", out.String(), errOut.String())
	}
}
