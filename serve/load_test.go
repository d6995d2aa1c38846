package serve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

// TestArchiveAndFolder checks that a bundle serves the same from an
// archive as from a folder.
func TestArchiveAndFolder(t *testing.T) {
	folder := newHandlerServer(t, load(t, smallBundle(t)))
	archive := newHandlerServer(t, load(t, servetest.Small().WriteTarGz(t, t.TempDir(), "b.tgz")))
	for _, path := range []string{"/api/v1/pods", "/api/v1/events", "/apis/example.com/v1/widgets", "/api/v1/nodes"} {
		for _, accept := range []string{"Accept: application/json", tableAccept} {
			a, b := get(t, folder, path, accept), get(t, archive, path, accept)
			if a.body != b.body {
				t.Errorf("%s: folder and archive differ", path)
			}
		}
	}
}

func TestLegacyBundle(t *testing.T) {
	files := servetest.Small()
	delete(files, contract.DiscoveryPath())
	dir := files.WriteDir(t, t.TempDir())
	b, err := contract.Open(dir, contract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Load(context.Background(), b); !errors.Is(err, index.ErrLegacyBundle) {
		t.Errorf("Load: %v", err)
	}
	err = Run(context.Background(), Options{Bundles: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "bundle is legacy; upgrade hook not configured") {
		t.Errorf("Run: %v", err)
	}
}

// TestClusterVersion checks that /version comes from
// cluster-info/cluster_version.json when the bundle has it.
func TestClusterVersion(t *testing.T) {
	files := servetest.Small()
	files[contract.ClusterVersionPath] = []byte(`{"info":{"major":"1","minor":"31","gitVersion":"v1.31.2+k3s1","gitCommit":"abc","platform":"linux/amd64"},"string":"v1.31.2+k3s1"}`)
	srv := newHandlerServer(t, load(t, files.WriteDir(t, t.TempDir())))
	v := decode(t, get(t, srv, "/version"))
	if v["gitVersion"] != "v1.31.2+k3s1" || v["gitCommit"] != "abc" || v["platform"] != "linux/amd64" {
		t.Errorf("version %v", v)
	}
}
