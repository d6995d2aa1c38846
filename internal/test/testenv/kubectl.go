package testenv

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// KubectlDir holds the real kubectl of each minor version, kubectl.1.NN
// (1.27 to 1.33 on the CI image); /usr/bin/kubectl there is a dispatcher
// that picks one by the server's version and warns about version skew.
const KubectlDir = "/usr/lib/google-cloud-sdk/bin"

// firstMinor and lastMinor bound the kubectl.1.NN looked for in KubectlDir.
const firstMinor, lastMinor = 27, 40

// Kubectls returns the real kubectl clients by minor ("1.33"): those
// KubectlsEnv names, else kubectl.1.27 and later in KubectlDir. Without
// any, see Missing.
func Kubectls(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	if list := os.Getenv(KubectlsEnv); list != "" {
		for _, p := range strings.Fields(list) {
			v, err := KubectlMinor(p)
			if err != nil {
				t.Fatalf("%s: %s: %v", KubectlsEnv, p, err)
			}
			out[v] = p
		}
		return out
	}
	for minor := firstMinor; minor <= lastMinor; minor++ {
		if p := pinnedKubectl(minor); p != "" {
			out["1."+strconv.Itoa(minor)] = p
		}
	}
	if len(out) == 0 {
		Missing(t, "no kubectl.1.%d or later in %s", firstMinor, KubectlDir)
	}
	return out
}

// Kubectl returns one known kubectl, for tests that compare its output
// with golden files: the newest kubectl.1.NN of KubectlDir, else the
// kubectl on PATH. Without one, see Missing.
func Kubectl(t testing.TB) string {
	t.Helper()
	p := FindKubectl()
	if p == "" {
		Missing(t, "no kubectl in %s or on PATH", KubectlDir)
	}
	return p
}

// FindKubectl is Kubectl's search, "" when it finds none, for a test that
// decides itself what a missing kubectl means (a testscript condition).
func FindKubectl() string {
	for minor := lastMinor; minor >= firstMinor; minor-- {
		if p := pinnedKubectl(minor); p != "" {
			return p
		}
	}
	p, _ := exec.LookPath("kubectl")
	return p
}

// LookPath returns the program name on PATH (the kubectl a user's
// `kubectl` runs, say). Without it, see Missing.
func LookPath(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "no %s on PATH: %v", name, err)
	}
	return p
}

func pinnedKubectl(minor int) string {
	p := filepath.Join(KubectlDir, "kubectl.1."+strconv.Itoa(minor))
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// KubectlMinor asks a kubectl binary its minor version ("1.34").
func KubectlMinor(bin string) (string, error) {
	data, err := exec.Command(bin, "version", "--client", "-o", "json").Output()
	if err != nil {
		return "", err
	}
	var v struct {
		ClientVersion struct{ Major, Minor string }
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return "", err
	}
	if v.ClientVersion.Major == "" || v.ClientVersion.Minor == "" {
		return "", errors.New("kubectl version --client names no version")
	}
	return v.ClientVersion.Major + "." + strings.TrimSuffix(v.ClientVersion.Minor, "+"), nil
}
