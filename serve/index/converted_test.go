package index

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// A converted list is what a request at its group version is answered
// from, with that version's table and field selectors; the stored list
// still answers its own version, and the resource counts as collected.
func TestConvertedLists(t *testing.T) {
	files := servetest.Small()
	d, err := contract.ParseDiscovery(files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	d.Groups = append(d.Groups, metav1.APIGroup{Name: "events.k8s.io",
		Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "events.k8s.io/v1", Version: "v1"}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "events.k8s.io/v1", Version: "v1"}})
	d.Resources["events.k8s.io/v1"] = []metav1.APIResource{{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event",
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, ShortNames: []string{"ev"}}}
	if files[contract.DiscoveryPath()], err = d.Marshal(); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
	dir := contract.ConvertedListDir(gvr)
	files[contract.ResourcePath(dir, "default")] = []byte(`{"kind":"EventList","apiVersion":"events.k8s.io/v1","metadata":{"resourceVersion":"9"},"items":[
{"metadata":{"name":"b.1","namespace":"default","resourceVersion":"8"},"reason":"Pulled","regarding":{"kind":"Pod","name":"b"},"note":"pulled"},
{"metadata":{"name":"a.1","namespace":"default","resourceVersion":"7"},"reason":"Started","regarding":{"kind":"Node","name":"a"},"note":"started"}]}`)
	files[contract.TablePath(dir, "default")] = []byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},
"columnDefinitions":[{"name":"Reason","type":"string","format":"","description":"","priority":0}],
"rows":[{"cells":["Pulled"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b.1","namespace":"default"}}},
{"cells":["Started"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a.1","namespace":"default"}}}]}`)
	x := load(t, files.WriteDir(t, t.TempDir()))
	if len(x.Warnings) > 0 {
		t.Errorf("warnings: %v", x.Warnings)
	}

	_, r, ok := x.Lookup("events.k8s.io", "v1", "events", "")
	if !ok {
		t.Fatal("events.k8s.io/v1 events not found")
	}
	objs := r.NamespaceRange("default")
	if len(objs) != 2 || objs[0].Name() != "a.1" || objs[1].Name() != "b.1" {
		t.Fatalf("objects %v", objs)
	}
	if head, _ := objs[0].Typed(); string(head) != `{"kind":"Event","apiVersion":"events.k8s.io/v1",` {
		t.Errorf("type %s", head)
	}
	if objs[0].Row == nil || string(objs[0].Row.Cells) != `["Started"]` || string(r.Columns()) == string(defaultColumns) {
		t.Errorf("row %+v, columns %s", objs[0].Row, r.Columns())
	}
	// Collected in default; the namespaces of no converted file are
	// reported as those of no stored file are.
	if w := x.NotCollected(r, "default"); w != "" || r.notCollected {
		t.Errorf("not collected: %s", w)
	}
	if w := x.NotCollected(r, "team-a"); w == "" {
		t.Error("team-a, of no converted file, is not reported")
	}
	sel, msg := r.Select("v1", labels.Everything(), fields.OneTermEqualSelector("regarding.kind", "Node"))
	if msg != "" {
		t.Fatal(msg)
	}
	if got := sel.Filter(objs); len(got) != 1 || got[0].Name() != "a.1" {
		t.Errorf("regarding.kind=Node selected %v", got)
	}
	if _, msg := r.Select("v1", labels.Everything(), fields.OneTermEqualSelector("involvedObject.kind", "Node")); msg == "" {
		t.Error("involvedObject.kind is accepted at events.k8s.io/v1")
	}

	// The core group answers from the stored events.
	_, core, _ := x.Lookup("", "v1", "events", "")
	if core == r || len(core.objects) == 0 {
		t.Fatalf("core events: %d objects", len(core.objects))
	}
	var item map[string]any
	if err := json.Unmarshal(core.objects[0].Item, &item); err != nil || item["involvedObject"] == nil {
		t.Errorf("core event %s", core.objects[0].Item)
	}
}

// A version discovery advertises that no stored object is at and no
// converted list holds (the upgrade could not convert: a CRD converted
// by webhook) answers nothing, with a Warning, not the objects of
// another version.
func TestNotConvertedVersion(t *testing.T) {
	files := servetest.Small()
	d, err := contract.ParseDiscovery(files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Groups {
		if d.Groups[i].Name == "example.com" {
			d.Groups[i].Versions = append(d.Groups[i].Versions, metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v2", Version: "v2"})
		}
	}
	d.Resources["example.com/v2"] = d.Resources["example.com/v1"]
	if files[contract.DiscoveryPath()], err = d.Marshal(); err != nil {
		t.Fatal(err)
	}
	x := load(t, files.WriteDir(t, t.TempDir()))
	_, v2, ok := x.Lookup("example.com", "v2", "widgets", "")
	if !ok || len(v2.NamespaceRange("")) != 0 {
		t.Fatalf("example.com/v2 widgets: %v, %d objects", ok, len(v2.NamespaceRange("")))
	}
	want := "this support bundle holds widgets.example.com at example.com/v1, which could not be converted to example.com/v2: an empty answer does not mean the cluster had none"
	if got := x.NotCollected(v2, "default"); got != want {
		t.Errorf("warning %q", got)
	}
	_, v1, _ := x.Lookup("example.com", "v1", "widgets", "")
	if len(v1.NamespaceRange("")) == 0 || x.NotCollected(v1, "") != "" {
		t.Errorf("example.com/v1 widgets: %d objects, warning %q", len(v1.NamespaceRange("")), x.NotCollected(v1, ""))
	}
	if string(v2.Columns()) != string(v1.Columns()) {
		t.Errorf("columns %s, v1's %s", v2.Columns(), v1.Columns())
	}
}
