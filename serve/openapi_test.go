package serve

import (
	"bytes"
	"crypto/sha512"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

// Documents shaped as kube-apiserver serves them, small.
const (
	testV3Pods = `{"openapi":"3.0.0","info":{"title":"Kubernetes","version":"1.35"},"paths":{},` +
		`"components":{"schemas":{"io.k8s.api.core.v1.Pod":{"description":"Pod is a collection of containers.","type":"object",` +
		`"properties":{"spec":{"description":"Specification of the pod.","type":"object"}},` +
		`"x-kubernetes-group-version-kind":[{"group":"","kind":"Pod","version":"v1"}]}}}}`
	testV3Version = `{"openapi":"3.0.0","info":{"title":"Kubernetes","version":"1.35"},"paths":{"/version/":{"get":{"operationId":"getCodeVersion"}}},"components":{}}`
	testV2        = `{"swagger":"2.0","info":{"title":"Kubernetes","version":"1.35"},"paths":{},` +
		`"definitions":{"io.k8s.api.core.v1.Pod":{"description":"Pod is a collection of containers.","type":"object",` +
		`"x-kubernetes-group-version-kind":[{"group":"","kind":"Pod","version":"v1"}]}}}`
)

// openAPIServer serves the small bundle with the given OpenAPI files.
func openAPIServer(t *testing.T, files map[string]string) (*httptest.Server, *index.Index) {
	t.Helper()
	f := servetest.Small()
	for rel, data := range files {
		f[rel] = []byte(data)
	}
	x := load(t, f.WriteDir(t, t.TempDir()))
	return newHandlerServer(t, x), x
}

func openAPIIndex(t *testing.T, srv *httptest.Server) map[string]string {
	t.Helper()
	r := get(t, srv, "/openapi/v3")
	if r.code != http.StatusOK || r.header.Get("Content-Type") != "application/json" || r.header.Get("Etag") == "" {
		t.Fatalf("/openapi/v3: %d %v", r.code, r.header)
	}
	out := map[string]string{}
	for p, ref := range decode(t, r)["paths"].(map[string]any) {
		out[p] = ref.(map[string]any)["serverRelativeURL"].(string)
	}
	return out
}

func sha(s string) string { return fmt.Sprintf("%X", sha512.Sum512([]byte(s))) }

// A bundle without OpenAPI gets a stand-in per group version, whose
// resources take a PATCH with fieldValidation so that kubectl 1.29+
// sends its writes and gets the 405; /openapi/v2 does not exist.
func TestOpenAPIStandIns(t *testing.T) {
	srv := testServer(t)
	index := openAPIIndex(t, srv)
	for _, p := range []string{"api/v1", "apis/apps/v1", "apis/example.com/v1"} {
		if !strings.HasPrefix(index[p], "/openapi/v3/"+p+"?hash=") {
			t.Errorf("%s: %q", p, index[p])
		}
	}
	doc := decode(t, get(t, srv, index["api/v1"]))
	patch := doc["paths"].(map[string]any)["/api/v1/namespaces/{namespace}/pods/{name}"].(map[string]any)["patch"].(map[string]any)
	if patch["parameters"].([]any)[0].(map[string]any)["name"] != "fieldValidation" {
		t.Errorf("pods patch: %v", patch)
	}
	pod := doc["components"].(map[string]any)["schemas"].(map[string]any)["v1.Pod"].(map[string]any)
	if d, _ := pod["description"].(string); !strings.Contains(d, "was not collected in the support bundle") {
		t.Errorf("pod: %v", pod)
	}
	for _, accept := range []string{"application/json", openAPIV2ProtoTypeDeprecated} {
		if r := get(t, srv, "/openapi/v2", "Accept: "+accept); r.code != http.StatusNotFound {
			t.Errorf("/openapi/v2 as %s: %d %s", accept, r.code, r.header.Get("Content-Type"))
		}
	}
}

// The bundle's documents are served byte for byte, with the hashes of
// those bytes, in JSON or protobuf, as kube-openapi's handlers do.
func TestOpenAPIDocuments(t *testing.T) {
	srv, x := openAPIServer(t, map[string]string{
		contract.OpenAPIV3Path("api/v1"):        testV3Pods,
		contract.OpenAPIV3Path("version"):       testV3Version,
		contract.OpenAPIV3Path("apis/broken/x"): `{"openapi":`,
		contract.OpenAPIV2Path():                testV2,
	})
	if !strings.Contains(strings.Join(x.Warnings, "\n"), "openapi/v3/apis/broken/x.json: not a JSON object") {
		t.Errorf("warnings: %v", x.Warnings)
	}
	index := openAPIIndex(t, srv)
	if index["api/v1"] != "/openapi/v3/api/v1?hash="+sha(testV3Pods) || index["version"] != "/openapi/v3/version?hash="+sha(testV3Version) {
		t.Errorf("index: %v", index)
	}
	if _, ok := index["apis/broken/x"]; ok {
		t.Error("an invalid document is listed")
	}
	// Group versions without a document keep their stand-in.
	if doc := decode(t, get(t, srv, index["apis/apps/v1"])); doc["paths"].(map[string]any)["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"] == nil {
		t.Errorf("apps/v1 stand-in: %v", doc)
	}

	r := get(t, srv, index["api/v1"])
	if r.code != http.StatusOK || r.body != testV3Pods || r.header.Get("Content-Type") != "application/json" ||
		r.header.Get("Etag") != `"`+sha(testV3Pods)+`"` || r.header.Get("Cache-Control") != "public, immutable" || r.header.Get("Vary") != "Accept" {
		t.Errorf("api/v1: %d %v %.80s", r.code, r.header, r.body)
	}
	if r := get(t, srv, "/openapi/v3/api/v1", `If-None-Match: "`+sha(testV3Pods)+`"`); r.code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r.code)
	}
	if r := get(t, srv, "/openapi/v3/api/v1"); r.body != testV3Pods || r.header.Get("Cache-Control") != "" {
		t.Errorf("without a hash: %v", r.header)
	}
	// An old hash redirects to the current one.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/openapi/v3/api/v1?hash=ABC", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != index["api/v1"] {
		t.Errorf("old hash: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	p := get(t, srv, index["api/v1"], "Accept: "+openAPIV3ProtoTypeDeprecated)
	var doc3 openapi_v3.Document
	if p.header.Get("Content-Type") != openAPIV3ProtoType || proto.Unmarshal([]byte(p.body), &doc3) != nil ||
		doc3.Components.Schemas.AdditionalProperties[0].Name != "io.k8s.api.core.v1.Pod" {
		t.Errorf("v3 protobuf: %s %v", p.header.Get("Content-Type"), doc3.Components)
	}
	if r := get(t, srv, index["api/v1"], "Accept: text/html"); r.code != http.StatusNotAcceptable {
		t.Errorf("text/html: %d", r.code)
	}
	if r := get(t, srv, "/openapi/v3/apis/nope/v1"); r.code != http.StatusNotFound {
		t.Errorf("unknown document: %d", r.code)
	}

	// /openapi/v2: protobuf as kubectl 1.27 and 1.28 ask, JSON as is.
	v2 := get(t, srv, "/openapi/v2", "Accept: "+openAPIV2ProtoTypeDeprecated)
	var doc2 openapi_v2.Document
	if v2.code != http.StatusOK || v2.header.Get("Content-Type") != openAPIV2ProtoType || proto.Unmarshal([]byte(v2.body), &doc2) != nil ||
		doc2.Definitions.AdditionalProperties[0].Name != "io.k8s.api.core.v1.Pod" {
		t.Errorf("v2 protobuf: %d %s", v2.code, v2.header.Get("Content-Type"))
	}
	if j := get(t, srv, "/openapi/v2", "Accept: application/json"); j.body != testV2 || j.header.Get("Etag") != `"`+sha(testV2)+`"` {
		t.Errorf("v2 JSON: %v %.80s", j.header, j.body)
	}
	if r := get(t, srv, "/openapi/v2", "Accept: text/html"); r.code != http.StatusNotAcceptable {
		t.Errorf("v2 text/html: %d", r.code)
	}
}

func TestParseAccept(t *testing.T) {
	got := []string{}
	for _, c := range parseAccept("*/*;q=0.5, application/json;q=0.9, application/com.github.proto-openapi.spec.v2@v1.0+protobuf, text/*") {
		got = append(got, fmt.Sprintf("%s/%s;%.1f", c.typ, c.subtype, c.q))
	}
	want := "application/com.github.proto-openapi.spec.v2@v1.0+protobuf;1.0 text/*;1.0 application/json;0.9 */*;0.5"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v", got)
	}
}

// A 1.23 bundle: its server served no /openapi/v3 (the OpenAPIV3 gate was
// off), so neither does the served bundle, and kubectl explains from the
// bundle's /openapi/v2.
func TestOpenAPIBefore124(t *testing.T) {
	f := servetest.Small()
	for rel, data := range f {
		if strings.HasSuffix(rel, "_meta/discovery.json") {
			f[rel] = bytes.ReplaceAll(data, []byte(`"`+servetest.KubernetesVersion+`"`), []byte(`"v1.23.17"`))
		}
	}
	f[contract.OpenAPIV2Path()] = []byte(testV2)
	srv := newHandlerServer(t, load(t, f.WriteDir(t, t.TempDir())))
	for _, p := range []string{"/openapi/v3", "/openapi/v3/api/v1"} {
		if r := get(t, srv, p); r.code != http.StatusNotFound {
			t.Errorf("%s: %d", p, r.code)
		}
	}
	if r := get(t, srv, "/openapi/v2", "Accept: application/json"); r.code != http.StatusOK {
		t.Errorf("/openapi/v2: %d", r.code)
	}
}
