package contract_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
)

func TestDiscoveryVersionPolicy(t *testing.T) {
	ok := []string{
		`{"bundleSchemaVersion":"1.0","collectedAt":"2025-10-06T16:17:57Z","kubernetesVersion":"v1.33.4","apiVersion":"v1","groups":[],"resources":{}}`,
		`{"bundleSchemaVersion":"1.7","collectedAt":"2025-10-06T16:17:57Z","aFieldFrom1_7":{"x":1},"groups":[],"resources":{}}`,
	}
	for _, doc := range ok {
		d, err := contract.ParseDiscovery([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if !d.CollectedTime().Equal(time.Date(2025, 10, 6, 16, 17, 57, 0, time.UTC)) {
			t.Errorf("collectedAt = %v", d.CollectedAt)
		}
	}
	_, err := contract.ParseDiscovery([]byte(`{"bundleSchemaVersion":"2.0"}`))
	var unsupported *contract.UnsupportedSchemaError
	if !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "upgrade bundlectl") {
		t.Errorf("schema 2.0: %v", err)
	}
	for _, bad := range []string{`{}`, `{"bundleSchemaVersion":"one"}`, `not json`} {
		if _, err := contract.ParseDiscovery([]byte(bad)); err == nil || !strings.Contains(err.Error(), contract.DiscoveryPath()) {
			t.Errorf("%s: error %v should name %s", bad, err, contract.DiscoveryPath())
		}
	}
}

func TestDiscoveryMarshalIsDeterministic(t *testing.T) {
	doc := `{"bundleSchemaVersion":"1.0","collectedAt":"2025-10-06T16:17:57Z","apiVersion":"v1","groups":[],
	"resources":{"v1":[{"name":"pods","namespaced":true,"kind":"Pod","verbs":["get"],"singularName":"pod"},{"name":"bindings","namespaced":true,"kind":"Binding","verbs":["create"],"singularName":"binding"}],
	"apps/v1":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["get"],"singularName":"deployment"}]}}`
	d, err := contract.ParseDiscovery([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	d2, err := contract.ParseDiscovery(a)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d2.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("marshal is not stable:\n%s\n%s", a, b)
	}
	if strings.Index(string(a), `"bindings"`) < strings.Index(string(a), `"pods"`) {
		t.Errorf("resources are not in the order the server listed them")
	}
	if r, ok := d.Resource("apps/v1", "deployments"); !ok || r.Kind != "Deployment" {
		t.Errorf("Resource lookup: %+v %v", r, ok)
	}
}

func TestParseFolderTime(t *testing.T) {
	for name, want := range map[string]string{
		"support-bundle-2025-10-06T16_17_57":               "2025-10-06T16:17:57Z",
		"support-bundle-2020-09-25T15:15:16.tar.gz":        "2020-09-25T15:15:16Z",
		"preflightbundle-2025-12-10T17_26_50":              "2025-12-10T17:26:50Z",
		"/tmp/x/support-bundle-2021-03-24T00_39_51.tar.gz": "2021-03-24T00:39:51Z",
	} {
		got, ok := contract.ParseFolderTime(name)
		if !ok || got.Format(time.RFC3339) != want {
			t.Errorf("%s: %v %v, want %s", name, got, ok, want)
		}
	}
	if _, ok := contract.ParseFolderTime("supportbundle"); ok {
		t.Error("supportbundle has no time")
	}
}

// Names no API server serves are left out of discovery, each said: one
// group kubectl cannot parse would fail every kubectl command.
func TestDiscoveryDropsInvalidNames(t *testing.T) {
	doc := `{"bundleSchemaVersion":"1.0","collectedAt":"2025-10-06T16:17:57Z","apiVersion":"v1",
	"groups":[
	  {"name":"","versions":[{"groupVersion":"v1","version":"v1"}],"preferredVersion":{"groupVersion":"v1","version":"v1"}},
	  {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"},{"groupVersion":"apps/V2!","version":"V2!"}],"preferredVersion":{"groupVersion":"apps/V2!","version":"V2!"}},
	  {"name":"bad/group","versions":[{"groupVersion":"bad/group/v1","version":"v1"}],"preferredVersion":{"groupVersion":"bad/group/v1","version":"v1"}},
	  {"name":"example.com","versions":[{"groupVersion":"other.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"other.io/v1","version":"v1"}}],
	"resources":{
	  "v1":[{"name":"pods","namespaced":true,"kind":"Pod","verbs":["get"]},{"name":"pods/log","namespaced":true,"kind":"Pod","verbs":["get"]},
	        {"name":"Bad Name","namespaced":true,"kind":"X","verbs":["get"]},{"name":"a/b/c","namespaced":true,"kind":"X","verbs":["get"]}],
	  "apps/v1":[{"name":"deployments/scale","group":"autoscaling","version":"v1","namespaced":true,"kind":"Scale","verbs":["get"]}],
	  "bad/group/v1":[{"name":"things","namespaced":true,"kind":"Thing","verbs":["get"]}],
	  "x_y/v1":[{"name":"things","namespaced":true,"kind":"Thing","verbs":["get"]}]}}`
	d, err := contract.ParseDiscovery([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range d.Groups {
		groups = append(groups, g.Name+":"+g.PreferredVersion.Version)
	}
	if strings.Join(groups, " ") != ":v1 apps:v1" {
		t.Errorf("groups %v, want the core group and apps at v1", groups)
	}
	var resources []string
	for gv, rs := range d.Resources {
		for _, r := range rs {
			resources = append(resources, gv+" "+r.Name)
		}
	}
	slices.Sort(resources)
	if strings.Join(resources, ", ") != "apps/v1 deployments/scale, v1 pods, v1 pods/log" {
		t.Errorf("resources %v", resources)
	}
	var said []string
	for _, err := range d.Invalid {
		said = append(said, err.Error())
	}
	for _, want := range []string{`group "apps" version "V2!": not a valid version`, `group "bad/group": not a valid group name`,
		`group "example.com" version "v1": its groupVersion is "other.io/v1", not "example.com/v1"`, `group "example.com": no valid version`,
		`resource "Bad Name" of v1: not a valid resource name`, `resource "a/b/c" of v1: not a resource or subresource name`,
		`resources of "bad/group/v1": not a group version`, `resources of "x_y/v1": not a valid group name`} {
		if !slices.ContainsFunc(said, func(s string) bool { return strings.HasPrefix(s, want) && strings.HasSuffix(s, "; left out") }) {
			t.Errorf("nothing says %q; said %q", want, said)
		}
	}
	if len(said) != 8 {
		t.Errorf("said %d things, want 8: %q", len(said), said)
	}
}
