package index

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/bundlectl/bundlectl/contract"
)

// Deprecated APIs warn as kube-apiserver 1.35.4 does (the texts are the
// ones a live server sent to kubectl in the conformance gate).
func TestDeprecationWarnings(t *testing.T) {
	d := &contract.Discovery{Resources: map[string][]metav1.APIResource{
		"v1": {{Name: "endpoints", Kind: "Endpoints"}, {Name: "componentstatuses", Kind: "ComponentStatus"}, {Name: "pods", Kind: "Pod"}},
	}}
	crd := apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1", Served: true}, {Name: "v1beta1", Served: true, Deprecated: true}, {Name: "v2", Served: true, Deprecated: true},
		},
	}}
	got := deprecations(d, version.Info{Major: "1", Minor: "35"}, []apiextensionsv1.CustomResourceDefinition{crd})
	for key, want := range map[string]string{
		"v1/endpoints":                  "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
		"v1/componentstatuses":          "v1 ComponentStatus is deprecated in v1.19+",
		"example.com/v1beta1/widgets":   "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget",
		"example.com/v2/widgets/status": "example.com/v2 Widget is deprecated",
	} {
		if len(got[key]) != 1 || got[key][0] != want {
			t.Errorf("%s: %q, want %q", key, got[key], want)
		}
	}
	if len(got["v1/pods"]) != 0 || len(got["example.com/v1/widgets"]) != 0 {
		t.Errorf("current APIs warn: %v", got)
	}
	// A bundle of a cluster before Endpoints was deprecated gets no warning.
	if old := deprecations(d, version.Info{Major: "1", Minor: "31+"}, nil); len(old["v1/endpoints"]) != 0 || len(old["v1/componentstatuses"]) != 1 {
		t.Errorf("at 1.31: %v", old)
	}
}
