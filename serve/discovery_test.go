package serve

import (
	"net/http"
	"strings"
	"testing"
)

// kubectl's discovery Accept headers, by client version (client-go's
// discovery_client.go).
const (
	acceptV2beta1 = "Accept: application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	acceptV2      = "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)

func TestLegacyDiscovery(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		path, prefix string
	}{
		// The core group's documents carry no apiVersion; the others do.
		{"/api", `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"` + strings.TrimPrefix(srv.URL, "http://") + `"}]}`},
		{"/api/v1", `{"kind":"APIResourceList","groupVersion":"v1","resources":[`},
		{"/apis", `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},`},
		{"/apis/apps", `{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}`},
		{"/apis/apps/v1", `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[{"name":"deployments",`},
		{"/apis/example.com/v1", `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"example.com/v1","resources":[{"name":"widgets",`},
	} {
		r := get(t, srv, tc.path, "Accept: application/json")
		if r.code != http.StatusOK || !strings.HasPrefix(r.body, tc.prefix) {
			t.Errorf("%s: %d\n%s\nwant prefix\n%s", tc.path, r.code, r.body, tc.prefix)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.path, ct)
		}
	}
	// As kube-apiserver 1.35.4 answers: a Status inside a known group, its
	// mux's plain-text page outside every known group.
	for _, path := range []string{"/api/v2", "/apis/apps/v2", "/apis/apps/v1/nopes"} {
		wantStatus(t, get(t, srv, path), http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}
	for _, path := range []string{"/apis/nope", "/apis/nope/v1", "/apis/nope/v1/things", "/nope"} {
		r := get(t, srv, path)
		if r.code != http.StatusNotFound || r.body != "404 page not found\n" || r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s: %d %q %q", path, r.code, r.header.Get("Content-Type"), r.body)
		}
	}
}

func TestAggregatedDiscovery(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		name, accept, contentType, apiVersion string
	}{
		{"kubectl 1.29", acceptV2beta1, "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", "apidiscovery.k8s.io/v2beta1"},
		{"kubectl 1.30+", acceptV2, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"},
		{"no peers", "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,application/json", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"},
		{"legacy client", "Accept: application/json, */*", "application/json", ""},
		{"no Accept", "", "application/json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/api", "/apis"} {
				r := get(t, srv, path, tc.accept)
				if r.code != http.StatusOK {
					t.Fatalf("%s: %d %s", path, r.code, r.body)
				}
				if ct := r.header.Get("Content-Type"); ct != tc.contentType {
					t.Errorf("%s: Content-Type %q, want %q", path, ct, tc.contentType)
				}
				if v := r.header.Get("Vary"); v != "Accept" {
					t.Errorf("%s: Vary %q", path, v)
				}
				doc := decode(t, r)
				if tc.apiVersion == "" {
					if doc["kind"] == "APIGroupDiscoveryList" {
						t.Errorf("%s: aggregated discovery for a legacy Accept", path)
					}
					continue
				}
				if doc["kind"] != "APIGroupDiscoveryList" || doc["apiVersion"] != tc.apiVersion {
					t.Errorf("%s: %v %v", path, doc["kind"], doc["apiVersion"])
				}
				if r.header.Get("ETag") == "" {
					t.Errorf("%s: no ETag", path)
				}
			}
		})
	}

	t.Run("content", func(t *testing.T) {
		core := decode(t, get(t, srv, "/api", acceptV2))
		items := core["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("core items: %v", items)
		}
		var pods map[string]any
		for _, r := range items[0].(map[string]any)["versions"].([]any)[0].(map[string]any)["resources"].([]any) {
			if r.(map[string]any)["resource"] == "pods" {
				pods = r.(map[string]any)
			}
		}
		if pods == nil || pods["scope"] != "Namespaced" || pods["singularResource"] != "pod" {
			t.Fatalf("pods: %v", pods)
		}
		var subs []string
		for _, s := range pods["subresources"].([]any) {
			subs = append(subs, s.(map[string]any)["subresource"].(string))
		}
		if strings.Join(subs, ",") != "attach,exec,log,portforward,proxy,status" {
			t.Errorf("pods subresources %v", subs)
		}
		groups := decode(t, get(t, srv, "/apis", acceptV2))["items"].([]any)
		var names []string
		for _, g := range groups {
			names = append(names, g.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		if strings.Join(names, ",") != "apps,authorization.k8s.io,apiextensions.k8s.io,example.com" {
			t.Errorf("groups in priority order: %v", names)
		}
	})

	t.Run("etag", func(t *testing.T) {
		first := get(t, srv, "/apis", acceptV2)
		again := get(t, srv, "/apis", acceptV2, "If-None-Match: "+first.header.Get("ETag"))
		if again.code != http.StatusNotModified || again.body != "" {
			t.Errorf("If-None-Match: %d %q", again.code, again.body)
		}
	})

	t.Run("not acceptable", func(t *testing.T) {
		// A client asking only for what cannot be served gets 406, as a
		// 1.27 server answers a v2-only Accept.
		for _, accept := range []string{
			"Accept: application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
			"Accept: application/vnd.kubernetes.protobuf",
		} {
			wantStatus(t, get(t, srv, "/apis", accept), http.StatusNotAcceptable, "NotAcceptable", "only the following media types are accepted: application/json")
		}
	})
}

func TestVersion(t *testing.T) {
	srv := testServer(t)
	r := get(t, srv, "/version")
	v := decode(t, r)
	if v["gitVersion"] != "v1.31.2" || v["major"] != "1" || v["minor"] != "31" {
		t.Errorf("version %v", v)
	}
	// The server indents /version.
	if !strings.HasPrefix(r.body, "{\n  \"major\"") {
		t.Errorf("not indented: %q", r.body)
	}
}
