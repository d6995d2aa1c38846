package index

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/deprecation"
)

// notCollected is the description of every kind of a stand-in document.
const notCollected = "The schema of this kind was not collected in the support bundle that bundlectl serves."

// OpenAPIDocs are the /openapi/v3 index and documents and the /openapi/v2
// document, rendered at load.
type OpenAPIDocs struct {
	Index *OpenAPIDoc
	Docs  map[string]*OpenAPIDoc // by path under /openapi/v3/
	V2    *OpenAPIDoc            // nil when the bundle has no v2 document
	// Modified is the Last-Modified of every document: the collection.
	Modified time.Time
}

// OpenAPIDoc is one document: its JSON, its ETag, and its protobuf form,
// made on first use (parsing a large document takes a fraction of a
// second, and most clients never ask for protobuf).
type OpenAPIDoc struct {
	JSON  []byte
	ETag  string
	Proto func() ([]byte, error)
}

func newOpenAPIDoc(data []byte, toProto func([]byte) ([]byte, error)) *OpenAPIDoc {
	d := &OpenAPIDoc{JSON: data, ETag: fmt.Sprintf("%X", sha512.Sum512(data))}
	if toProto != nil {
		d.Proto = sync.OnceValues(func() ([]byte, error) { return toProto(data) })
	}
	return d
}

// toV3Proto and toV2Proto are kube-openapi's ToV3ProtoBinary and
// ToProtoBinary: the JSON parsed by gnostic and marshalled.
func toV3Proto(data []byte) ([]byte, error) {
	doc, err := openapi_v3.ParseDocument(data)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}

func toV2Proto(data []byte) ([]byte, error) {
	doc, err := openapi_v2.ParseDocument(data)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}

// v2EagerLimit is the largest v2 document converted to protobuf at load
// (a server's is a few MB); a larger one, which only a hand-made bundle
// can hold, is converted when a client asks for it.
const v2EagerLimit = 32 << 20

// buildOpenAPI makes the documents from the bundle's (v3 by path, v2 nil
// when absent) and stand-ins for the group versions without one.
//
// A bundle of a release that did not serve /openapi/v3 (1.23 and older:
// the OpenAPIV3 feature gate was off) gets neither: clients then explain
// and validate from /openapi/v2, as against its server.
func buildOpenAPI(x *Index, v3 map[string][]byte, v2 []byte) (*OpenAPIDocs, error) {
	out := &OpenAPIDocs{Docs: map[string]*OpenAPIDoc{}, Modified: x.CollectedAt}
	for p, data := range v3 {
		out.Docs[p] = newOpenAPIDoc(data, toV3Proto)
	}
	if major, minor, err := deprecation.MajorMinor(x.Version); err == nil && major == 1 && minor < 24 && len(v3) == 0 {
		return finishOpenAPI(out, v2)
	}
	for gv, resources := range x.groupVersions {
		p := openAPIPath(gv)
		if _, ok := out.Docs[p]; ok {
			continue
		}
		data, err := standInDocument(x.Version.GitVersion, gv, resources)
		if err != nil {
			return nil, fmt.Errorf("openapi for %s: %w", gv, err)
		}
		out.Docs[p] = newOpenAPIDoc(data, toV3Proto)
	}
	return finishOpenAPI(out, v2)
}

// finishOpenAPI adds the /openapi/v3 index of out's documents and the v2
// document.
func finishOpenAPI(out *OpenAPIDocs, v2 []byte) (*OpenAPIDocs, error) {
	type ref struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	index := struct {
		Paths map[string]ref `json:"paths"`
	}{Paths: map[string]ref{}}
	for p, d := range out.Docs {
		index.Paths[p] = ref{ServerRelativeURL: OpenAPIIndexURL(p, d.ETag)}
	}
	data, err := json.Marshal(index)
	if err != nil {
		return nil, fmt.Errorf("openapi index: %w", err)
	}
	out.Index = newOpenAPIDoc(data, nil)
	if v2 != nil {
		out.V2 = newOpenAPIDoc(v2, toV2Proto)
		if len(v2) <= v2EagerLimit {
			// kubectl 1.27 and 1.28 ask for it first thing: have it
			// ready. Converted before loading ends, not beside serving:
			// parsing it makes tens of megabytes of garbage, which the
			// end of loading hands back to the OS (Run).
			out.V2.Proto()
		}
	}
	return out, nil
}

// openAPIPath is the /openapi/v3 path of a group version's document.
func openAPIPath(gv string) string {
	if strings.Contains(gv, "/") {
		return "apis/" + gv
	}
	return "api/" + gv
}

// servedKind is one resource discovery advertises, with the kind its
// objects have.
type servedKind struct {
	name       string
	namespaced bool
	patch      bool
	gvk        schema.GroupVersionKind
}

// servedKinds lists the resources (not subresources) of a group version,
// by name.
func servedKinds(gv string, resources map[string]metav1.APIResource) []servedKind {
	group, version := splitGroupVersion(gv)
	var out []servedKind
	for name, api := range resources {
		if strings.Contains(name, "/") || api.Kind == "" {
			continue
		}
		gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: api.Kind}
		if api.Group != "" || api.Version != "" {
			gvk.Group, gvk.Version = api.Group, api.Version
		}
		out = append(out, servedKind{name: name, namespaced: api.Namespaced, patch: hasVerb(api.Verbs, "patch"), gvk: gvk})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// standInDocument is the document of a group version the bundle has no
// schema of: each kind described as not collected, and for each resource
// with the patch verb the PATCH kubectl looks for.
func standInDocument(version, gv string, resources map[string]metav1.APIResource) ([]byte, error) {
	prefix := "/" + openAPIPath(gv)
	paths, schemas := map[string]any{}, map[string]any{}
	for _, k := range servedKinds(gv, resources) {
		if !k.patch {
			continue
		}
		p := prefix + "/" + k.name + "/{name}"
		if k.namespaced {
			p = prefix + "/namespaces/{namespace}/" + k.name + "/{name}"
		}
		ext := map[string]string{"group": k.gvk.Group, "version": k.gvk.Version, "kind": k.gvk.Kind}
		schemas[k.gvk.GroupVersion().String()+"."+k.gvk.Kind] = map[string]any{
			"type":                            "object",
			"description":                     notCollected,
			"x-kubernetes-group-version-kind": []any{ext},
		}
		paths[p] = map[string]any{"patch": map[string]any{
			"x-kubernetes-group-version-kind": ext,
			"parameters":                      []any{map[string]any{"name": "fieldValidation", "in": "query", "schema": map[string]any{"type": "string"}}},
			"responses":                       map[string]any{"405": map[string]any{"description": ReadOnly}},
		}}
	}
	return json.Marshal(map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": version},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	})
}

func hasVerb(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// OpenAPIIndexURL is kube-openapi's constructServerRelativeURL.
func OpenAPIIndexURL(docPath, etag string) string {
	u := url.URL{Path: path.Join("/openapi/v3", docPath)}
	u.RawQuery = url.Values{"hash": {etag}}.Encode()
	return u.String()
}
