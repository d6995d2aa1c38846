package contract_test

import (
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/gomod"
)

// The constants name what go.mod pins: a bump of k8s.io/kubernetes that
// forgets them fails here.
func TestPinnedVersionIsGoMod(t *testing.T) {
	got, err := gomod.Require("../go.mod", "k8s.io/kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	if got != contract.PinnedVersion {
		t.Errorf("go.mod requires k8s.io/kubernetes %q, PinnedVersion is %q", got, contract.PinnedVersion)
	}
	if minor := strings.TrimPrefix(semver.MajorMinor(contract.PinnedVersion), "v"); minor != contract.PinnedMinor {
		t.Errorf("PinnedMinor is %q, the minor of %s is %q", contract.PinnedMinor, contract.PinnedVersion, minor)
	}
}
