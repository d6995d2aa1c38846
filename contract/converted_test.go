package contract_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

func TestClassifyConverted(t *testing.T) {
	events := schema.GroupResource{Group: "events.k8s.io", Resource: "events"}
	cases := map[string]contract.Classification{
		"cluster-resources/_meta/converted/events.k8s.io.v1.events/default.json": {Class: contract.ClassResourceList, GR: events, Version: "v1", Namespaced: true,
			Key: contract.ListKey{Dir: "_meta/converted/events.k8s.io.v1.events", Namespace: "default"}},
		"cluster-resources/_meta/converted/events.k8s.io.v1.events/default.table.json": {Class: contract.ClassTable, GR: events, Version: "v1", Namespaced: true,
			Key: contract.ListKey{Dir: "_meta/converted/events.k8s.io.v1.events", Namespace: "default"}},
		"cluster-resources/_meta/converted/core.v1.events/a.json": {Class: contract.ClassResourceList, GR: schema.GroupResource{Resource: "events"}, Version: "v1", Namespaced: true,
			Key: contract.ListKey{Dir: "_meta/converted/core.v1.events", Namespace: "a"}},
		"cluster-resources/_meta/converted/rbac.authorization.k8s.io.v1beta1.clusterroles.json": {Class: contract.ClassResourceList,
			GR: schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, Version: "v1beta1",
			Key: contract.ListKey{Dir: "_meta/converted/rbac.authorization.k8s.io.v1beta1.clusterroles"}},
		"cluster-resources/_meta/converted/core.v1.events/a.yaml":   {Class: contract.ClassMeta},
		"cluster-resources/_meta/converted/events/a.json":           {Class: contract.ClassMeta},
		"cluster-resources/_meta/converted/core.v1.events/a/b.json": {Class: contract.ClassMeta},
		"cluster-resources/_meta/converted/core.v1.events/.json":    {Class: contract.ClassMeta},
	}
	for rel, want := range cases {
		want.Converted = want.Class == contract.ClassResourceList || want.Class == contract.ClassTable
		if got := contract.Classify(rel); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", rel, got, want)
		}
	}
	gvr := schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	if got, want := contract.ResourcePath(contract.ConvertedListDir(gvr), "ns"), "cluster-resources/_meta/converted/events.k8s.io.v1.events/ns.json"; got != want {
		t.Errorf("ResourcePath: %s, want %s", got, want)
	}
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	if got, want := contract.TablePath(contract.ConvertedListDir(nodes), ""), "cluster-resources/_meta/converted/core.v1.nodes.table.json"; got != want {
		t.Errorf("TablePath: %s, want %s", got, want)
	}
}
