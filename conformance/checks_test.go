package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testInventory() *Inventory {
	run := map[string]string{fixtureRunLabel: "fx"}
	return &Inventory{
		Resources: []*Resource{
			{Version: "v1", Plural: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "list"}, Objects: []ObjectRef{
				{Namespace: "fx-a", Name: "web", Labels: run},
				{Namespace: "fx-b", Name: "cache", Labels: run},
				{Namespace: "fx-b", Name: "db", Labels: run},
			}},
			{Version: "v1", Plural: "nodes", Kind: "Node", Verbs: []string{"get", "list"}, Objects: []ObjectRef{
				{Name: "a-system-node"},
				{Name: "fx-node", Labels: run},
			}},
			{Group: "apps", Version: "v1", Plural: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "list"}},
			{Version: "v1", Plural: "componentstatuses", Kind: "ComponentStatus", Verbs: []string{"get", "list"}, Objects: []ObjectRef{{Name: "etcd-0"}}},
		},
		Logs: []LogRef{{Namespace: "fx-a", Pod: "web", Container: "app"}, {Namespace: "fx-a", Pod: "web", Container: "app", Previous: true}},
	}
}

func TestEmbeddedChecksExpand(t *testing.T) {
	f, err := LoadChecks(nil)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := f.Expand(testInventory(), "fx", []string{"fx-a", "fx-b", "fx-c"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Case{}
	for _, c := range cases {
		if _, dup := byID[c.ID]; dup {
			t.Errorf("case %s twice", c.ID)
		}
		byID[c.ID] = c
	}
	for id, want := range map[string]string{
		// The namespace with most objects of the resource, the run's own object.
		"get/pods":                   "kubectl get pods --namespace=fx-b",
		"get-field-selector/pods":    "kubectl get pods --namespace=fx-b --field-selector=metadata.name=cache",
		"get-one/nodes":              "kubectl get nodes fx-node -o wide",
		"get-all-namespaces/pods":    "kubectl get pods --all-namespaces --selector=bundlectl.dev/fixture-run=fx",
		"get/deployments.apps":       "kubectl get deployments.v1.apps --namespace=fx-a",
		"describe/pods/fx-b/db":      "kubectl describe pods db --namespace=fx-b",
		"describe/nodes/fx-node":     "kubectl describe nodes fx-node",
		"logs/fx-a/web/app":          "kubectl logs web --container=app --namespace=fx-a",
		"logs/fx-a/web/app-previous": "kubectl logs web --container=app --namespace=fx-a --previous",
		"raw-table/pods":             "GET /api/v1/namespaces/fx-b/pods (Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json)",
		"raw-not-found-object":       "GET /api/v1/namespaces/fx-a/pods/does-not-exist",
	} {
		c, ok := byID[id]
		if !ok {
			t.Errorf("no case %s", id)
			continue
		}
		if got := c.Command(); got != want {
			t.Errorf("%s: %s\nwant %s", id, got, want)
		}
	}
	for _, id := range []string{
		"get-field-selector/deployments.apps", // no object
		"get-all-namespaces/nodes",            // cluster-scoped
		"describe/nodes/a-system-node",        // not the run's
	} {
		if _, ok := byID[id]; ok {
			t.Errorf("case %s should not exist", id)
		}
	}
	// The resource rule adds its normalization to every case of the resource.
	if c := byID["get/componentstatuses"]; !contains(c.Normalize, NormUnorderedRows) || !contains(c.Normalize, NormAges) {
		t.Errorf("get/componentstatuses normalizations %v", c.Normalize)
	}
	if c := byID["get/pods"]; contains(c.Normalize, NormUnorderedRows) {
		t.Errorf("get/pods normalizations %v", c.Normalize)
	}

	// Without fixtures, the checks about the run's objects are skipped.
	cases, err = f.Expand(testInventory(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if strings.HasPrefix(c.ID, "describe/") || strings.HasPrefix(c.ID, "get-all-namespaces/") || c.ID == "auth-can-i" {
			t.Errorf("case %s without fixtures", c.ID)
		}
		// The namespace with the most objects of the resource, of all.
		if c.ID == "get/pods" && c.Command() != "kubectl get pods --namespace=fx-b" {
			t.Errorf("without fixtures: %s", c.Command())
		}
	}
}

func TestParseChecksRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"both":                "checks:\n- name: x\n  kubectl: [get, pods]\n  request: {path: /api}\n",
		"neither":             "checks:\n- name: x\n",
		"bad name":            "checks:\n- name: X Y\n  kubectl: [get]\n",
		"bad for":             "checks:\n- name: x\n  for: pods\n  kubectl: [get]\n",
		"bad template":        "checks:\n- name: x\n  kubectl: [get, '{{.Resource']\n",
		"bad normalization":   "checks:\n- name: x\n  kubectl: [get]\n  normalize: [age]\n",
		"bad compare":         "checks:\n- name: x\n  kubectl: [get]\n  compare: [body]\n",
		"unknown field":       "checks:\n- name: x\n  kubectl: [get]\n  normalise: [ages]\n",
		"duplicate":           "checks:\n- name: x\n  kubectl: [get]\n- name: x\n  kubectl: [get]\n",
		"rule without reason": "resources:\n  pods:\n    normalize: [ages]\nchecks: []\n",
	} {
		if _, err := ParseChecks(name, []byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLoadChecksAddsUserChecks(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(user, []byte("checks:\n- name: my-pods\n  for: namespaces\n  kubectl: [get, pods, '{{.NamespaceFlag}}', -o, wide]\n  normalize: [ages]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := LoadChecks([]string{user})
	if err != nil {
		t.Fatal(err)
	}
	cases, err := f.Expand(testInventory(), "fx", []string{"fx-a"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cases {
		if c.ID == "my-pods/fx-a" && c.Command() == "kubectl get pods --namespace=fx-a -o wide" {
			found = true
		}
	}
	if !found {
		t.Error("the user's check was not expanded")
	}
	// A user check may not redefine a built-in one.
	if err := os.WriteFile(user, []byte("checks:\n- name: get\n  kubectl: [get, pods]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadChecks([]string{user}); err == nil || !strings.Contains(err.Error(), "already defined") {
		t.Errorf("err = %v", err)
	}
}

// Every case whose output holds events gets eventRepeats: each check of
// the events resources (by the resource rule, raw-table and get -o json
// included), and the checks that print events of other resources or by
// namespace; no other case does.
func TestEventRepeatsReachesEveryEventsCase(t *testing.T) {
	inv := testInventory()
	events := []ObjectRef{{Namespace: "fx-a", Name: "web.18ec27328a74aba0"}}
	inv.Resources = append(inv.Resources,
		&Resource{Version: "v1", Plural: "events", Kind: "Event", Namespaced: true, Verbs: []string{"get", "list"}, Objects: events},
		&Resource{Group: "events.k8s.io", Version: "v1", Plural: "events", Kind: "Event", Namespaced: true, Verbs: []string{"get", "list"}, Objects: events})
	f, err := LoadChecks(nil)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := f.Expand(inv, "fx", []string{"fx-a", "fx-b"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range []string{"get/events", "get-wide/events.events.k8s.io", "get-json/events.events.k8s.io", "get-one-yaml/events",
		"get-selector-not/events", "get-field-selector-not/events.events.k8s.io", "raw-table/events", "field-selector-events/fx-b",
		"field-selector-events-v1/fx-a", "field-selector-events-v1-regarding/fx-a", "get-events-api-group", "events/fx-a",
		"describe/pods/fx-b/db", "describe-nodes/nodes/fx-node"} {
		want[id] = true
	}
	for _, c := range cases {
		got := contains(c.Normalize, NormEventRepeats)
		switch {
		case want[c.ID] && !got:
			t.Errorf("%s: normalizations %v, want eventRepeats", c.ID, c.Normalize)
		case got && !strings.Contains(c.ID, "events") && !strings.HasPrefix(c.ID, "describe"):
			t.Errorf("%s: eventRepeats on a case without events", c.ID)
		}
		delete(want, c.ID)
	}
	for id := range want {
		t.Errorf("no case %s", id)
	}
}
