package index

import (
	"slices"
	"strings"
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

// Each bundle warns as the server of its own minor did, with the
// lifecycles its release declared, for versions the pin no longer has too.
func TestDeprecationWarningsPerMinor(t *testing.T) {
	d := &contract.Discovery{Resources: map[string][]metav1.APIResource{
		"storagemigration.k8s.io/v1alpha1":      {{Name: "storageversionmigrations", Kind: "StorageVersionMigration"}, {Name: "storageversionmigrations/status", Kind: "StorageVersionMigration"}},
		"certificates.k8s.io/v1alpha1":          {{Name: "clustertrustbundles", Kind: "ClusterTrustBundle"}},
		"batch/v1beta1":                         {{Name: "cronjobs", Kind: "CronJob"}, {Name: "cronjobs/status", Kind: "CronJob"}},
		"autoscaling/v2beta2":                   {{Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler"}},
		"apiextensions.k8s.io/v1beta1":          {{Name: "customresourcedefinitions", Kind: "CustomResourceDefinition"}},
		"admissionregistration.k8s.io/v1alpha1": {{Name: "validatingadmissionpolicies", Kind: "ValidatingAdmissionPolicy"}},
		"storage.k8s.io/v1alpha1":               {{Name: "volumeattributesclasses", Kind: "VolumeAttributesClass"}},
		"apps/v1":                               {{Name: "deployments", Kind: "Deployment"}, {Name: "deployments/scale", Group: "autoscaling", Version: "v1", Kind: "Scale"}},
		"v1":                                    {{Name: "pods/eviction", Group: "policy", Version: "v1beta1", Kind: "Eviction"}},
	}}
	for _, tc := range []struct {
		version string
		want    map[string]string // resource -> warning; "" for none
	}{
		// The texts the live servers sent (the conformance gate against
		// v1.34.12, v1.33.13 and v1.31.14).
		{"1.34", map[string]string{
			"storagemigration.k8s.io/v1alpha1/storageversionmigrations":        "storagemigration.k8s.io/v1alpha1 StorageVersionMigration is deprecated in v1.33+, unavailable in v1.36+",
			"storagemigration.k8s.io/v1alpha1/storageversionmigrations/status": "storagemigration.k8s.io/v1alpha1 StorageVersionMigration is deprecated in v1.33+, unavailable in v1.36+",
			// 1.32 moved ClusterTrustBundle's v1alpha1 deprecation to 1.34.
			"certificates.k8s.io/v1alpha1/clustertrustbundles": "certificates.k8s.io/v1alpha1 ClusterTrustBundle is deprecated in v1.34+, unavailable in v1.37+",
			"apps/v1/deployments/scale":                        "",
			"storage.k8s.io/v1alpha1/volumeattributesclasses":  "storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, unavailable in v1.35+; use storage.k8s.io/v1 VolumeAttributesClass",
		}},
		{"1.31", map[string]string{
			"certificates.k8s.io/v1alpha1/clustertrustbundles": "certificates.k8s.io/v1alpha1 ClusterTrustBundle is deprecated in v1.29+, unavailable in v1.32+",
			// Its lifecycle was first declared in 1.32's k8s.io/api: the
			// live v1.31.14 sent no warning.
			"admissionregistration.k8s.io/v1alpha1/validatingadmissionpolicies": "",
			"storagemigration.k8s.io/v1alpha1/storageversionmigrations":         "",
		}},
		// Not yet deprecated at the bundle's minor; and without the
		// replacement 1.34's k8s.io/api added, as the live v1.33.13 sent.
		{"1.33", map[string]string{
			"certificates.k8s.io/v1alpha1/clustertrustbundles": "",
			"storage.k8s.io/v1alpha1/volumeattributesclasses":  "storage.k8s.io/v1alpha1 VolumeAttributesClass is deprecated in v1.32+, unavailable in v1.35+",
		}},
		{"1.32", map[string]string{"storagemigration.k8s.io/v1alpha1/storageversionmigrations": ""}},
		// Removed before the pin: its release's own lifecycle, which
		// changed between 1.20 (deprecated in 1.22, no replacement) and 1.21.
		{"1.24", map[string]string{
			"batch/v1beta1/cronjobs":                       "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob",
			"batch/v1beta1/cronjobs/status":                "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob",
			"autoscaling/v2beta2/horizontalpodautoscalers": "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler",
		}},
		{"1.22", map[string]string{"autoscaling/v2beta2/horizontalpodautoscalers": ""}},
		{"1.20", map[string]string{"batch/v1beta1/cronjobs": ""}},
		// The apiextensions server's own kinds.
		{"1.21", map[string]string{
			"batch/v1beta1/cronjobs":                                 "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob",
			"apiextensions.k8s.io/v1beta1/customresourcedefinitions": "apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition",
			"v1/pods/eviction":                                       "",
		}},
		// 1.19, the first release that warned, has 1.20's lifecycles.
		{"1.19", map[string]string{"apiextensions.k8s.io/v1beta1/customresourcedefinitions": "apiextensions.k8s.io/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use apiextensions.k8s.io/v1 CustomResourceDefinition"}},
		// Servers before 1.19 sent no warnings.
		{"1.18", map[string]string{"apiextensions.k8s.io/v1beta1/customresourcedefinitions": ""}},
		// Newer than the pin: the pin's lifecycles.
		{"1.40", map[string]string{"certificates.k8s.io/v1alpha1/clustertrustbundles": "certificates.k8s.io/v1alpha1 ClusterTrustBundle is deprecated in v1.34+, unavailable in v1.37+"}},
		// Unknown: the pin's lifecycles, and every deprecated kind warns, as
		// a server without version information does; a subresource warns
		// for the kind discovery names (policy/v1beta1 Eviction, not v1).
		{"", map[string]string{
			"storagemigration.k8s.io/v1alpha1/storageversionmigrations": "",
			"batch/v1beta1/cronjobs":                                    "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob",
			"v1/pods/eviction":                                          "policy/v1beta1 Eviction is deprecated in v1.22+, unavailable in v1.25+",
		}},
	} {
		v := version.Info{}
		if tc.version != "" {
			v.Major, v.Minor, _ = strings.Cut(tc.version, ".")
		}
		got := deprecations(d, v, nil)
		for key, want := range tc.want {
			var wantList []string
			if want != "" {
				wantList = []string{want}
			}
			if !slices.Equal(got[key], wantList) {
				t.Errorf("%s %s: %q, want %q", tc.version, key, got[key], wantList)
			}
		}
	}
}
