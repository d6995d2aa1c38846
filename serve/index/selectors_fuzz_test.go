package index

import (
	"bytes"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// FuzzSelectors parses arbitrary label and field selectors as a list
// request does and matches them against objects (a fixed few and one
// arbitrary JSON object) for several field sets. What the server matches
// from values extracted at load must be what the contract computes from
// the decoded object, and what it refuses must be what the contract
// refuses, with the same message. Seeds: testdata/fuzz/FuzzSelectors and
// the cases below.
func FuzzSelectors(f *testing.F) {
	for _, s := range [][3]string{
		{"app=web", "", `{"metadata":{"name":"a","namespace":"default","labels":{"app":"web"}}}`},
		{"app in (web,db),!canary", "spec.nodeName=n1", `{"metadata":{"name":"b","labels":{"app":"db"}},"spec":{"nodeName":"n1"}}`},
		{"tier notin (x),env", "status.phase!=Running,metadata.namespace=team-a", `{"metadata":{"name":"c","namespace":"team-a","labels":{"env":"p"}},"status":{"phase":"Pending"}}`},
		{"", "spec.size=3", `{"metadata":{"name":"d"},"spec":{"size":3,"ratio":0.5,"tags":["x"]}}`},
		{"", "metadata.name=e,status.podIP=10.0.0.1", `{"metadata":{"name":"e"},"status":{"podIPs":[{"ip":"10.0.0.1"}]}}`},
		{"a.b/c=d", "involvedObject.kind=Pod", `{"metadata":{"name":"f","labels":{"a.b/c":"d"}},"involvedObject":{"kind":"Pod"}}`},
		{"x=", "spec.unschedulable=true", `{"metadata":{"name":"g","labels":{"x":""}},"spec":{"unschedulable":true}}`},
		{"", "metadata.name=0\xe8", "{\"metadata\":{\"name\":\"0\xe8\"}}"},
	} {
		f.Add(s[0], s[1], []byte(s[2]))
	}
	pods, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, 0)
	nodes, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, 0)
	events, _ := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "events"}, 0)
	sets := []struct {
		set        contract.FieldSet
		namespaced bool
	}{
		{pods, true}, {nodes, false}, {events, true}, {contract.DefaultFieldSet(true), true},
		{contract.CustomResourceFieldSet(true, []string{".spec.size", ".spec.ratio", ".spec.tags", ".status.phase"}), true},
	}
	fixed := []string{
		`{"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web","tier":"x"}},"spec":{"nodeName":"n1","size":2},"status":{"phase":"Running","podIP":"10.0.0.1"}}`,
		`{"metadata":{"name":"n1"},"spec":{"unschedulable":false}}`,
		`{"metadata":{"name":"ev","namespace":"team-a"},"involvedObject":{"kind":"Pod","name":"web-1"},"source":{"component":"kubelet"}}`,
	}
	f.Fuzz(func(t *testing.T, labelSelector, fieldSelector string, item []byte) {
		defer servetest.FuzzWatchdog(10 * time.Second)()
		q := url.Values{"labelSelector": {labelSelector}, "fieldSelector": {fieldSelector}}
		// As serve decodes the query, with the server's own codec.
		opts := &metainternalversion.ListOptions{}
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(q, metav1.SchemeGroupVersion, opts); err != nil {
			return // the server's 400
		}
		var objs []*Object
		var decoded []map[string]any
		for _, raw := range append(fixed, string(item)) {
			c, err := compact([]byte(raw))
			if err != nil {
				continue
			}
			o, _, err := decodeObject(bytes.Clone(c), false, "") // it rewrites its argument
			if err != nil {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(c, &m); err != nil {
				t.Fatalf("compact JSON that does not decode: %v", err)
			}
			o.idx = int32(len(objs))
			objs = append(objs, o)
			decoded = append(decoded, m)
		}
		fs := opts.FieldSelector
		if fs == nil {
			fs = fields.Everything()
		}
		for _, s := range sets {
			r := &Resource{Namespaced: s.namespaced, fields: newFieldIndex()}
			r.fields.sets["v1"] = s.set
			r.fields.extractValues(objs)
			sel, msg := r.Select("v1", opts.LabelSelector, opts.FieldSelector)
			if want := s.set.Validate(fs); msg != want {
				t.Fatalf("field selector %q: refused with %q, the contract says %q", fieldSelector, msg, want)
			}
			if sel == nil {
				continue
			}
			for i, o := range objs {
				want := s.set.Matches(decoded[i], fs)
				if ls := opts.LabelSelector; ls != nil && want {
					want = ls.Matches(labels.Set(labelsOf(decoded[i])))
				}
				if got := sel.matches(o); got != want {
					t.Fatalf("labels %q, fields %q, object %s: matches %v, the contract says %v", labelSelector, fieldSelector, o.Item, got, want)
				}
			}
		}
	})
}

// labelsOf reads metadata.labels of a decoded object.
func labelsOf(obj map[string]any) map[string]string {
	meta, _ := obj["metadata"].(map[string]any)
	raw, _ := meta["labels"].(map[string]any)
	out := map[string]string{}
	for k, v := range raw {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}
