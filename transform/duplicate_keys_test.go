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
	"github.com/bundlectl/bundlectl/contract/contracttest"
	"github.com/bundlectl/bundlectl/serve"
	"github.com/bundlectl/bundlectl/transform"
)

// A list file with two "items" members is read the same way by the
// upgrade, which tables it, and by serve, which serves it: the last one,
// as encoding/json reads it. Both, and inspect, report the file. (The
// two once disagreed: kubectl get pods showed a row "first" with
// <unknown> in every cell, and kubectl get pod second said NotFound.)
func TestDuplicateItemsServedAsTabled(t *testing.T) {
	const root = "support-bundle-2025-11-20T10_00_00/"
	pod := func(name string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"default","creationTimestamp":"2025-11-20T09:00:00Z"},` +
			`"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Running"}}`
	}
	dir := t.TempDir()
	src := contracttest.WriteTarGz(t, dir, "old.tar.gz", []contracttest.File{
		{Name: root + "version.yaml", Body: "apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionInfo:\n    version: v0.123.14\n"},
		{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","metadata":{},` +
			`"items":[` + pod("first") + `],"items":[` + pod("second") + `]}`},
	})
	dest := filepath.Join(dir, "new")
	sum, err := transform.Upgrade(context.Background(), transform.Options{Source: src, Dest: dest, Limits: contract.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	const rel = "cluster-resources/pods/default.json"
	if !hasProblem(sum.Problems, rel, "duplicate keys items") || sum.TablesSynthesized["pods"] != 1 {
		t.Errorf("upgrade: %d pod tables, problems %+v; want the table and the problem", sum.TablesSynthesized["pods"], sum.Problems)
	}
	b, err := contract.Open(dest, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	if !hasProblem(rep.Problems, rel, "duplicate keys items") {
		t.Errorf("inspect problems %+v, want the duplicate items", rep.Problems)
	}
	x, err := serve.Load(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if w := strings.Join(x.Warnings, "\n"); !strings.Contains(w, rel+": duplicate keys items") {
		t.Errorf("serve warnings %q, want the duplicate items", w)
	}
	srv := httptest.NewServer(serve.NewHandler(x, serve.HandlerOptions{}))
	defer srv.Close()

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
	if len(list.Items) != 1 || list.Items[0].Metadata.Name != "second" {
		t.Fatalf("served items %+v, want only second", list.Items)
	}
	if len(table.Rows) != 1 || table.Rows[0].Object.Metadata.Name != "second" || table.Rows[0].Cells[2] != "Running" {
		t.Fatalf("served rows %+v, want second's, Running", table.Rows)
	}
	for name, code := range map[string]int{"second": http.StatusOK, "first": http.StatusNotFound} {
		resp, err := http.Get(srv.URL + "/api/v1/namespaces/default/pods/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("GET pod %s: %d, want %d", name, resp.StatusCode, code)
		}
	}
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
