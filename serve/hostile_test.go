package serve

import (
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/contracttest"
	"github.com/bundlectl/bundlectl/serve/servetest"
)

// A list of another kind than its path says is not served as that kind:
// the file is a warning, and the rest of the bundle is served.
func TestLoadWrongKinds(t *testing.T) {
	files := servetest.Small()
	nodes := contract.ResourcePath("nodes", "")
	files[nodes] = []byte(`{"kind":"DeploymentList","apiVersion":"apps/v1","items":[{"metadata":{"name":"d1","namespace":"default"}}]}`)
	configmaps := contract.ResourcePath("configmaps", "default")
	files[configmaps] = []byte(`{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":"c1","namespace":"default"}},{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s1","namespace":"default"}}]}`)
	x := load(t, files.WriteDir(t, t.TempDir()))
	w := strings.Join(x.Warnings, "\n")
	for _, want := range []string{
		nodes + ": the list is a DeploymentList, but its path holds Node objects",
		configmaps + ": item 1 is a Secret, but its path holds ConfigMap objects",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	srv := newHandlerServer(t, x)
	if got := names(t, decode(t, get(t, srv, "/api/v1/nodes"))); len(got) != 0 {
		t.Errorf("nodes served: %v", got)
	}
	if got := names(t, decode(t, get(t, srv, "/api/v1/configmaps"))); !slices.Equal(got, []string{"kube-system/coredns"}) {
		t.Errorf("configmaps served: %v", got)
	}
}

// An archive holding one name twice is served as extracting it gives:
// the last copy, with a warning.
func TestLoadDuplicatesServeTheLast(t *testing.T) {
	files := servetest.Small()
	pods := contract.ResourcePath("pods", "team-a")
	var entries []contracttest.File
	for name, data := range files {
		entries = append(entries, contracttest.File{Name: "support-bundle-2025-11-20T10_00_00/" + name, Body: string(data)})
	}
	entries = append(entries, contracttest.File{Name: "support-bundle-2025-11-20T10_00_00/" + pods,
		Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"last","namespace":"team-a"}}]}`})
	x := load(t, contracttest.WriteTarGz(t, t.TempDir(), "dup.tgz", entries))
	if w := strings.Join(x.Warnings, "\n"); !strings.Contains(w, pods+": the entry occurs more than once in the archive; the last copy is served") {
		t.Errorf("warnings:\n%s", w)
	}
	srv := newHandlerServer(t, x)
	if got := names(t, decode(t, get(t, srv, "/api/v1/namespaces/team-a/pods"))); !slices.Equal(got, []string{"team-a/last"}) {
		t.Errorf("team-a pods: %v", got)
	}
}
