package transform

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// builtinTestReleases are the releases whose captured data is compared
// with a live server: every captured minor and, with -update, every
// minor the local provider supports, so that a newly built release's data
// gets written. A release other than the pinned one whose server is not
// built here is skipped, in CI too (CI builds the pinned one alone).
func builtinTestReleases(t *testing.T, test func(t *testing.T, r localapiserver.Release)) {
	for _, r := range localapiserver.Releases() {
		if !slices.Contains(builtinMinors(), r.Minor) && !testenv.Update() {
			continue
		}
		t.Run(r.MinorString(), func(t *testing.T) {
			if r.Minor != pinnedMinor {
				dir := localapiserver.BinDir(localapiserver.DefaultCacheDir(), r.Version)
				if _, err := localapiserver.FindBinaries(dir, r.Version); err != nil {
					t.Skipf("no live %s to compare with: %v", r.Version, err)
				}
			}
			test(t, r)
		})
	}
}

// The built-in discovery stands in for what a default kube-apiserver of
// each captured release serves: compare it with one, through the
// reference collector.
func TestBuiltinDiscoveryIsCurrent(t *testing.T) {
	builtinTestReleases(t, func(t *testing.T, r localapiserver.Release) {
		// The release's defaults: no feature gates, no extra API versions.
		_, c := localtest.StartWith(t, localapiserver.Options{KubeVersion: r.Version, FeatureGates: []string{}, RuntimeConfig: "v1=true"})
		cfg, err := collect.LoadConfig(c.Kubeconfig, "")
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "live.tar")
		if _, err := collect.Run(context.Background(), collect.Options{Config: cfg, Dest: dest, Namespaces: []string{"default"}}); err != nil {
			t.Fatal(err)
		}
		b, err := contract.Open(dest, contract.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		live, err := b.Discovery()
		if err != nil {
			t.Fatal(err)
		}
		file := builtinDiscoveryFile(r.Minor)
		if testenv.Update() {
			// The time of the pinned capture, so that a rewrite of the
			// same discovery gives the same bytes.
			live.CollectedAt = builtinDiscovery(pinnedMinor).CollectedAt
			data, err := live.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want := builtinDiscovery(r.Minor)
		if live.KubernetesVersion != want.KubernetesVersion {
			t.Errorf("live server %s, %s of %s", live.KubernetesVersion, file, want.KubernetesVersion)
		}
		if diff := cmp.Diff(want.Groups, live.Groups); diff != "" {
			t.Errorf("groups differ from a live server (-builtin +live; go test -run %s -update rewrites):\n%s", t.Name(), diff)
		}
		if diff := cmp.Diff(want.Resources, live.Resources); diff != "" {
			t.Errorf("resources differ from a live server (-builtin +live; go test -run %s -update rewrites):\n%s", t.Name(), diff)
		}
	})
}

// A bundle's minor takes its own release's data, else the oldest
// captured newer one's, else the pin's.
func TestBuiltinMinor(t *testing.T) {
	captured := builtinMinors()
	for _, m := range captured {
		if got := builtinMinor(m); got != m {
			t.Errorf("builtinMinor(%d) = %d, want its own", m, got)
		}
	}
	if got := builtinMinor(oldestMinor); got != captured[0] {
		t.Errorf("builtinMinor(%d) = %d, want the oldest captured, %d", oldestMinor, got, captured[0])
	}
	if got := builtinMinor(pinnedMinor + 3); got != pinnedMinor {
		t.Errorf("builtinMinor(%d) = %d, want the pin", pinnedMinor+3, got)
	}
	for m := oldestMinor; m <= pinnedMinor; m++ {
		d := builtinDiscovery(m)
		minor, _, err := contract.TableMinor(d.KubernetesVersion)
		if err != nil {
			t.Fatal(err)
		}
		if got := contract.MinorNumber(minor); got != builtinMinor(m) {
			t.Errorf("the built-in discovery for 1.%d is of %s, want 1.%d's", m, d.KubernetesVersion, builtinMinor(m))
		}
	}
}
