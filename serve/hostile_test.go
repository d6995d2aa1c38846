package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
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

// TestServesWhatItLoaded changes, removes and replaces the files of a
// served bundle: every response stays what it was at load. Logs of a
// folder were read where they lay, so a log replaced by a link to a file
// outside the bundle was served.
func TestServesWhatItLoaded(t *testing.T) {
	paths := []string{
		"/api/v1/namespaces/default/pods",
		"/api/v1/namespaces/default/pods/web-1",
		"/api/v1/namespaces/default/pods/web-2/log",
		"/api/v1/namespaces/default/pods/web-1/log?container=app&previous=true",
		"/apis/example.com/v1/widgets",
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("not in the bundle\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"folder", "archive"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			path := servetest.Small().WriteDir(t, dir)
			if format == "archive" {
				path = servetest.Small().WriteTarGz(t, dir, "b.tgz")
			}
			srv := newHandlerServer(t, load(t, path))
			before := map[string]string{}
			for _, p := range paths {
				for _, accept := range []string{"", tableAccept} {
					r := get(t, srv, p, accept)
					if r.code != http.StatusOK {
						t.Fatalf("%s: %d %s", p, r.code, r.body)
					}
					before[p+accept] = r.body
				}
			}
			if format == "archive" {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else {
				logs := filepath.Join(path, "cluster-resources", "pods", "logs", "default")
				if err := os.Remove(filepath.Join(logs, "web-2", "app.log")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(secret, filepath.Join(logs, "web-2", "app.log")); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(logs, "web-1", "app-previous.log"), []byte("changed\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(path, contract.ResourcePath("pods", "default")), []byte(`{"items":[]}`), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.RemoveAll(filepath.Join(path, "cluster-resources", "custom-resources")); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range paths {
				for _, accept := range []string{"", tableAccept} {
					if r := get(t, srv, p, accept); r.code != http.StatusOK || r.body != before[p+accept] {
						t.Errorf("%s (%s) after the files changed: %d %.200s", p, accept, r.code, r.body)
					}
				}
			}
		})
	}
}
