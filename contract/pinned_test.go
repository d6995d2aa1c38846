package contract_test

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/bundlectl/bundlectl/contract"
)

// The constants name what go.mod pins: a bump of k8s.io/kubernetes that
// forgets them fails here.
func TestPinnedVersionIsGoMod(t *testing.T) {
	const path = "../go.mod"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, r := range f.Require {
		if r.Mod.Path == "k8s.io/kubernetes" {
			got = r.Mod.Version
		}
	}
	if got != contract.PinnedVersion {
		t.Errorf("go.mod requires k8s.io/kubernetes %q, PinnedVersion is %q", got, contract.PinnedVersion)
	}
	if minor := strings.TrimPrefix(semver.MajorMinor(contract.PinnedVersion), "v"); minor != contract.PinnedMinor {
		t.Errorf("PinnedMinor is %q, the minor of %s is %q", contract.PinnedMinor, contract.PinnedVersion, minor)
	}
}
