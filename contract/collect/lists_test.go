package collect

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// A table as kube-apiserver encodes it: compact, HTML-escaped, newline-terminated.
const (
	tableHead = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"n","priority":0}],`
	rowA1     = `{"cells":["a-1"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a-1","namespace":"a","annotations":{"x":"\u003cb\u003e"}}}}`
	rowB1     = `{"cells":["b-1"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b-1","namespace":"b"}}}`
	rowA2     = `{"cells":["a-2"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a-2","namespace":"a"}}}`
	podTable  = tableHead + `"rows":[` + rowA1 + "," + rowB1 + "," + rowA2 + "]}\n"
)

func TestObjectRoundTrip(t *testing.T) {
	o, err := rawjson.ParseObject([]byte(podTable))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Marshal()) + "\n"; got != podTable {
		t.Errorf("round trip changed the bytes:\n%s", got)
	}
	if got := string(o.With("kind", json.RawMessage(`"X"`)).Get("kind")); got != `"X"` {
		t.Errorf("with: kind %s", got)
	}
	if string(o.Get("kind")) != `"Table"` {
		t.Error("with changed the original")
	}
	if _, err := rawjson.ParseObject([]byte(`[1]`)); err == nil {
		t.Error("an array parsed as an object")
	}
}

func TestSplit(t *testing.T) {
	l, err := parseList([]byte(podTable), "rows")
	if err != nil {
		t.Fatal(err)
	}
	if l.rv != "42" || l.kind() != "Table" || len(l.elems) != 3 {
		t.Fatalf("parsed rv %q kind %q rows %d", l.rv, l.kind(), len(l.elems))
	}
	nss, err := l.namespaces()
	if err != nil || !reflect.DeepEqual(nss, []string{"a", "b"}) {
		t.Fatalf("namespaces %v %v", nss, err)
	}
	parts, err := l.split([]string{"a", "b", "empty"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a":     tableHead + `"rows":[` + rowA1 + "," + rowA2 + "]}\n",
		"b":     tableHead + `"rows":[` + rowB1 + "]}\n",
		"empty": tableHead + `"rows":[]}` + "\n",
	}
	for ns, w := range want {
		if string(parts[ns]) != w {
			t.Errorf("namespace %s:\n%s\nwant\n%s", ns, parts[ns], w)
		}
	}
	// A namespace holding every row is the answer itself.
	one, _ := parseList([]byte(want["a"]), "rows")
	if again, _ := one.split([]string{"a"}); string(again["a"]) != want["a"] {
		t.Errorf("splitting a one-namespace table changed it:\n%s", again["a"])
	}
	l.empty = json.RawMessage("null")
	if parts, _ := l.split([]string{"empty"}); string(parts["empty"]) != tableHead+`"rows":null}`+"\n" {
		t.Errorf("a default-convertor table split empty: %s", parts["empty"])
	}
}

func TestIndent(t *testing.T) {
	got, err := indent([]byte(`{"kind":"PodList","items":[{"a":"\u003c"}]}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"kind\": \"PodList\",\n  \"items\": [\n    {\n      \"a\": \"\\u003c\"\n    }\n  ]\n}"; string(got) != want {
		t.Errorf("indent:\n%s", got)
	}
}

func TestMaskSecret(t *testing.T) {
	if base64.StdEncoding.EncodeToString([]byte(hidden)) != hiddenData {
		t.Fatalf("hiddenData is not %s in base64", hidden)
	}
	applied := `{"apiVersion":"v1","data":{"k":"c2VjcmV0"},"kind":"Secret","metadata":{"name":"s"},"stringData":{"p":"plain"}}` + "\n"
	ann, _ := json.Marshal(map[string]string{lastAppliedAnnotation: applied, "other": "\u003ckept\u003e"})
	item := `{"metadata":{"name":"s","annotations":` + string(ann) + `},"data":{"k":"c2VjcmV0","z":"eg=="},"type":"Opaque"}`
	got, err := maskSecret(json.RawMessage(item))
	if err != nil {
		t.Fatal(err)
	}
	wantApplied := `{"apiVersion":"v1","data":{"k":"KioqSElEREVOKioq"},"kind":"Secret","metadata":{"name":"s"},"stringData":{"p":"***HIDDEN***"}}` + "\n"
	wantAnn, _ := json.Marshal(map[string]string{lastAppliedAnnotation: wantApplied, "other": "\u003ckept\u003e"})
	want := `{"metadata":{"name":"s","annotations":` + string(wantAnn) + `},"data":{"k":"KioqSElEREVOKioq","z":"KioqSElEREVOKioq"},"type":"Opaque"}`
	if string(got) != want {
		t.Errorf("masked:\n%s\nwant\n%s", got, want)
	}
	bad, err := maskSecret(json.RawMessage(`{"metadata":{"annotations":{"` + lastAppliedAnnotation + `":"not json c2VjcmV0"}}}`))
	if err != nil || strings.Contains(string(bad), "c2VjcmV0") {
		t.Errorf("an annotation that is not JSON: %s %v", bad, err)
	}
}

func TestMaskRow(t *testing.T) {
	plain := json.RawMessage(`{"cells":["s"],"object":{"kind":"PartialObjectMetadata","metadata":{"name":"s"}}}`)
	if got, err := maskRow(plain); err != nil || string(got) != string(plain) {
		t.Errorf("a row without the annotation changed: %s %v", got, err)
	}
	applied, _ := json.Marshal(`{"data":{"k":"c2VjcmV0"}}`)
	row := json.RawMessage(`{"cells":["s",1],"object":{"kind":"PartialObjectMetadata","metadata":{"name":"s","annotations":{"` + lastAppliedAnnotation + `":` + string(applied) + `}}}}`)
	got, err := maskRow(row)
	if err != nil || strings.Contains(string(got), "c2VjcmV0") || !strings.HasPrefix(string(got), `{"cells":["s",1],"object":{"kind":"PartialObjectMetadata","metadata":{"name":"s","annotations":`) {
		t.Errorf("masked row: %s %v", got, err)
	}
}

func TestLogRequests(t *testing.T) {
	pods := []json.RawMessage{
		json.RawMessage(`{"metadata":{"name":"pending","namespace":"a"},"spec":{"containers":[{"name":"c"}]}}`),
		json.RawMessage(`{"metadata":{"name":"web","namespace":"a"},"spec":{"nodeName":"n","initContainers":[{"name":"init"}],"containers":[{"name":"app"},{"name":"side"}]},` +
			`"status":{"containerStatuses":[{"name":"app","restartCount":3},{"name":"side","restartCount":0}]}}`),
	}
	got, err := logRequests(pods)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, r := range got {
		files = append(files, r.file())
	}
	want := []string{
		"cluster-resources/pods/logs/a/web/init.log",
		"cluster-resources/pods/logs/a/web/app.log",
		"cluster-resources/pods/logs/a/web/app-previous.log",
		"cluster-resources/pods/logs/a/web/side.log",
	}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("log files %v", files)
	}
	if e := got[2].errorFile(); e != "cluster-resources/pods/logs/a/web/app-previous-logs-errors.log" {
		t.Errorf("error file %s", e)
	}
}

func TestListable(t *testing.T) {
	d := &discovered{
		groups: []metav1.APIGroup{{Name: "g", PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "g/v2", Version: "v2"},
			Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "g/v1", Version: "v1"}, {GroupVersion: "g/v2", Version: "v2"}}}},
		lists: []metav1.APIResourceList{
			{GroupVersion: "g/v1", APIResources: []metav1.APIResource{{Name: "as", Verbs: []string{"list"}}, {Name: "olds", Namespaced: true, Verbs: []string{"list"}}}},
			{GroupVersion: "g/v2", APIResources: []metav1.APIResource{{Name: "as", Kind: "A", Verbs: []string{"get", "list"}}, {Name: "as/status", Verbs: []string{"get"}}, {Name: "reviews", Verbs: []string{"create"}}}},
		},
	}
	// Core events are events.k8s.io events too, which the server converts.
	d.groups = append([]metav1.APIGroup{{Name: "", PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"},
		Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}}}, d.groups...)
	d.groups = append(d.groups, metav1.APIGroup{Name: "events.k8s.io", PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "events.k8s.io/v1", Version: "v1"},
		Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "events.k8s.io/v1", Version: "v1"}}})
	d.lists = append(d.lists,
		metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "events", Namespaced: true, Kind: "Event", Verbs: []string{"list"}}}},
		metav1.APIResourceList{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{{Name: "events", Namespaced: true, Kind: "Event", Verbs: []string{"list"}}}})
	got := d.listable()
	want := []resource{
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "events"}, kind: "Event", namespaced: true},
		{gvr: schema.GroupVersionResource{Group: "g", Version: "v2", Resource: "as"}, kind: "A"},
		{gvr: schema.GroupVersionResource{Group: "g", Version: "v1", Resource: "as"}, converted: true},
		{gvr: schema.GroupVersionResource{Group: "g", Version: "v1", Resource: "olds"}, namespaced: true},
		{gvr: schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, kind: "Event", namespaced: true, converted: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("listable:\n%+v\nwant\n%+v", got, want)
	}
}

func TestFieldCandidates(t *testing.T) {
	var c crd
	json.Unmarshal([]byte(`{"spec":{"versions":[{"selectableFields":[{"jsonPath":".spec.color"}]}]}}`), &c)
	got := fieldCandidates([]resource{{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}, []crd{c})
	for _, l := range []string{"metadata.name", "metadata.namespace", "spec.nodeName", "spec.host", "status.podIPs", "spec.color"} {
		found := false
		for _, g := range got {
			found = found || g == l
		}
		if !found {
			t.Errorf("candidates lack %s: %v", l, got)
		}
	}
}

func TestDateRange(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC)
	fs := []fetched{{date: t0.Add(time.Second)}, {date: t0}, {err: errTest}, {date: t0.Add(time.Second)}}
	if at, spread := dateRange(fs, time.Time{}); !at.Equal(t0) || spread != time.Second {
		t.Errorf("dateRange %v %v", at, spread)
	}
	if at, spread := dateRange([]fetched{{err: errTest}}, t0); !at.Equal(t0) || spread != 0 {
		t.Errorf("with no answer: %v %v", at, spread)
	}
}

var errTest = errors.New("failed")
