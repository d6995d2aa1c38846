package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

// objectsIndex is the small bundle with its custom resource's version
// deprecated, so that some object routes carry a Warning.
func objectsIndex(t *testing.T) *index.Index {
	t.Helper()
	files := servetest.Small()
	crds := contract.ResourcePath(contract.DirFor(servetest.CRDsGVR.GroupResource(), false), "")
	deprecated := bytes.Replace(files[crds], []byte(`"served": true`), []byte(`"deprecated": true, "served": true`), 1)
	if bytes.Equal(deprecated, files[crds]) {
		t.Fatalf("no served version in %s", crds)
	}
	files[crds] = deprecated
	return load(t, files.WriteDir(t, t.TempDir()))
}

// objectPath is the path of an object of a resource at a group version.
func objectPath(gv schema.GroupVersion, resource string, o *index.Object) string {
	p := "/apis/" + gv.String()
	if gv.Group == "" {
		p = "/api/" + gv.Version
	}
	if o.Namespace() != "" {
		p += "/namespaces/" + o.Namespace()
	}
	return p + "/" + resource + "/" + o.Name()
}

// A GET of one object that withObjectGets answers gets what the router
// answers: the same status, headers and body, for every object of every
// resource at every group version, in every form a client asks for, for
// kubectl and for other clients.
func TestObjectGetsAnswerAsTheRouter(t *testing.T) {
	x := objectsIndex(t)
	s := newAPIServer(x, HandlerOptions{})
	router := withRequestInfo(http.HandlerFunc(s.route), s.infos)
	accepts := []string{
		strings.TrimPrefix(tableAccept, "Accept: "),
		"application/json;as=Table;v=v1beta1;g=meta.k8s.io",
		"application/json",
		"",
		"*/*",
		"application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json",
		"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
		"application/vnd.kubernetes.protobuf",
	}
	agents := []string{"kubectl/v1.33.4 (linux/amd64) kubernetes/74cdb42", "curl/8.5.0", "Go-http-client/2.0"}
	warned, tables := 0, map[objectKey]bool{}
	for gvs, list := range x.Discovery.Resources {
		gv, err := schema.ParseGroupVersion(gvs)
		if err != nil {
			t.Fatal(err)
		}
		for _, api := range list {
			_, res, ok := x.Lookup(gv.Group, gv.Version, api.Name, "")
			if !ok || strings.Contains(api.Name, "/") {
				continue
			}
			for _, o := range res.NamespaceRange("") {
				for _, accept := range accepts {
					for _, agent := range agents {
						path := objectPath(gv, api.Name, o)
						r := httptest.NewRequest(http.MethodGet, path, nil)
						r.Header.Set("Accept", accept)
						r.Header.Set("User-Agent", agent)
						fast, slow := httptest.NewRecorder(), httptest.NewRecorder()
						answered := s.getObject(fast, r)
						router.ServeHTTP(slow, r)
						if !answered {
							if fast.Body.Len() != 0 || len(fast.Header()) != 0 {
								t.Errorf("GET %s (%s): not answered, yet wrote %v %q", path, accept, fast.Header(), fast.Body)
							}
							continue
						}
						if fast.Code != slow.Code || !reflect.DeepEqual(undated(fast.Header()), undated(slow.Header())) || fast.Body.String() != slow.Body.String() {
							t.Errorf("GET %s (Accept %q, User-Agent %q):\n%d %v\n%s\nthe router:\n%d %v\n%s", path, accept, agent, fast.Code, fast.Header(), fast.Body, slow.Code, slow.Header(), slow.Body)
						}
						if fast.Header().Get("Warning") != "" {
							warned++
						}
						if accept == accepts[0] && fast.Code == http.StatusOK {
							tables[objectKey{gv.Group, gv.Version, api.Name}] = true
						}
					}
				}
			}
		}
	}
	// Every resource of the bundle with objects and the get verb: the
	// kubectl GET of each is answered here.
	for _, key := range []objectKey{{"", "v1", "pods"}, {"", "v1", "nodes"}, {"", "v1", "namespaces"}, {"", "v1", "secrets"}, {"apps", "v1", "deployments"}, {"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, {"example.com", "v1", "widgets"}} {
		if !tables[key] {
			t.Errorf("kubectl's GET of a %v was not answered by withObjectGets", key)
		}
	}
	if warned == 0 {
		t.Error("no answer carried the deprecated widgets' Warning")
	}
}

// Every other request goes on to the router, with nothing written.
func TestObjectGetsLeaveTheRest(t *testing.T) {
	x := objectsIndex(t)
	s := newAPIServer(x, HandlerOptions{})
	accept := strings.TrimPrefix(tableAccept, "Accept: ")
	for _, c := range []struct{ method, path, accept string }{
		{http.MethodGet, "/api/v1/namespaces/default/pods/nope", accept},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web-1/", accept},
		{http.MethodGet, "/api/v1/namespaces/default//pods/web-1", accept},
		{http.MethodGet, "//api/v1/namespaces/default/pods/web-1", accept},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web-1?pretty=true", accept},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web-1/status", accept},
		{http.MethodGet, "/api/v1/watch/namespaces/default/pods/web-1", accept},
		{http.MethodGet, "/api/v1/watch/namespaces/default", accept},
		{http.MethodGet, "/api/v1/proxy/nodes/node-1", accept},
		{http.MethodGet, "/api/v1/namespaces/default/status", accept},
		{http.MethodGet, "/api/v1/namespaces/default/namespaces/default", accept},
		{http.MethodGet, "/api/v1/pods/web-1", accept},
		{http.MethodGet, "/api/v1/namespaces/default/nodes/node-1", accept},
		{http.MethodGet, "/api/v1/namespaces/default/pods", accept},
		{http.MethodGet, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/x", accept},
		{http.MethodGet, "/apis/apps/v2/namespaces/default/deployments/web", accept},
		{http.MethodGet, "/apis//v1/namespaces/default/deployments/web", accept},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web-1", "application/vnd.kubernetes.protobuf"},
		{http.MethodHead, "/api/v1/namespaces/default/pods/web-1", accept},
		{http.MethodDelete, "/api/v1/namespaces/default/pods/web-1", accept},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		if c.path == "//api/v1/namespaces/default/pods/web-1" {
			r.URL.Path = c.path // httptest reads it as a host
		}
		r.Header.Set("Accept", c.accept)
		w := httptest.NewRecorder()
		if s.getObject(w, r) || w.Body.Len() != 0 || len(w.Header()) != 0 {
			t.Errorf("%s %s (%s): answered %d %v %q", c.method, c.path, c.accept, w.Code, w.Header(), w.Body)
		}
	}
	// The object itself is answered: the cases above differ from it by
	// one thing each.
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods/web-1", nil)
	r.Header.Set("Accept", accept)
	if w := httptest.NewRecorder(); !s.getObject(w, r) || w.Code != http.StatusOK {
		t.Fatalf("GET of web-1 not answered: %d %q", w.Code, w.Body)
	}
}

// undated is h without its Date, which is the second each answer was
// written in: the two answers of a pair may be a second apart.
func undated(h http.Header) http.Header {
	if len(h["Date"]) != 1 {
		return h
	}
	out := h.Clone()
	delete(out, "Date")
	return out
}
