package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestUnknownMetadataMember serves a ConfigMap whose metadata holds a
// member ObjectMeta has not, with a number no float64 holds: the server
// would have dropped it when it decoded the object, so nothing served
// carries it, and kubectl lists every ConfigMap (issue 18 item 5).
func TestUnknownMetadataMember(t *testing.T) {
	files := servetest.Small()
	const path = "cluster-resources/configmaps/default.json"
	list := string(files[path])
	if !strings.Contains(list, `"name": "settings"`) {
		t.Fatalf("%s does not hold the settings ConfigMap as expected:\n%s", path, list)
	}
	files[path] = []byte(strings.Replace(list, `"name": "settings"`, `"name": "settings", "x": 1e400`, 1))
	dir := files.WriteDir(t, t.TempDir())
	srv := newHandlerServer(t, load(t, dir))
	for _, tc := range []struct{ path, accept string }{
		{"/api/v1/configmaps", tableAccept},
		{"/api/v1/namespaces/default/configmaps/settings", tableAccept},
		{"/api/v1/configmaps", "Accept: application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"},
		{"/api/v1/namespaces/default/configmaps/settings", "Accept: application/json"},
		{"/api/v1/configmaps?watch=true&timeoutSeconds=1", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io"},
	} {
		r := get(t, srv, tc.path, tc.accept)
		if r.code != 200 || strings.Contains(r.body, "1e400") || !strings.Contains(r.body, `"settings"`) {
			t.Errorf("%s %s: %d\n%s", tc.path, tc.accept, r.code, r.body)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(r.body))
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Errorf("%s %s: %v", tc.path, tc.accept, err)
				break
			}
		}
	}
	kubeconfig, _, _ := startRun(t, Options{Bundles: []string{dir}})
	stdout, stderr, code := runKubectl(t, testenv.Kubectl(t), kubeconfig, t.TempDir(), "", "get", "cm", "-A")
	if code != 0 || !strings.Contains(stdout, "default       settings   1      2d\n") {
		t.Errorf("kubectl get cm -A: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
