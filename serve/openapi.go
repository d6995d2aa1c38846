package serve

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A bundle holds no OpenAPI schemas, but kubectl apply, create and edit
// download OpenAPI before they send anything: kubectl 1.29 and later read
// v3 to learn whether the server validates fields itself, kubectl 1.27 and
// 1.28 read v2 (as protobuf) to validate the object client-side. When the
// download fails they stop with "failed to download openapi" or a bare
// NotFound, and the user never learns that the server is read-only. So:
//
//   - /openapi/v3 lists every group version, and each group version's
//     document declares, for every resource, a PATCH that takes
//     fieldValidation: kubectl then sends the write, and the write gets
//     the clear 405;
//   - /openapi/v2 is one document, in protobuf or JSON as the Accept header
//     asks, with a definition per kind and no properties, which kubectl's
//     client-side validation accepts whatever the object holds.
//
// Each kind's schema is only a description saying that it was not
// collected, which is what `kubectl explain` then prints.

// notCollected is the description of every kind's schema.
const notCollected = "The schema of this kind was not collected in the support bundle that bundlectl serves."

// The media types of /openapi/v2, as kube-openapi's handler names them.
const (
	openAPIV2ProtoAccept = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV2ProtoType   = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// openAPIDocs are the /openapi/v3 index and documents and the /openapi/v2
// document, rendered at load.
type openAPIDocs struct {
	index []byte
	docs  map[string][]byte // by path under /openapi/v3/
	// v2JSON and v2Proto are the /openapi/v2 document.
	v2JSON, v2Proto []byte
}

// servedKind is one resource discovery advertises, with the kind its
// objects have.
type servedKind struct {
	name string
	api  schemaAPI
	gvk  schema.GroupVersionKind
}

type schemaAPI struct {
	namespaced bool
	patch      bool
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
		out = append(out, servedKind{name: name, api: schemaAPI{namespaced: api.Namespaced, patch: hasVerb(api.Verbs, "patch")}, gvk: gvk})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func gvkExtension(gvk schema.GroupVersionKind) map[string]string {
	return map[string]string{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
}

// definitionName names a kind's schema as the server names custom
// resources' (the group reversed: com.example.v1.Widget), and the core
// group's as the server does (io.k8s.api.core.v1.Pod). Clients find
// schemas by their group version kind extension, not by name.
func definitionName(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return "io.k8s.api.core." + gvk.Version + "." + gvk.Kind
	}
	parts := strings.Split(gvk.Group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}

func buildOpenAPI(x *Index) (*openAPIDocs, error) {
	out := &openAPIDocs{docs: map[string][]byte{}}
	type ref struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	index := struct {
		Paths map[string]ref `json:"paths"`
	}{Paths: map[string]ref{}}
	v2 := map[string]schema.GroupVersionKind{} // every kind, by definition name
	for gv, resources := range x.groupVersions {
		_, version := splitGroupVersion(gv)
		prefix := "api/" + version
		if strings.Contains(gv, "/") {
			prefix = "apis/" + gv
		}
		paths, schemas := map[string]any{}, map[string]any{}
		for _, k := range servedKinds(gv, resources) {
			v2[definitionName(k.gvk)] = k.gvk
			if !k.api.patch {
				continue
			}
			p := "/" + prefix + "/" + k.name + "/{name}"
			if k.api.namespaced {
				p = "/" + prefix + "/namespaces/{namespace}/" + k.name + "/{name}"
			}
			ext := gvkExtension(k.gvk)
			schemas[k.gvk.GroupVersion().String()+"."+k.gvk.Kind] = map[string]any{
				"type":                            "object",
				"description":                     notCollected,
				"x-kubernetes-group-version-kind": []any{ext},
			}
			paths[p] = map[string]any{"patch": map[string]any{
				"x-kubernetes-group-version-kind": ext,
				"parameters":                      []any{map[string]any{"name": "fieldValidation", "in": "query", "schema": map[string]any{"type": "string"}}},
				"responses":                       map[string]any{"405": map[string]any{"description": readOnly}},
			}}
		}
		doc, err := json.Marshal(map[string]any{
			"openapi":    "3.0.0",
			"info":       map[string]string{"title": "Kubernetes", "version": x.Version.GitVersion},
			"paths":      paths,
			"components": map[string]any{"schemas": schemas},
		})
		if err != nil {
			return nil, fmt.Errorf("openapi for %s: %w", gv, err)
		}
		out.docs[prefix] = doc
		index.Paths[prefix] = ref{ServerRelativeURL: fmt.Sprintf("/openapi/v3/%s?hash=%X", prefix, sha512.Sum512(doc))}
	}
	data, err := json.Marshal(index)
	if err != nil {
		return nil, fmt.Errorf("openapi index: %w", err)
	}
	out.index = data
	if out.v2JSON, out.v2Proto, err = buildOpenAPIV2(x.Version.GitVersion, v2); err != nil {
		return nil, fmt.Errorf("openapi v2: %w", err)
	}
	return out, nil
}

// buildOpenAPIV2 renders the v2 document in JSON and in protobuf. A
// definition without a type or properties is, to kubectl's validation
// (k8s.io/kube-openapi/pkg/util/proto), an arbitrary value: any object is
// valid, so the write reaches the server and its 405.
func buildOpenAPIV2(version string, kinds map[string]schema.GroupVersionKind) (jsonDoc, protoDoc []byte, err error) {
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	defs := &openapi_v2.Definitions{}
	jsonDefs := map[string]any{}
	for _, n := range names {
		ext := []any{gvkExtension(kinds[n])}
		extJSON, err := json.Marshal(ext)
		if err != nil {
			return nil, nil, err
		}
		defs.AdditionalProperties = append(defs.AdditionalProperties, &openapi_v2.NamedSchema{Name: n, Value: &openapi_v2.Schema{
			Description: notCollected,
			// JSON is YAML: the extension is read back with a YAML decoder.
			VendorExtension: []*openapi_v2.NamedAny{{Name: "x-kubernetes-group-version-kind", Value: &openapi_v2.Any{Yaml: string(extJSON)}}},
		}})
		jsonDefs[n] = map[string]any{"description": notCollected, "x-kubernetes-group-version-kind": ext}
	}
	doc := &openapi_v2.Document{
		Swagger:     "2.0",
		Info:        &openapi_v2.Info{Title: "Kubernetes", Version: version},
		Paths:       &openapi_v2.Paths{},
		Definitions: defs,
	}
	if protoDoc, err = proto.Marshal(doc); err != nil {
		return nil, nil, err
	}
	jsonDoc, err = json.Marshal(map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": version},
		"paths":       map[string]any{},
		"definitions": jsonDefs,
	})
	return jsonDoc, protoDoc, err
}

func hasVerb(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// serveOpenAPI answers /openapi/v3, its documents and /openapi/v2.
func (s *server) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
	if path == "/openapi/v2" {
		s.serveOpenAPIV2(w, r)
		return
	}
	rest, ok := strings.CutPrefix(path, "/openapi/v3")
	if !ok {
		writeError(w, errNoRoute())
		return
	}
	var data []byte
	if rest == "" {
		data = s.x.openapi.index
	} else if data, ok = s.x.openapi.docs[strings.TrimPrefix(rest, "/")]; !ok {
		writeError(w, errNoRoute())
		return
	}
	b := &body{}
	b.add(data)
	respond(w, r, http.StatusOK, jsonType, b, nil, "")
}

// serveOpenAPIV2 negotiates as kube-openapi's handler does: the first
// clause of Accept that names JSON or the protobuf type (or a wildcard)
// wins, and nothing acceptable is a bare 406.
func (s *server) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Accept")
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	for _, clause := range strings.Split(accept, ",") {
		mediaType, _, _ := strings.Cut(clause, ";")
		typ, sub, _ := strings.Cut(strings.TrimSpace(mediaType), "/")
		if typ != "application" && typ != "*" {
			continue
		}
		b := &body{}
		switch sub {
		case "json", "*":
			b.add(s.x.openapi.v2JSON)
			respond(w, r, http.StatusOK, jsonType, b, nil, "")
			return
		case strings.TrimPrefix(openAPIV2ProtoAccept, "application/"):
			b.add(s.x.openapi.v2Proto)
			respond(w, r, http.StatusOK, openAPIV2ProtoType, b, nil, "")
			return
		}
	}
	w.WriteHeader(http.StatusNotAcceptable)
}
