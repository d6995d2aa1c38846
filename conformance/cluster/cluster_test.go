package cluster_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/conformance/cluster"
	"github.com/bundlectl/bundlectl/conformance/kind"
)

// Both providers satisfy the interface the gate uses.
var (
	_ cluster.Provider = cluster.Existing{}
	_ cluster.Provider = (*kind.Provider)(nil)
)

func TestExistingProvider(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if _, err := (cluster.Existing{Path: p}).Create(context.Background()); err == nil {
		t.Fatal("a missing kubeconfig was accepted")
	}
	if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := (cluster.Existing{Path: p}).Create(context.Background())
	if err != nil || c.Kubeconfig != p {
		t.Fatalf("got %+v, %v", c, err)
	}
}
