package localapiserver_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/localapiserver"
)

func TestLookupRelease(t *testing.T) {
	for _, tc := range []struct {
		in, version string
		minor       int
		gate        string // one of the gates the release runs with
	}{
		{"", localapiserver.Version, 37, "GenericWorkload=true"},
		{"1.37", localapiserver.Version, 37, "GenericWorkload=true"},
		{"1.31", "v1.31.14", 31, "ClusterTrustBundle=true"},
		{"v1.31", "v1.31.14", 31, "ClusterTrustBundle=true"},
		// Any patch of a supported minor, with that minor's flags.
		{"v1.31.2", "v1.31.2", 31, "ClusterTrustBundle=true"},
		{"1.31.2", "v1.31.2", 31, "ClusterTrustBundle=true"},
		{"1.24", "v1.24.17", 24, ""},
		{"1.23", "v1.23.17", 23, ""},
	} {
		r, err := localapiserver.LookupRelease(tc.in)
		if err != nil {
			t.Errorf("LookupRelease(%q): %v", tc.in, err)
			continue
		}
		if r.Version != tc.version || r.Minor != tc.minor || (tc.gate != "" && !slices.Contains(r.FeatureGates, tc.gate)) || (tc.gate == "" && len(r.FeatureGates) > 0) {
			t.Errorf("LookupRelease(%q) = %+v, want %s (minor %d) with gate %q", tc.in, r, tc.version, tc.minor, tc.gate)
		}
	}
	for in, want := range map[string]string{
		"1.19":    "not supported by the local provider: it runs " + localapiserver.SupportedMinors(),
		"1.99":    "not supported",
		"latest":  `"latest": want a release such as v1.31.14 or a minor such as 1.31`,
		"v1.31.x": `"v1.31.x"`,
		"2.1":     `"2.1"`,
	} {
		if _, err := localapiserver.LookupRelease(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LookupRelease(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

// One release per minor, newest first, contiguous: the conformance matrix
// runs each, and a gap would be a minor nobody noticed was dropped.
func TestReleasesAreOnePerMinorNewestFirst(t *testing.T) {
	rs := localapiserver.Releases()
	if len(rs) == 0 || rs[0].Version != localapiserver.Version {
		t.Fatalf("the newest release is %+v, want the pinned %s first", rs, localapiserver.Version)
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].Minor != rs[i-1].Minor-1 {
			t.Errorf("%s follows %s: one line per minor, newest first, no gap", rs[i].Version, rs[i-1].Version)
		}
	}
	for _, r := range rs {
		for _, g := range r.FeatureGates {
			if name, v, ok := strings.Cut(g, "="); !ok || name == "" || (v != "true" && v != "false") {
				t.Errorf("%s: feature gate %q is not Name=bool", r.Version, g)
			}
		}
	}
}

// The script resolves a minor the way LookupRelease does (from the same
// file) and builds into the release's folder.
func TestScriptBuildsTheNewestPatchOfAMinor(t *testing.T) {
	log := fakeGo(t, "0")
	r, err := localapiserver.LookupRelease("1.31")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("BUNDLECTL_CACHE", cache)
	out, err := exec.Command("bash", "build-local-apiserver.sh", "--kube-version", "1.31").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dir := localapiserver.BinDir(cache, r.Version)
	if !strings.Contains(string(out), "kube-apiserver "+r.Version) || !strings.Contains(string(out), dir) {
		t.Errorf("the script says:\n%s\nwant kube-apiserver %s in %s", out, r.Version, dir)
	}
	if _, err := localapiserver.FindBinaries(dir, r.Version); err != nil {
		t.Error(err)
	}
	got, _ := exec.Command(filepath.Join(dir, "kube-apiserver"), "--version").Output()
	if !strings.Contains(string(got), "Kubernetes "+r.Version) {
		t.Errorf("kube-apiserver --version = %q, want %s stamped by the build", got, r.Version)
	}
	if data, _ := os.ReadFile(log); strings.Count(string(data), "\n") != 2 {
		t.Errorf("go builds:\n%s\nwant kube-apiserver and etcd", data)
	}

	out, err = exec.Command("bash", "build-local-apiserver.sh", "--kube-version", "1.19").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "1.19 is not a minor") {
		t.Errorf("an unsupported minor: %v\n%s", err, out)
	}
}
