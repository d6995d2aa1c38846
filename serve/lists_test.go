package serve

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

func TestListEnvelope(t *testing.T) {
	srv := testServer(t)
	r := get(t, srv, "/api/v1/pods", "Accept: application/json")
	// The server's encoder: kind, apiVersion, metadata, items; built-in
	// items without a type; a trailing newline.
	if !strings.HasPrefix(r.body, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"`) || !strings.HasSuffix(r.body, "]}\n") {
		t.Fatalf("envelope: %.200s", r.body)
	}
	list := decode(t, r)
	if rv := list["metadata"].(map[string]any)["resourceVersion"]; rv != load(t, smallBundle(t)).ResourceVersion || rv == "0" {
		t.Errorf("list resourceVersion %v", rv)
	}
	for _, it := range list["items"].([]any) {
		if _, ok := it.(map[string]any)["kind"]; ok {
			t.Errorf("built-in list item has a kind: %v", it)
		}
	}
	// Storage order: namespace/name, byte-wise.
	want := []string{"default/web-1", "default/web-2", "kube-system/coredns-abc", "team-a/job-x", "team-a/web-3"}
	if got := names(t, list); !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}

	// Custom resource lists are unstructured on the server: keys sorted
	// (the streaming list encoder keeps that order), continue always set,
	// items with their type.
	rv := load(t, smallBundle(t)).ResourceVersion
	cr := get(t, srv, "/apis/example.com/v1/namespaces/default/widgets")
	if !strings.HasPrefix(cr.body, `{"apiVersion":"example.com/v1","items":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":`) ||
		!strings.HasSuffix(cr.body, `}],"kind":"WidgetList","metadata":{"continue":"","resourceVersion":"`+rv+`"}}`+"\n") {
		t.Errorf("custom resource list: %s", cr.body)
	}
	page := get(t, srv, "/apis/example.com/v1/namespaces/default/widgets?limit=1")
	if !regexp.MustCompile(`\],"kind":"WidgetList","metadata":\{"continue":"[A-Za-z0-9_-]+","remainingItemCount":1,"resourceVersion":"` + rv + `"\}\}\n$`).MatchString(page.body) {
		t.Errorf("custom resource page: %s", page.body)
	}
	if names(t, decode(t, page))[0] != "default/w1" {
		t.Errorf("custom resource page: %s", page.body)
	}

	empty := get(t, srv, "/api/v1/namespaces/nowhere/pods")
	if !strings.HasSuffix(empty.body, `"items":[]}`+"\n") {
		t.Errorf("empty list: %s", empty.body)
	}
}

func TestGet(t *testing.T) {
	srv := testServer(t)
	r := get(t, srv, "/api/v1/namespaces/default/pods/web-1")
	if !strings.HasPrefix(r.body, `{"kind":"Pod","apiVersion":"v1","metadata":{`) {
		t.Errorf("single object: %.100s", r.body)
	}
	// Stored JSON is served compact, with its HTML characters as stored.
	cm := get(t, srv, "/api/v1/namespaces/default/configmaps/settings")
	if !strings.Contains(cm.body, `"data":{"mode":"\u003cfast\u003e \u0026 safe"}`) {
		t.Errorf("configmap: %s", cm.body)
	}
	ns := get(t, srv, "/api/v1/namespaces/team-a")
	if decode(t, ns)["kind"] != "Namespace" {
		t.Errorf("namespace: %s", ns.body)
	}
	node := get(t, srv, "/api/v1/nodes/node-1/status")
	if decode(t, node)["kind"] != "Node" {
		t.Errorf("node status: %s", node.body)
	}
	wantStatus(t, get(t, srv, "/api/v1/namespaces/default/pods/nope"), http.StatusNotFound, "NotFound", `pods "nope" not found`)
	nf := decode(t, get(t, srv, "/apis/apps/v1/namespaces/default/deployments/nope"))
	if nf["message"] != `deployments.apps "nope" not found` {
		t.Errorf("message %v", nf["message"])
	}
	if d := nf["details"].(map[string]any); d["name"] != "nope" || d["group"] != "apps" || d["kind"] != "deployments" {
		t.Errorf("details %v", d)
	}
	// Paths without a route on a real server.
	for _, p := range []string{"/api/v1/pods/web-1", "/api/v1/namespaces/default/nodes", "/api/v1/namespaces/default/nodes/node-1", "/api/v1/namespaces/default/pods/web-1/nope"} {
		wantStatus(t, get(t, srv, p), http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
}

func TestLabelSelector(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		selector string
		want     []string
	}{
		{"app=web", []string{"default/web-1", "default/web-2", "team-a/web-3"}},
		{"app==web,tier=frontend", []string{"default/web-1"}},
		{"tier!=frontend", []string{"default/web-2", "kube-system/coredns-abc", "team-a/job-x", "team-a/web-3"}},
		{"tier in (frontend,backend)", []string{"default/web-1", "default/web-2"}},
		{"app notin (web)", []string{"kube-system/coredns-abc", "team-a/job-x"}},
		{"tier", []string{"default/web-1", "default/web-2"}},
		{"!tier,app", []string{"team-a/job-x", "team-a/web-3"}},
		{"app=nope", nil},
	} {
		r := get(t, srv, "/api/v1/pods?labelSelector="+url.QueryEscape(tc.selector))
		if got := names(t, decode(t, r)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.selector, got, tc.want)
		}
	}
	r := get(t, srv, "/api/v1/pods?labelSelector="+url.QueryEscape("app in web"))
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", "")
}

func TestFieldSelector(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		path, selector string
		want           []string
	}{
		{"/api/v1/pods", "status.phase!=Running", []string{"team-a/job-x"}},
		// describe node: the pods on the node that are not finished.
		{"/api/v1/pods", "spec.nodeName=node-1,status.phase!=Succeeded,status.phase!=Failed", []string{"default/web-1", "kube-system/coredns-abc", "team-a/web-3"}},
		{"/api/v1/pods", "metadata.name=web-2", []string{"default/web-2"}},
		{"/api/v1/namespaces/team-a/pods", "metadata.namespace=team-a", []string{"team-a/job-x", "team-a/web-3"}},
		// describe pod: its events by involvedObject, uid included.
		{"/api/v1/namespaces/default/events", "involvedObject.name=web-1,involvedObject.namespace=default,involvedObject.kind=Pod,involvedObject.uid=uid-default-web-1", []string{"default/web-1.1", "default/web-1.2"}},
		// describe node: events whose uid is the node's name, in any namespace.
		{"/api/v1/events", "involvedObject.kind=Node,involvedObject.uid=node-1,involvedObject.name=node-1,involvedObject.namespace=", []string{"default/node-1.1"}},
		{"/apis/example.com/v1/widgets", "spec.color=red", []string{"default/w1"}},
		{"/apis/example.com/v1/widgets", "spec.color!=red", []string{"default/w2"}},
	} {
		r := get(t, srv, tc.path+"?fieldSelector="+url.QueryEscape(tc.selector))
		if got := names(t, decode(t, r)); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: %v, want %v", tc.path, tc.selector, got, tc.want)
		}
	}
	// Labels the server does not accept get its own 400.
	for _, tc := range []struct {
		path     string
		selector string
		fs       func() contract.FieldSet
	}{
		{"/api/v1/pods", "spec.nope=x", func() contract.FieldSet { fs, _ := contract.BuiltinFieldSet(servetest.PodsGVR, 0); return fs }},
		{"/api/v1/namespaces/default/configmaps", "data.mode=x", func() contract.FieldSet { return contract.DefaultFieldSet(true) }},
	} {
		sel, err := fields.ParseSelector(tc.selector)
		if err != nil {
			t.Fatal(err)
		}
		want := tc.fs().Validate(sel)
		if want == "" {
			t.Fatalf("%s: the contract accepts %s", tc.path, tc.selector)
		}
		wantStatus(t, get(t, srv, tc.path+"?fieldSelector="+url.QueryEscape(tc.selector)), http.StatusBadRequest, "BadRequest", want)
	}
}

func TestPagination(t *testing.T) {
	srv := testServer(t)
	all := names(t, decode(t, get(t, srv, "/api/v1/pods")))
	var got []string
	path := "/api/v1/pods?limit=2"
	for pages := 0; ; pages++ {
		if pages > len(all) {
			t.Fatal("pagination does not end")
		}
		list := decode(t, get(t, srv, path))
		got = append(got, names(t, list)...)
		meta := list["metadata"].(map[string]any)
		cont, _ := meta["continue"].(string)
		if cont == "" {
			if _, ok := meta["remainingItemCount"]; ok {
				t.Errorf("last page has remainingItemCount: %v", meta)
			}
			break
		}
		if n := int(meta["remainingItemCount"].(float64)); n != len(all)-len(got) {
			t.Errorf("remainingItemCount %d after %d of %d", n, len(got), len(all))
		}
		path = "/api/v1/pods?limit=2&continue=" + url.QueryEscape(cont)
	}
	if !slices.Equal(got, all) {
		t.Errorf("pages %v, want %v", got, all)
	}

	// In one namespace, and selected: no remainingItemCount.
	first := decode(t, get(t, srv, "/api/v1/namespaces/default/pods?limit=1&labelSelector=app%3Dweb"))
	meta := first["metadata"].(map[string]any)
	if _, ok := meta["remainingItemCount"]; ok || meta["continue"] == nil {
		t.Errorf("selected page metadata %v", meta)
	}
	second := decode(t, get(t, srv, "/api/v1/namespaces/default/pods?limit=1&labelSelector=app%3Dweb&continue="+url.QueryEscape(meta["continue"].(string))))
	if got := append(names(t, first), names(t, second)...); !slices.Equal(got, []string{"default/web-1", "default/web-2"}) {
		t.Errorf("namespace pages %v", got)
	}

	wantStatus(t, get(t, srv, "/api/v1/pods?limit=1&continue=garbage"), http.StatusBadRequest, "BadRequest", "")
	r := get(t, srv, "/api/v1/pods?limit=1&resourceVersion=5&continue="+url.QueryEscape(meta["continue"].(string)))
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", "specifying resource version is not allowed when using continue")
}

func TestPartialObjectMetadata(t *testing.T) {
	srv := testServer(t)
	for _, v := range []string{"v1", "v1beta1"} {
		list := decode(t, get(t, srv, "/api/v1/namespaces/default/pods", "Accept: application/json;as=PartialObjectMetadataList;v="+v+";g=meta.k8s.io,application/json"))
		if list["kind"] != "PartialObjectMetadataList" || list["apiVersion"] != "meta.k8s.io/"+v {
			t.Errorf("%s list: %v %v", v, list["kind"], list["apiVersion"])
		}
		for _, it := range list["items"].([]any) {
			m := it.(map[string]any)
			if m["kind"] != "PartialObjectMetadata" || m["apiVersion"] != "meta.k8s.io/"+v || m["spec"] != nil || m["metadata"].(map[string]any)["uid"] == nil {
				t.Errorf("%s item %v", v, m)
			}
		}
		one := decode(t, get(t, srv, "/api/v1/namespaces/default/pods/web-1", "Accept: application/json;as=PartialObjectMetadata;v="+v+";g=meta.k8s.io"))
		if one["kind"] != "PartialObjectMetadata" || one["metadata"].(map[string]any)["labels"] == nil {
			t.Errorf("%s object %v", v, one)
		}
	}
	r := get(t, srv, "/api/v1/pods", "Accept: application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
	wantStatus(t, r, http.StatusNotAcceptable, "NotAcceptable", "you requested PartialObjectMetadata, but the requested object is a list (*v1.PodList)")
}

func TestNegotiation(t *testing.T) {
	srv := testServer(t)
	wantStatus(t, get(t, srv, "/api/v1/pods", "Accept: application/vnd.kubernetes.protobuf"), http.StatusNotAcceptable, "NotAcceptable", "only the following media types are accepted: application/json")
	// A protobuf client that also accepts JSON gets JSON.
	if r := get(t, srv, "/api/v1/pods", "Accept: application/vnd.kubernetes.protobuf,application/json"); r.code != http.StatusOK {
		t.Errorf("protobuf with JSON fallback: %d", r.code)
	}
	pretty := get(t, srv, "/api/v1/namespaces/default/pods/web-1?pretty=true")
	if !strings.HasPrefix(pretty.body, "{\n  \"kind\": \"Pod\",") {
		t.Errorf("pretty: %.60q", pretty.body)
	}
}

func TestGzip(t *testing.T) {
	x := load(t, servetest.ManyPods(200, 4).WriteDir(t, t.TempDir()))
	srv := newHandlerServer(t, x)
	plain := get(t, srv, "/api/v1/pods")
	small := get(t, srv, "/api/v1/namespaces/ns-000/pods?limit=1", "Accept-Encoding: gzip")
	if small.header.Get("Content-Encoding") != "" {
		t.Errorf("a small response is not compressed")
	}
	for range 2 { // the second answer comes from the cache
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/pods", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := srv.Client().Transport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("headers %v", resp.Header)
		}
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		resp.Body.Close()
		if err != nil || string(data) != plain.body {
			t.Fatalf("gzipped body differs (%v)", err)
		}
	}
}

// A list type whose items are omitempty (1.26's admissionregistration
// v1alpha1 lists) was written without items when empty; the bundle shows
// it, and the served bundle writes every empty list of it so, as the live
// 1.26 did (kubectl then prints it as one nameless item, as against the
// live server).
func TestEmptyListWithoutItems(t *testing.T) {
	files := servetest.Small()
	files["cluster-resources/secrets/default.json"] = []byte(`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"7"}}`)
	srv := newHandlerServer(t, load(t, files.WriteDir(t, t.TempDir())))
	r := get(t, srv, "/api/v1/namespaces/default/secrets", "Accept: application/json")
	if !regexp.MustCompile(`^\{"kind":"SecretList","apiVersion":"v1","metadata":\{"resourceVersion":"[0-9]+"\}\}\n$`).MatchString(r.body) {
		t.Errorf("empty list of an items-less file: %s", r.body)
	}
	// Other resources' empty lists keep their items.
	if r := get(t, srv, "/api/v1/namespaces/nowhere/configmaps", "Accept: application/json"); !strings.HasSuffix(r.body, `"items":[]}`+"\n") {
		t.Errorf("empty configmaps: %s", r.body)
	}
	// The table of the list is unchanged.
	if r := get(t, srv, "/api/v1/namespaces/default/secrets", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io"); !strings.Contains(r.body, `"rows":[]`) {
		t.Errorf("table: %s", r.body)
	}
}
