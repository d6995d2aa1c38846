package collect_test

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
)

func run(t *testing.T, opts collect.Options) (*collect.Summary, *collected) {
	t.Helper()
	if opts.Dest == "" {
		opts.Dest = filepath.Join(t.TempDir(), "bundle.tgz")
	}
	sum, err := collect.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	// The summary is long: printed after the failures it may explain, so
	// that a log cut in the middle still shows them.
	t.Cleanup(func() {
		if t.Failed() {
			var text bytes.Buffer
			sum.WriteText(&text)
			t.Logf("summary:\n%s", text.String())
		}
	})
	return sum, readBundle(t, opts.Dest)
}

// TestCollect collects from a live kube-apiserver and checks the bundle
// against the server itself.
func TestCollect(t *testing.T) {
	cfg := startCluster(t)
	srv := newServer(t, cfg)

	t.Run("all namespaces", func(t *testing.T) {
		sum, c := run(t, collect.Options{Config: cfg})
		checkSummary(t, sum)
		checkInspect(t, c)
		checkDiscovery(t, c, srv)
		if n := checkLists(t, c, srv, sum.CollectedAt, true); n < 100 {
			t.Errorf("only %d lists were checked", n)
		}
		checkSelectableFields(t, c)
		checkSecrets(t, c)
		checkLogs(t, c, sum)
		checkOpenAPI(t, c, srv, sum)
	})

	t.Run("some namespaces into a folder", func(t *testing.T) {
		dest := filepath.Join(t.TempDir(), "bundle")
		sum, c := run(t, collect.Options{Config: cfg, Namespaces: []string{"team-a", "empty"}, Dest: dest, IncludeSecretValues: true})
		checkInspect(t, c)
		checkLists(t, c, srv, sum.CollectedAt, false)
		for rel, cl := range c.class {
			if cl.Namespaced && cl.Key.Namespace != "team-a" && cl.Key.Namespace != "empty" {
				t.Errorf("%s is outside the namespaces asked for", rel)
			}
		}
		if !bytes.Contains(c.files["cluster-resources/secrets/team-a.json"], []byte(`"aHVudGVyMg=="`)) {
			t.Error("--include-secret-values did not keep the secret's value")
		}
		if c.files["cluster-resources/namespaces.json"] == nil || c.files["cluster-resources/pods/empty.table.json"] == nil {
			t.Error("cluster-scoped lists or the empty namespace's lists are missing")
		}
	})
}

func checkSummary(t *testing.T, sum *collect.Summary) {
	t.Helper()
	if !sum.TablesSameSecond || sum.CollectedAt.IsZero() || sum.CollectedAt.Nanosecond() != 0 {
		t.Errorf("tables not rendered in one second (%d bursts) or bad collectedAt %v", sum.TableBursts, sum.CollectedAt)
	}
	if want := "support-bundle-" + sum.CollectedAt.Format("2006-01-02T15_04_05"); sum.Root != want {
		t.Errorf("root %q, want %q", sum.Root, want)
	}
	for _, p := range sum.Problems {
		if !strings.HasPrefix(p.What, "log ") {
			t.Errorf("unexpected problem: %s: %s", p.What, p.Message)
		}
	}
	if sum.SecretValues != "masked" {
		t.Errorf("secret values %q", sum.SecretValues)
	}
}

func checkInspect(t *testing.T, c *collected) {
	t.Helper()
	r := c.report
	if r.Schema != contract.SchemaVersion || len(r.Problems) != 0 {
		t.Errorf("inspect: schema %q, problems %v", r.Schema, r.Problems)
	}
	for _, s := range r.Resources {
		if s.Tables != s.Lists || s.Lists == 0 {
			t.Errorf("inspect: %s has %d tables for %d lists", s.GVR(), s.Tables, s.Lists)
		}
	}
	if !strings.HasPrefix(c.root, "support-bundle-") {
		t.Errorf("root %q", c.root)
	}
}

// checkDiscovery: discovery.json and groups.json hold /apis's groups in
// its order, after the core group, and every group version's resources.
func checkDiscovery(t *testing.T, c *collected, srv *server) {
	t.Helper()
	d := c.discovery(t)
	var apis metav1.APIGroupList
	decode(t, "/apis", srv.get("/apis", nil, "application/json"), &apis)
	if d.BundleSchemaVersion != "1.0" || d.APIVersion != "v1" || d.KubernetesVersion != localtest.Version {
		t.Errorf("discovery header: %q %q %q", d.BundleSchemaVersion, d.APIVersion, d.KubernetesVersion)
	}
	if len(d.Groups) == 0 || d.Groups[0].Name != "" || !reflect.DeepEqual(d.Groups[1:], apis.Groups) {
		t.Errorf("discovery groups differ from /apis")
	}
	var groups []metav1.APIGroup
	decode(t, "groups.json", c.files["cluster-resources/groups.json"], &groups)
	if !reflect.DeepEqual(groups, d.Groups) {
		t.Error("groups.json differs from discovery.json")
	}
	for _, g := range d.Groups {
		for _, v := range g.Versions {
			path := "/apis/" + v.GroupVersion
			if g.Name == "" {
				path = "/api/" + v.GroupVersion
			}
			var live metav1.APIResourceList
			decode(t, path, srv.get(path, nil, "application/json"), &live)
			if names(live.APIResources) != names(d.Resources[v.GroupVersion]) {
				t.Errorf("%s: discovery has %s, the server %s", v.GroupVersion, names(d.Resources[v.GroupVersion]), names(live.APIResources))
			}
		}
	}
	if _, ok := d.Resource("v1", "pods/log"); !ok {
		t.Error("discovery lacks the pods/log subresource")
	}
}

func names(rs []metav1.APIResource) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return strings.Join(out, ",")
}

func checkSelectableFields(t *testing.T, c *collected) {
	t.Helper()
	read := func(gvr schema.GroupVersionResource) []string {
		data := c.files[contract.SelectableFieldsPath(gvr)]
		labels, err := contract.ParseSelectableFieldsFile(data)
		if err != nil {
			t.Fatalf("%s: %v", contract.SelectableFieldsPath(gvr), err)
		}
		return labels
	}
	pods := read(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	if !contains(pods, "spec.nodeName") || !contains(pods, "status.phase") {
		t.Errorf("pods: %v", pods)
	}
	if rs := read(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}); !reflect.DeepEqual(rs, []string{"metadata.name", "metadata.namespace"}) {
		t.Errorf("replicasets: %v", rs)
	}
	if nodes := read(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}); !reflect.DeepEqual(nodes, []string{"metadata.name", "spec.unschedulable"}) {
		t.Errorf("nodes: %v", nodes)
	}
	if w := read(widgetsGVR); !reflect.DeepEqual(w, []string{"metadata.name", "metadata.namespace", "spec.color"}) {
		t.Errorf("widgets: %v", w)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// checkSecrets: no secret value is anywhere in the bundle, yet the keys
// are, and the table still counts them.
func checkSecrets(t *testing.T, c *collected) {
	t.Helper()
	for rel, data := range c.files {
		for _, v := range []string{"aHVudGVyMg==", "YWRtaW4=", "hunter2"} {
			if bytes.Contains(data, []byte(v)) {
				t.Errorf("%s holds the secret value %s", rel, v)
			}
		}
	}
	var list struct {
		Items []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Data     map[string]string `json:"data"`
		} `json:"items"`
	}
	decode(t, "secrets", c.files["cluster-resources/secrets/team-a.json"], &list)
	if len(list.Items) != 1 || !reflect.DeepEqual(list.Items[0].Data, map[string]string{"password": "KioqSElEREVOKioq", "user": "KioqSElEREVOKioq"}) {
		t.Fatalf("secrets: %+v", list.Items)
	}
	applied := list.Items[0].Metadata.Annotations["kubectl.kubernetes.io/last-applied-configuration"]
	if !strings.Contains(applied, `"data":{"password":"KioqSElEREVOKioq"}`) || !strings.HasSuffix(applied, "}\n") {
		t.Errorf("last-applied annotation: %q", applied)
	}
	if !bytes.Contains(c.files["cluster-resources/secrets/team-a.table.json"], []byte(`"cells":["db","Opaque",2,`)) {
		t.Errorf("secrets table: %s", c.files["cluster-resources/secrets/team-a.table.json"])
	}
}

// checkLogs: the cluster has no kubelet, so every log fails, is reported
// and recorded where troubleshoot records log errors.
func checkLogs(t *testing.T, c *collected, sum *collect.Summary) {
	t.Helper()
	if sum.Logs != 0 || sum.LogFailures != 3 {
		t.Errorf("logs: %d collected, %d failed; want 0 and 3 (app, app previous, sidecar)", sum.Logs, sum.LogFailures)
	}
	for _, f := range []string{"app-logs-errors.log", "app-previous-logs-errors.log", "sidecar-logs-errors.log"} {
		if c.files["cluster-resources/pods/logs/team-a/web-1/"+f] == nil {
			t.Errorf("%s is missing", f)
		}
	}
}
