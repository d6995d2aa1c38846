package serve

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OpenAPI is what `kubectl explain` reads, and what kubectl apply, create
// and edit download before they send anything (to learn whether the
// server validates fields, or to validate the object themselves). The
// server answers as kube-apiserver's OpenAPI handlers (k8s.io/kube-openapi
// handler3 and handler) do:
//
//   - /openapi/v3 is the index: every document's path with a
//     serverRelativeURL carrying the SHA-512 of the document, which
//     client-go caches by;
//   - /openapi/v3/<path> is each document, in JSON or in protobuf;
//   - /openapi/v2 is the bundle's v2 document, in JSON or in protobuf
//     (kubectl 1.27 and 1.28 download it, as protobuf, before explain and
//     apply), and a 404 when the bundle has none: never a stand-in, which
//     an older kubectl would take for the schema of every kind.
//
// The documents are the bundle's (_meta/openapi), byte for byte, so that
// the hashes are the live server's. A group version discovery advertises
// without a document (a bundle from before OpenAPI was collected, a
// version the upgrade's release does not know) gets a stand-in whose
// kinds are described as not collected and whose resources declare a
// PATCH taking fieldValidation: kubectl then sends its write, and the
// write gets the clear 405.

// notCollected is the description of every kind of a stand-in document.
const notCollected = "The schema of this kind was not collected in the support bundle that bundlectl serves."

// The media types of the OpenAPI documents, as kube-openapi names them:
// clients ask for the @ form and get the dotted form back.
const (
	openAPIV2ProtoType           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	openAPIV2ProtoTypeDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV3ProtoType           = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	openAPIV3ProtoTypeDeprecated = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// openAPIDocs are the /openapi/v3 index and documents and the /openapi/v2
// document, rendered at load.
type openAPIDocs struct {
	index *openAPIDoc
	docs  map[string]*openAPIDoc // by path under /openapi/v3/
	v2    *openAPIDoc            // nil when the bundle has no v2 document
	// modified is the Last-Modified of every document: the collection.
	modified time.Time
}

// openAPIDoc is one document: its JSON, its ETag, and its protobuf form,
// made on first use (parsing a large document takes a fraction of a
// second, and most clients never ask for protobuf).
type openAPIDoc struct {
	json  []byte
	etag  string
	proto func() ([]byte, error)
}

func newOpenAPIDoc(data []byte, toProto func([]byte) ([]byte, error)) *openAPIDoc {
	d := &openAPIDoc{json: data, etag: fmt.Sprintf("%X", sha512.Sum512(data))}
	if toProto != nil {
		d.proto = sync.OnceValues(func() ([]byte, error) { return toProto(data) })
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

// openAPIIndexURL is kube-openapi's constructServerRelativeURL.
func openAPIIndexURL(docPath, etag string) string {
	u := url.URL{Path: path.Join("/openapi/v3", docPath)}
	u.RawQuery = url.Values{"hash": {etag}}.Encode()
	return u.String()
}

// buildOpenAPI makes the documents from the bundle's (v3 by path, v2 nil
// when absent) and stand-ins for the group versions without one.
func buildOpenAPI(x *Index, v3 map[string][]byte, v2 []byte) (*openAPIDocs, error) {
	out := &openAPIDocs{docs: map[string]*openAPIDoc{}, modified: x.CollectedAt}
	for p, data := range v3 {
		out.docs[p] = newOpenAPIDoc(data, toV3Proto)
	}
	for gv, resources := range x.groupVersions {
		p := openAPIPath(gv)
		if _, ok := out.docs[p]; ok {
			continue
		}
		data, err := standInDocument(x.Version.GitVersion, gv, resources)
		if err != nil {
			return nil, fmt.Errorf("openapi for %s: %w", gv, err)
		}
		out.docs[p] = newOpenAPIDoc(data, toV3Proto)
	}
	type ref struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	index := struct {
		Paths map[string]ref `json:"paths"`
	}{Paths: map[string]ref{}}
	for p, d := range out.docs {
		index.Paths[p] = ref{ServerRelativeURL: openAPIIndexURL(p, d.etag)}
	}
	data, err := json.Marshal(index)
	if err != nil {
		return nil, fmt.Errorf("openapi index: %w", err)
	}
	out.index = newOpenAPIDoc(data, nil)
	if v2 != nil {
		out.v2 = newOpenAPIDoc(v2, toV2Proto)
		if len(v2) <= v2EagerLimit {
			// kubectl 1.27 and 1.28 ask for it first thing: have it
			// ready. Converted before loading ends, not beside serving:
			// parsing it makes tens of megabytes of garbage, which the
			// end of loading hands back to the OS (Run).
			out.v2.proto()
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
			"responses":                       map[string]any{"405": map[string]any{"description": readOnly}},
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

// serveOpenAPI answers /openapi/v3, its documents and /openapi/v2.
func (s *server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) {
	docs := s.x.openapi
	switch {
	case p == "/openapi/v2":
		if docs.v2 == nil {
			writeError(w, errNoRoute())
			return
		}
		serveOpenAPIDocument(w, r, "/openapi/v2", docs.v2, docs.modified, false, openAPIV2ProtoType, openAPIV2ProtoTypeDeprecated)
	case p == "/openapi/v3":
		w.Header().Set("Etag", strconv.Quote(docs.index.etag))
		w.Header().Set("Content-Type", jsonType)
		http.ServeContent(w, r, p, docs.modified, bytes.NewReader(docs.index.json))
	case strings.HasPrefix(p, "/openapi/v3/"):
		docPath := strings.TrimPrefix(p, "/openapi/v3/")
		d, ok := docs.docs[docPath]
		if !ok {
			writeError(w, errNoRoute())
			return
		}
		serveOpenAPIDocument(w, r, docPath, d, docs.modified, true, openAPIV3ProtoType, openAPIV3ProtoTypeDeprecated)
	default:
		writeError(w, errNoRoute())
	}
}

// serveOpenAPIDocument negotiates as kube-openapi does: the clauses of
// Accept by preference, the first that names JSON or the protobuf type
// (or a wildcard) wins, and nothing acceptable is a bare 406. A v3
// document asked for at another hash than its own redirects to its
// current URL; at its own hash it is immutable.
func serveOpenAPIDocument(w http.ResponseWriter, r *http.Request, docPath string, d *openAPIDoc, modified time.Time, v3 bool, protoType, protoTypeDeprecated string) {
	w.Header().Add("Vary", "Accept")
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range parseAccept(accept) {
		if c.typ != "application" && c.typ != "*" {
			continue
		}
		var data []byte
		var contentType string
		switch {
		case c.subtype == "json" || c.subtype == "*":
			data, contentType = d.json, jsonType
		case "application/"+c.subtype == protoType || "application/"+c.subtype == protoTypeDeprecated:
			b, err := d.proto()
			if err != nil {
				writeError(w, fmt.Errorf("converting the OpenAPI document to protobuf: %w", err))
				return
			}
			data, contentType = b, protoType
		default:
			continue
		}
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Etag", strconv.Quote(d.etag))
		if hash := r.URL.Query().Get("hash"); v3 && hash != "" {
			if hash != d.etag {
				http.Redirect(w, r, openAPIIndexURL(docPath, d.etag), http.StatusMovedPermanently)
				return
			}
			h.Set("Cache-Control", "public, immutable")
			h.Set("Expires", time.Now().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		http.ServeContent(w, r, "", modified, bytes.NewReader(data))
		return
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, subtype string
	q            float64
}

// parseAccept reads an Accept header as goautoneg.ParseAccept, which
// kube-openapi uses, does: clauses by descending quality, a concrete type
// or subtype before a wildcard, in the order given otherwise.
func parseAccept(header string) []acceptClause {
	var out []acceptClause
	for _, part := range strings.Split(header, ",") {
		fields := strings.Split(strings.Trim(part, " "), ";")
		c := acceptClause{q: 1}
		typ, subtype, ok := strings.Cut(fields[0], "/")
		c.typ = strings.Trim(typ, " ")
		switch {
		case !ok && c.typ == "*":
			c.subtype = "*"
		case !ok || strings.Contains(subtype, "/"):
			continue
		default:
			c.subtype = strings.Trim(subtype, " ")
		}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if ok && !strings.Contains(v, "=") && strings.Trim(k, " ") == "q" {
				c.q, _ = strconv.ParseFloat(v, 32)
			}
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.q > b.q || a.typ != "*" && b.typ == "*" || a.subtype != "*" && b.subtype == "*"
	})
	return out
}
