package transform

import (
	"strings"
	"testing"
)

// TestMetricsDiscovery: metrics.k8s.io is advertised exactly when the
// bundle holds node metrics, whatever the collected discovery said.
func TestMetricsDiscovery(t *testing.T) {
	apps := `{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}`
	groups := []byte(`[` + apps + `,{"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}]`)
	resources := []byte(`[{"groupVersion":"apps/v1","resources":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["get","list"]}]},
 {"groupVersion":"metrics.k8s.io/v1beta1","resources":[{"name":"nodes","namespaced":false,"kind":"NodeMetrics","verbs":["get","list"]}]}]`)
	withoutMetrics := []byte(`[{"groupVersion":"apps/v1","resources":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["get","list"]}]}]`)
	for _, tc := range []struct {
		name        string
		groups      []byte
		resources   []byte
		nodeMetrics bool
		want        []string // metrics.k8s.io/v1beta1 resources, nil for no group
	}{
		{"collected, with node metrics", groups, resources, true, []string{"nodes/NodeMetrics"}},
		{"collected, without node metrics", groups, resources, false, nil},
		{"not collected, with node metrics", []byte("[" + apps + "]"), withoutMetrics, true, []string{"nodes/NodeMetrics", "pods/PodMetrics"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crds, _ := newCRDIndex(nil)
			d, problems := buildDiscovery(discoveryInput{groups: tc.groups, resources: tc.resources, crds: crds, nodeMetrics: tc.nodeMetrics})
			if len(problems) != 0 {
				t.Fatal(problems)
			}
			var names []string
			for _, r := range d.Resources["metrics.k8s.io/v1beta1"] {
				names = append(names, r.Name+"/"+r.Kind)
			}
			advertised := d.PreferredVersion("metrics.k8s.io") != ""
			if advertised != (tc.want != nil) || strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("metrics.k8s.io advertised %v with %v, want %v", advertised, names, tc.want)
			}
			if d.PreferredVersion("apps") != "v1" {
				t.Errorf("apps lost")
			}
		})
	}
}
