package transform

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/internal/localtest"
	"github.com/bundlectl/bundlectl/internal/testenv"
)

// The built-in discovery stands in for what a default kube-apiserver of
// the pinned release serves: compare it with one, through the reference
// collector.
func TestBuiltinDiscoveryIsCurrent(t *testing.T) {
	// The release's defaults: no feature gates, no extra API versions.
	_, c := localtest.StartWith(t, localtest.Options{FeatureGates: []string{}, RuntimeConfig: "v1=true"})
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
	if testenv.Update() {
		live.CollectedAt = builtinDiscovery().CollectedAt
		data, err := live.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("builtin-discovery.json", data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := builtinDiscovery()
	if live.KubernetesVersion != want.KubernetesVersion {
		t.Errorf("live server %s, builtin discovery of %s", live.KubernetesVersion, want.KubernetesVersion)
	}
	if diff := cmp.Diff(want.Groups, live.Groups); diff != "" {
		t.Errorf("groups differ from a live server (-builtin +live; go test -run %s -update rewrites):\n%s", t.Name(), diff)
	}
	if diff := cmp.Diff(want.Resources, live.Resources); diff != "" {
		t.Errorf("resources differ from a live server (-builtin +live; go test -run %s -update rewrites):\n%s", t.Name(), diff)
	}
}
