package serve

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A bundle holds no OpenAPI schemas, but kubectl apply, create and edit
// download OpenAPI v3 before they send anything, to learn whether the
// server validates fields itself; when the download fails they stop with
// "failed to download openapi" and the user never learns that the server
// is read-only. So /openapi/v3 lists every group version, and each group
// version's document declares, for every resource, a PATCH that takes
// fieldValidation: kubectl then sends the write, and the write gets the
// clear 405. Each kind's schema is only a description saying that it was
// not collected, which is what `kubectl explain` then prints.

// openAPIDocs are the /openapi/v3 index and documents, rendered at load.
type openAPIDocs struct {
	index []byte
	docs  map[string][]byte // by path under /openapi/v3/
}

func buildOpenAPI(x *Index) (*openAPIDocs, error) {
	out := &openAPIDocs{docs: map[string][]byte{}}
	type ref struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	index := struct {
		Paths map[string]ref `json:"paths"`
	}{Paths: map[string]ref{}}
	for gv, resources := range x.groupVersions {
		group, version := splitGroupVersion(gv)
		prefix := "api/" + version
		if group != "" {
			prefix = "apis/" + gv
		}
		paths, schemas := map[string]any{}, map[string]any{}
		for name, api := range resources {
			if strings.Contains(name, "/") || !hasVerb(api.Verbs, "patch") {
				continue
			}
			p := "/" + prefix + "/" + name + "/{name}"
			if api.Namespaced {
				p = "/" + prefix + "/namespaces/{namespace}/" + name + "/{name}"
			}
			gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: api.Kind}
			if api.Group != "" || api.Version != "" {
				gvk.Group, gvk.Version = api.Group, api.Version
			}
			ext := map[string]string{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
			schemas[gvk.GroupVersion().String()+"."+gvk.Kind] = map[string]any{
				"type":                            "object",
				"description":                     "The schema of this kind was not collected in the support bundle that bundlectl serves.",
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
	return out, nil
}

func hasVerb(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// serveOpenAPI answers /openapi/v3 and its documents; /openapi/v2 (only
// ever asked for as protobuf) is not served.
func (s *server) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
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
