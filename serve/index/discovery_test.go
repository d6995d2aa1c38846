package index

import (
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// The aggregated formats follow the bundle's server: v2beta1 came on by
// default in 1.27 (the live 1.26 answered it with the plain APIGroupList)
// and went away by default in 1.33 (AggregatedDiscoveryRemoveBetaType), v2
// came in 1.30.
func TestAggregatedFormats(t *testing.T) {
	for _, tc := range []struct {
		major, minor string
		v2, v2beta1  bool
	}{
		{"1", "35", true, false}, {"1", "33+", true, false}, {"1", "31", true, true},
		{"1", "28", false, true}, {"1", "27", false, true}, {"1", "26", false, false}, {"1", "24", false, false},
		{"", "", true, true},
	} {
		got := aggregatedFormats(version.Info{Major: tc.major, Minor: tc.minor})
		if got["v2"] != tc.v2 || got["v2beta1"] != tc.v2beta1 {
			t.Errorf("%s.%s: %v", tc.major, tc.minor, got)
		}
	}
}

// Custom resources are listed as the apiextensions discovery controller
// lists them: their kind and status carry the group version, status
// comes before scale.
func TestAggregatedCustomResources(t *testing.T) {
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	list := []metav1.APIResource{
		{Name: "widgets", Namespaced: true, Kind: "Widget", Verbs: []string{"get", "list"}},
		{Name: "widgets/status", Namespaced: true, Kind: "Widget", Verbs: []string{"get", "patch", "update"}},
		{Name: "widgets/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}},
	}
	got := toAggregatedResources(gv, list, map[schema.GroupResource]bool{{Group: "example.com", Resource: "widgets"}: true})
	if len(got) != 1 || *got[0].ResponseKind != (metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}) {
		t.Fatalf("%+v", got)
	}
	subs := got[0].Subresources
	if len(subs) != 2 || subs[0].Subresource != "status" || *subs[0].ResponseKind != (metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}) ||
		subs[1].Subresource != "scale" || *subs[1].ResponseKind != (metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}) {
		t.Errorf("subresources %+v", subs)
	}
	// A built-in resource keeps the installer's empty group and version.
	if b := toAggregatedResources(gv, list, nil); b[0].ResponseKind.Group != "" {
		t.Errorf("built-in %+v", b[0].ResponseKind)
	}
	// Custom resources are sorted by name, whatever the order of the
	// legacy list (the CRD lister's); built-in ones keep the installer's.
	unsorted := []metav1.APIResource{{Name: "widgets", Kind: "Widget"}, {Name: "gadgets", Kind: "Gadget"}, {Name: "widgets/status", Kind: "Widget"}}
	custom := map[schema.GroupResource]bool{{Group: "example.com", Resource: "widgets"}: true, {Group: "example.com", Resource: "gadgets"}: true}
	if c := toAggregatedResources(gv, unsorted, custom); len(c) != 2 || c[0].Resource != "gadgets" || c[1].Resource != "widgets" || len(c[1].Subresources) != 1 {
		t.Errorf("custom resources in the order %+v", c)
	}
	if b := toAggregatedResources(gv, unsorted, nil); b[0].Resource != "widgets" {
		t.Errorf("built-in resources in the order %+v", b)
	}
}

// Servers before 1.34 wrote each group's zero creationTimestamp as null
// (apimachinery v0.33 had no omitzero); the list's own metadata stays {}.
func TestAggregatedNullCreation(t *testing.T) {
	items := []apidiscoveryv2.APIGroupDiscovery{{}, {ObjectMeta: metav1.ObjectMeta{Name: "apps"}}}
	for _, tc := range []struct {
		minor string
		want  string
	}{
		{"33", `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"creationTimestamp":null}},{"metadata":{"name":"apps","creationTimestamp":null}}]}` + "\n"},
		{"34", `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{}},{"metadata":{"name":"apps"}}]}` + "\n"},
	} {
		doc, err := renderAggregated(items, writesNullCreation(version.Info{Major: "1", Minor: tc.minor}))
		if err != nil {
			t.Fatal(err)
		}
		if string(doc.V2) != tc.want {
			t.Errorf("1.%s:\n got %s\nwant %s", tc.minor, doc.V2, tc.want)
		}
		if !strings.Contains(string(doc.V2beta1), `"apiVersion":"apidiscovery.k8s.io/v2beta1"`) || len(doc.V2beta1) != len(doc.V2)+len("beta1") {
			t.Errorf("1.%s: v2beta1 %s", tc.minor, doc.V2beta1)
		}
	}
	if writesNullCreation(version.Info{}) {
		t.Error("a bundle without a version is answered as the pinned server")
	}
}
