package transform

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
)

func loadBuiltinForTest(t *testing.T) *builtinOpenAPI {
	t.Helper()
	b, err := loadBuiltinOpenAPI(pinnedMinor)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Splitting the v2 document and writing it back is the identity: the
// documents the upgrade writes keep the server's bytes where nothing
// changed.
func TestFilterOpenAPIV2KeepingEverythingIsTheDocument(t *testing.T) {
	b := loadBuiltinForTest(t)
	got, err := filterOpenAPIV2(b.v2, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.v2) {
		t.Errorf("the document changed (%d bytes, was %d)", len(got), len(b.v2))
	}
}

type v2Doc struct {
	Paths       map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"`
	Parameters  map[string]json.RawMessage `json:"parameters"`
}

func decodeV2(t *testing.T, data []byte) v2Doc {
	t.Helper()
	var d v2Doc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// checkV2Closed: every reference resolves and every definition is
// reached, as in a document the server builds.
func checkV2Closed(t *testing.T, d v2Doc) {
	t.Helper()
	reached := map[string]bool{}
	for _, v := range d.Paths {
		definitionRefs(v, reached)
	}
	for _, v := range d.Parameters {
		definitionRefs(v, reached)
	}
	for _, v := range d.Definitions {
		definitionRefs(v, reached)
	}
	for name := range reached {
		if d.Definitions[name] == nil {
			t.Errorf("#/definitions/%s is referred to but not defined", name)
		}
	}
	for name := range d.Definitions {
		if !reached[name] {
			t.Errorf("%s is defined but not used", name)
		}
	}
}

// A bundle advertising the release's default API gets the documents of
// those group versions only, and a v2 document cut down to them.
func TestSynthesizeOpenAPIForTheDefaultAPI(t *testing.T) {
	b := loadBuiltinForTest(t)
	d := newBuiltinDiscovery(pinnedMinor)
	files, problems := synthesizeOpenAPI(d, nil, pinnedMinor)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	for gv := range discoveryGroupVersions(d) {
		p := openAPIPath(gv)
		if !bytes.Equal(files.v3[p], b.v3[p]) {
			t.Errorf("%s is not the built-in document", p)
		}
	}
	for _, p := range []string{"api", "apis", "apis/apps", "version", ".well-known/openid-configuration"} {
		if !bytes.Equal(files.v3[p], b.v3[p]) {
			t.Errorf("%s is not the built-in document", p)
		}
	}
	// Alpha versions are off by default.
	for _, p := range []string{"apis/admissionregistration.k8s.io/v1alpha1", "apis/storagemigration.k8s.io/v1beta1", "apis/lifecycle.k8s.io"} {
		if _, ok := files.v3[p]; ok {
			t.Errorf("%s is not served by default", p)
		}
		if _, ok := b.v3[p]; !ok {
			t.Errorf("the built-in data lacks %s", p)
		}
	}
	v2 := decodeV2(t, files.v2)
	for p := range v2.Paths {
		if strings.Contains(p, "v1alpha1") || strings.HasPrefix(p, "/apis/lifecycle.k8s.io/") || strings.HasPrefix(p, "/apis/storagemigration.k8s.io/v1beta1/") {
			t.Errorf("v2 has %s", p)
		}
	}
	if v2.Paths["/api/v1/namespaces/{namespace}/pods/{name}"] == nil || v2.Paths["/apis/apps/"] == nil || v2.Definitions["io.k8s.api.core.v1.Pod"] == nil {
		t.Error("v2 lacks pods, /apis/apps/ or the Pod definition")
	}
	if v2.Definitions["io.k8s.api.storagemigration.v1beta1.StorageVersionMigration"] != nil {
		t.Error("v2 keeps the definitions of versions not served")
	}
	checkV2Closed(t, v2)
}

// A legacy bundle's CRDs get documents built as the apiextensions server
// builds them, merged into v2; versions the release does not know get none.
func TestSynthesizeOpenAPIWithCRDs(t *testing.T) {
	data, err := os.ReadFile("../testdata/example-bundle/support-bundle-2025-11-20T10_00_00/" + contract.CRDListPath)
	if err != nil {
		t.Fatal(err)
	}
	crds, problems := newCRDIndex(data)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	d, _ := buildDiscovery(discoveryInput{crds: crds})
	d.Groups = append(d.Groups, metav1.APIGroup{Name: "batch", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "batch/v1beta1", Version: "v1beta1"}}})
	files, problems := synthesizeOpenAPI(d, crds, pinnedMinor)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if _, ok := files.v3["apis/batch/v1beta1"]; ok {
		t.Error("a document for batch/v1beta1, which 1.35 does not serve")
	}
	var doc struct {
		Info       map[string]string `json:"info"`
		Paths      map[string]json.RawMessage
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage
				GVK        []map[string]string `json:"x-kubernetes-group-version-kind"`
			}
		}
	}
	if err := json.Unmarshal(files.v3["apis/example.com/v1"], &doc); err != nil {
		t.Fatal(err)
	}
	widget, gadget := doc.Components.Schemas["com.example.v1.Widget"], doc.Components.Schemas["com.example.v1.Gadget"]
	if widget.Properties["spec"] == nil || len(widget.GVK) != 1 || widget.GVK[0]["kind"] != "Widget" || gadget.GVK == nil {
		t.Errorf("example.com/v1: %+v %+v", widget, gadget)
	}
	if doc.Info["title"] != "Kubernetes CRD Swagger" || doc.Paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"] == nil || doc.Paths["/apis/example.com/v1/gadgets/{name}"] == nil {
		t.Errorf("example.com/v1 paths: %v", doc.Info)
	}
	v2 := decodeV2(t, files.v2)
	if v2.Definitions["com.example.v1.Widget"] == nil || v2.Paths["/apis/example.com/v1/gadgets"] == nil {
		t.Error("the CRDs are not in v2")
	}
	for name := range v2.Definitions {
		if strings.Contains(name, "_v") {
			t.Errorf("%s: the CRDs' definitions conflicted with the built-in ones", name)
		}
	}
	checkV2Closed(t, v2)
	// What the CRDs do not touch keeps the server's bytes.
	b := loadBuiltinForTest(t)
	builtin := decodeV2(t, b.v2)
	if !bytes.Equal(v2.Definitions["io.k8s.api.core.v1.Pod"], builtin.Definitions["io.k8s.api.core.v1.Pod"]) {
		t.Error("the Pod definition changed")
	}
}

// 1.23 and older did not serve /openapi/v3 (the OpenAPIV3 gate was off):
// a bundle of theirs gets /openapi/v2 only, which kubectl explains from.
func TestSynthesizeOpenAPIBefore124(t *testing.T) {
	d := newBuiltinDiscovery(23)
	files, problems := synthesizeOpenAPI(d, nil, 23)
	if len(problems) > 0 || files == nil {
		t.Fatalf("%v", problems)
	}
	if len(files.v3) != 0 || len(files.v2) == 0 {
		t.Errorf("1.23: %d /openapi/v3 documents, %d bytes of /openapi/v2", len(files.v3), len(files.v2))
	}
	if files, _ := synthesizeOpenAPI(d, nil, 24); files == nil || len(files.v3) == 0 {
		t.Error("1.24 has no /openapi/v3 documents")
	}
}
