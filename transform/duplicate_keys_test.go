package transform_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/serve"
	"github.com/bundlectl/bundlectl/serve/index"
	"github.com/bundlectl/bundlectl/transform"
)

const dupRoot = "support-bundle-2025-11-20T10_00_00/"

// dupPod is a running pod of the default namespace.
func dupPod(name string) string {
	return `{"metadata":{"name":"` + name + `","namespace":"default","creationTimestamp":"2025-11-20T09:00:00Z"},` +
		`"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Running"}}`
}

// upgradeAndServe upgrades a legacy bundle of files and serves the
// result; it returns the upgrade's and inspect's problems, serve's
// warnings and the server.
func upgradeAndServe(t *testing.T, files ...contracttest.File) (upgrade, inspect []contract.Problem, warnings string, srv *httptest.Server) {
	t.Helper()
	dir := t.TempDir()
	files = append([]contracttest.File{{Name: dupRoot + "version.yaml", Body: "apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionInfo:\n    version: v0.123.14\n"}}, files...)
	src := contracttest.WriteTarGz(t, dir, "old.tar.gz", files)
	dest := filepath.Join(dir, "new.tar")
	sum, err := transform.Upgrade(context.Background(), transform.Options{Source: src, Dest: dest, Limits: contract.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	if sum.TablesSynthesized["pods"] != 1 {
		t.Errorf("upgrade made %d pod tables, want 1", sum.TablesSynthesized["pods"])
	}
	b, err := contract.Open(dest, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.Load(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	srv = httptest.NewServer(serve.NewHandler(x, serve.HandlerOptions{}))
	t.Cleanup(srv.Close)
	return sum.Problems, rep.Problems, strings.Join(x.Warnings, "\n"), srv
}

// servesOnly checks that the server lists and tables exactly the pod
// name, with its real cells, finds it by name and does not find gone.
func servesOnly(t *testing.T, srv *httptest.Server, name, gone string) {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
		}
	}
	getJSON(t, srv.URL+"/api/v1/namespaces/default/pods", "", &list)
	var table struct {
		Rows []struct {
			Cells  []any
			Object struct{ Metadata struct{ Name string } }
		}
	}
	getJSON(t, srv.URL+"/api/v1/namespaces/default/pods", "application/json;as=Table;v=v1;g=meta.k8s.io", &table)
	if len(list.Items) != 1 || list.Items[0].Metadata.Name != name {
		t.Fatalf("served items %+v, want only %s", list.Items, name)
	}
	if len(table.Rows) != 1 || table.Rows[0].Object.Metadata.Name != name || table.Rows[0].Cells[2] != "Running" {
		t.Fatalf("served rows %+v, want %s's, Running", table.Rows, name)
	}
	for pod, code := range map[string]int{name: http.StatusOK, gone: http.StatusNotFound} {
		resp, err := http.Get(srv.URL + "/api/v1/namespaces/default/pods/" + pod)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("GET pod %s: %d, want %d", pod, resp.StatusCode, code)
		}
	}
}

const podsList = "cluster-resources/pods/default.json"

// A list file with two "items" members is read the same way by the
// upgrade, which tables it, and by serve, which serves it: the last one,
// as encoding/json reads it. Both, and inspect, report the file. (The
// two once disagreed: kubectl get pods showed a row "first" with
// <unknown> in every cell, and kubectl get pod second said NotFound.)
func TestDuplicateItemsServedAsTabled(t *testing.T) {
	upgrade, inspect, warnings, srv := upgradeAndServe(t, contracttest.File{Name: dupRoot + podsList,
		Body: `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[` + dupPod("first") + `],"items":[` + dupPod("second") + `]}`})
	if !hasProblem(upgrade, podsList, "duplicate keys items") || !hasProblem(inspect, podsList, "duplicate keys items") {
		t.Errorf("upgrade problems %+v, inspect problems %+v: want the duplicate items", upgrade, inspect)
	}
	if !strings.Contains(warnings, podsList+": duplicate keys items") {
		t.Errorf("serve warnings %q, want the duplicate items", warnings)
	}
	servesOnly(t, srv, "second", "first")
}

// A list stored twice in the archive is the last copy for every reader,
// as for tar when it extracts: the upgrade tables it and serve serves it.
func TestDuplicateEntryServedAsTabled(t *testing.T) {
	upgrade, _, warnings, srv := upgradeAndServe(t,
		contracttest.File{Name: dupRoot + podsList, Body: `{"kind":"PodList","apiVersion":"v1","items":[` + dupPod("old") + `]}`},
		contracttest.File{Name: dupRoot + podsList, Body: `{"kind":"PodList","apiVersion":"v1","items":[` + dupPod("new") + `]}`})
	if !hasProblem(upgrade, podsList, "occurs more than once") {
		t.Errorf("upgrade problems %+v, want the duplicate entry", upgrade)
	}
	if !strings.Contains(warnings, podsList+": the entry occurs more than once") {
		t.Errorf("serve warnings %q, want the duplicate entry", warnings)
	}
	servesOnly(t, srv, "new", "old")
}

func hasProblem(problems []contract.Problem, path, message string) bool {
	for _, p := range problems {
		if p.Path == path && strings.Contains(p.Message, message) {
			return true
		}
	}
	return false
}

func getJSON(t *testing.T, url, accept string, into any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, resp.StatusCode, err, data)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}
