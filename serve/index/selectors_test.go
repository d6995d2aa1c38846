package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// TestFieldValuesExtractedAtLoad checks that loading leaves nothing for a
// request to compute: every label of every served version of every
// resource with objects has its values, one per object. A request then
// only compares strings and never decodes JSON.
func TestFieldValuesExtractedAtLoad(t *testing.T) {
	x := load(t, smallBundle(t))
	checked := 0
	for gr, r := range x.resources {
		if len(r.objects) == 0 {
			continue
		}
		for version, set := range r.fields.sets {
			for label := range set.Fields {
				if label == "metadata.name" || label == "metadata.namespace" {
					continue
				}
				if got := len(r.fields.values[version+"\x00"+label]); got != len(r.objects) {
					t.Errorf("%s %s %s: %d values for %d objects", gr, version, label, got, len(r.objects))
				}
				checked++
			}
		}
	}
	// pods, events, namespaces and widgets have labels of their own.
	if checked < 10 {
		t.Errorf("only %d labels checked", checked)
	}
}

// TestFieldValuesAsTheContract compares the values extracted from compact
// JSON with what contract.FieldSet.FieldValue computes from the decoded
// object, for every label of every object of the small bundle and for
// objects made to hit every JSON type.
func TestFieldValuesAsTheContract(t *testing.T) {
	check := func(name string, set contract.FieldSet, objects []*Object) {
		t.Helper()
		f := newFieldIndex()
		f.sets["v1"] = set
		f.extractValues(objects)
		for label := range set.Fields {
			if label == "metadata.name" || label == "metadata.namespace" {
				continue
			}
			for i, o := range objects {
				var m map[string]any
				if err := json.Unmarshal(o.Item, &m); err != nil {
					t.Fatal(err)
				}
				want, _ := set.FieldValue(m, label)
				if got := f.values["v1\x00"+label][i]; got != want {
					t.Errorf("%s: object %d, %s: %q, the contract says %q", name, i, label, got, want)
				}
			}
		}
	}
	x := load(t, smallBundle(t))
	for gr, r := range x.resources {
		for version, set := range r.fields.sets {
			check(fmt.Sprintf("%s %s", gr, version), set, r.objects)
		}
	}

	pods, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, 0)
	nodes, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, 0)
	jobs, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, 0)
	events, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "events"}, 0)
	custom := contract.CustomResourceFieldSet(true, []string{".spec.size", ".spec.ratio", ".spec.enabled", ".spec.tags", ".spec.nested", ".spec.big", ".spec.text"})
	objects := func(items ...string) []*Object {
		var out []*Object
		for i, it := range items {
			c, err := compact([]byte(it))
			if err != nil {
				t.Fatalf("item %d: %v", i, err)
			}
			out = append(out, &Object{Item: c, idx: int32(i)})
		}
		return out
	}
	check("pods", pods, objects(
		`{"metadata":{"name":"a"},"spec":{"nodeName":"n1","hostNetwork":true},"status":{"podIPs":[{"ip":"10.0.0.2"},{"ip":"fd00::2"}]}}`,
		`{"metadata":{"name":"b"},"spec":{"nodeName":"","hostNetwork":false},"status":{"podIP":"10.0.0.3","phase":"Running"}}`,
		`{"metadata":{"name":"c"},"spec":null,"status":{"podIP":null,"podIPs":[]}}`,
		`{"metadata":{"name":"d"},"spec":{"schedulerName":"caf\u00e9 \"q\"","serviceAccountName":"s\\a"}}`,
	))
	check("nodes", nodes, objects(`{"metadata":{"name":"a"},"spec":{"unschedulable":true}}`, `{"metadata":{"name":"b"},"spec":{}}`))
	check("jobs", jobs, objects(`{"metadata":{"name":"a"},"status":{"succeeded":3}}`, `{"metadata":{"name":"b"},"status":{}}`))
	check("events", events, objects(
		`{"metadata":{"name":"a"},"source":{"component":"kubelet"},"involvedObject":{"uid":"u","kind":"Pod"}}`,
		`{"metadata":{"name":"b"},"source":{},"reportingComponent":"controller"}`,
		`{"metadata":{"name":"c"}}`,
	))
	check("custom", custom, objects(
		`{"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"a"},"spec":{"size":3,"ratio":0.75,"enabled":false,"tags":["x","y"],"nested":{"b":1,"a":[true,null]},"big":1e21,"text":"t"}}`,
		`{"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"b"},"spec":{"size":-2.0,"ratio":1e-7,"tags":[],"nested":{},"big":12345678901234567890}}`,
		`{"apiVersion":"example.com/v1","kind":"W","metadata":{"name":"c"},"spec":"not an object"}`,
	))
}

// A bundle is selected with its own release's field sets: pods have
// spec.hostNetwork only from 1.28.
func TestFieldSetsOfTheBundlesMinor(t *testing.T) {
	for _, tc := range []struct {
		version     string
		hostNetwork bool
	}{{"v1.27.4", false}, {"v1.28.0", true}, {servetest.KubernetesVersion, true}} {
		files := servetest.Small()
		disc := files[contract.DiscoveryPath()]
		files[contract.DiscoveryPath()] = bytes.Replace(disc, []byte(`"`+servetest.KubernetesVersion+`"`), []byte(`"`+tc.version+`"`), 1)
		if bytes.Equal(disc, files[contract.DiscoveryPath()]) && tc.version != servetest.KubernetesVersion {
			t.Fatal("the discovery document holds no kubernetesVersion to replace")
		}
		x := load(t, files.WriteDir(t, t.TempDir()))
		pods := x.resources[schema.GroupResource{Resource: "pods"}]
		sel := fields.OneTermEqualSelector("spec.hostNetwork", "true")
		_, msg := pods.Select("v1", nil, sel)
		if got := msg == ""; got != tc.hostNetwork {
			t.Errorf("%s: spec.hostNetwork accepted %v (%q), want %v", tc.version, got, msg, tc.hostNetwork)
		}
	}
}
