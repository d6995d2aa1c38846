package contract_test

import (
	"errors"
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
