package transform

import (
	"strings"
	"testing"
)

// A CRD the apiserver did not establish (its short name taken by another
// CRD of the group) is neither in the server's discovery nor in its
// OpenAPI documents; a legacy bundle's synthesized ones must not have it
// either. A CRD without conditions is taken as served.
func TestDiscoveryLeavesOutCRDsNotEstablished(t *testing.T) {
	crd := func(plural, kind, status string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"` + plural + `.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"` + plural + `","singular":"` + strings.TrimSuffix(plural, "s") + `","kind":"` + kind + `","shortNames":["wdg"]},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}` +
			status + `}`
	}
	list := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinitionList","items":[` +
		crd("widgets", "Widget", `,"status":{"conditions":[
  {"type":"NamesAccepted","status":"True","reason":"NoConflicts","message":"no conflicts found"},
  {"type":"Established","status":"True","reason":"InitialNamesAccepted","message":"the initial names have been accepted"}],
 "acceptedNames":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wdg"]},"storedVersions":["v1"]}`) + `,` +
		crd("clashes", "Clash", `,"status":{"conditions":[
  {"type":"NamesAccepted","status":"False","reason":"ShortNamesConflict","message":"\"wdg\" is already in use"},
  {"type":"Established","status":"False","reason":"NotAccepted","message":"not all names are accepted"}],
 "acceptedNames":{"plural":"","kind":""},"storedVersions":["v1"]}`) + `,` +
		crd("bares", "Bare", ``) + `]}`
	crds, problems := newCRDIndex([]byte(list))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	d, problems := buildDiscovery(discoveryInput{crds: crds})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	var names []string
	for _, r := range d.Resources["example.com/v1"] {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "bares,widgets" {
		t.Errorf("example.com/v1 resources %s, want bares,widgets", got)
	}
	files, problems := synthesizeOpenAPI(d, crds, pinnedMinor)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	doc := string(files.v3["apis/example.com/v1"])
	if !strings.Contains(doc, "com.example.v1.Widget") || !strings.Contains(doc, "com.example.v1.Bare") {
		t.Errorf("the OpenAPI v3 document lacks an established CRD")
	}
	if strings.Contains(doc, "Clash") || strings.Contains(string(files.v2), "Clash") {
		t.Errorf("the OpenAPI documents describe a CRD that is not established")
	}
}
