package transform

import (
	"testing"

	api "k8s.io/kubernetes/pkg/apis/core"
)

// The read path of each minor, as the research of every release's
// registries found it (see readdefaults.go).
func TestReadDefaultsPerMinor(t *testing.T) {
	service := func() *api.Service {
		return &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeClusterIP, ClusterIP: "10.96.0.50", Selector: map[string]string{"app": "web"}}}
	}
	external := func() *api.Service {
		p := api.ServiceInternalTrafficPolicyCluster
		return &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "db.example.com", InternalTrafficPolicy: &p}}
	}
	claim := func() *api.PersistentVolumeClaim {
		group := "snapshot.storage.k8s.io"
		return &api.PersistentVolumeClaim{Spec: api.PersistentVolumeClaimSpec{DataSource: &api.TypedLocalObjectReference{APIGroup: &group, Kind: "VolumeSnapshot", Name: "snap-1"}}}
	}
	for _, minor := range []int{19, 20, 22, 23, 24, 37} {
		s := service()
		changed := readDefaults(s, minor)
		if want := minor >= 20; changed != want || (len(s.Spec.ClusterIPs) == 1) != want {
			t.Errorf("1.%d: Service changed %v, clusterIPs %v", minor, changed, s.Spec.ClusterIPs)
		}
		if want := minor >= 23; (len(s.Spec.IPFamilies) == 1 && s.Spec.IPFamilyPolicy != nil) != want {
			t.Errorf("1.%d: ipFamilies %v, policy %v", minor, s.Spec.IPFamilies, s.Spec.IPFamilyPolicy)
		}
		e := external()
		if want := minor >= 24; readDefaults(e, minor) != want || (e.Spec.InternalTrafficPolicy == nil) != want {
			t.Errorf("1.%d: ExternalName internalTrafficPolicy %v", minor, e.Spec.InternalTrafficPolicy)
		}
		c := claim()
		if want := minor >= 24; readDefaults(c, minor) != want || (c.Spec.DataSourceRef != nil) != want {
			t.Errorf("1.%d: PersistentVolumeClaim dataSourceRef %v", minor, c.Spec.DataSourceRef)
		}
		if again := s.DeepCopy(); readDefaults(again, minor) {
			t.Errorf("1.%d: reading a read Service again changed it", minor)
		}
	}
}
