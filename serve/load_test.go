package serve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/serve/servetest"
)

func TestNewLoadedObject(t *testing.T) {
	for _, tc := range []struct {
		in, body, meta string
	}{
		{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{}}`, `{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{}}`, `{"name":"a","labels":{"x":"y"}}`},
		{`{"metadata":{"name":"b"},"kind":"Pod"}`, `{"metadata":{"name":"b"}}`, `{"name":"b"}`},
		{`{"spec":{"kind":"x","s":"}\"{"},"metadata":{"name":"c\"d"},"apiVersion":"v1"}`, `{"spec":{"kind":"x","s":"}\"{"},"metadata":{"name":"c\"d"}}`, `{"name":"c\"d"}`},
		{`{"metadata":{"name":"e","namespace":"n"}}`, `{"metadata":{"name":"e","namespace":"n"}}`, `{"name":"e","namespace":"n"}`},
	} {
		o, err := newLoadedObject([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if string(o.body) != tc.body || string(o.body[o.metaStart:o.metaEnd]) != tc.meta {
			t.Errorf("%s: body %s meta %s", tc.in, o.body, o.body[o.metaStart:o.metaEnd])
		}
	}
	o, _ := newLoadedObject([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"k":"v"}}}`))
	if o.kind != "Pod" || o.apiVersion != "v1" || o.name != "a" || o.namespace != "ns" || o.resourceVersion != "7" || o.created != "2025-01-01T00:00:00Z" || o.labels["k"] != "v" {
		t.Errorf("identity %+v", o)
	}
	for _, bad := range []string{`{"kind":"Pod"}`, `{"metadata":{"namespace":"x"}}`, `{"metadata":"x"}`} {
		if _, err := newLoadedObject([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

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

func TestLoadProblems(t *testing.T) {
	files := servetest.Small()
	files["cluster-resources/configmaps/broken.json"] = []byte(`{"kind":"ConfigMapList","items":[{"metadata":`)
	files["cluster-resources/jobs/default.json"] = []byte(`{"kind":"JobList","apiVersion":"batch/v1","items":[{"metadata":{"name":"j"}}]}`)
	x := load(t, files.WriteDir(t, t.TempDir()))
	w := strings.Join(x.Warnings, "\n")
	if !strings.Contains(w, "cluster-resources/configmaps/broken.json") || !strings.Contains(w, "jobs.batch is not in discovery") {
		t.Errorf("warnings:\n%s", w)
	}
	// The rest of the bundle is served.
	if n := len(x.resources[servetest.ConfigMapsGVR.GroupResource()].objects); n != 2 {
		t.Errorf("configmaps %d", n)
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
	if _, err := Load(context.Background(), b); !errors.Is(err, ErrLegacyBundle) {
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
