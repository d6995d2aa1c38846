package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// The OpenAPI documents of an upgraded bundle are the ones a server of
// the cluster's release would publish for the API its discovery.json
// advertises:
//
//   - each built-in group version's /openapi/v3 document, and the
//     documents that are not group versions (api, apis, apis/<group>,
//     version, ...), as the release's kube-apiserver serves them
//     (builtin/openapi-1.NN.tar.zst, builtin.go);
//   - each custom resource group version's document built from the
//     bundle's CRDs by the apiextensions server's own builder, merged per
//     group version as its OpenAPI v3 controller does;
//   - /openapi/v2: the release's document cut down to the group versions
//     discovery advertises (the paths of the others, and the definitions
//     only they reach, removed: what a server serving just those versions
//     publishes), with the CRDs merged in as the apiextensions OpenAPI
//     controller and the aggregator merge them.
//
// A group version of the bundle that neither knows (one the release no
// longer serves, such as batch/v1beta1) gets no document.

// openAPIFiles are the documents to add: v3 by path under /openapi/v3/.
type openAPIFiles struct {
	v3 map[string][]byte
	v2 []byte
}

// synthesizeOpenAPI makes the documents for a discovery and its CRDs,
// the built-in ones of the cluster's minor.
// CRDs whose schema cannot be built are problems, and left out, as the
// server logs and leaves them out.
func synthesizeOpenAPI(d *contract.Discovery, crds *crdIndex, minor int) (*openAPIFiles, []error) {
	builtin, err := loadBuiltinOpenAPI(minor)
	if err != nil {
		return nil, []error{err}
	}
	gvs := discoveryGroupVersions(d)
	custom, problems := buildCRDOpenAPI(crds, gvs)
	out := &openAPIFiles{v3: map[string][]byte{}}

	keptGroups := map[string]bool{}
	for gv := range gvs {
		p := openAPIPath(gv)
		if doc, ok := builtin.v3[p]; ok {
			out.v3[p] = doc
			keptGroups[gv.Group] = true
			continue
		}
		specs := custom.v3[gv]
		if len(specs) == 0 {
			continue
		}
		merged, err := builder.MergeSpecsV3(specs...)
		if err == nil {
			out.v3[p], err = json.Marshal(merged)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", contract.OpenAPIV3Path(p), err))
		}
	}
	for p, doc := range builtin.v3 {
		if _, ok := out.v3[p]; ok || isGroupVersionPath(p) {
			continue
		}
		if keepNonGroupVersionDoc(p, keptGroups) {
			out.v3[p] = doc
		}
	}

	v2, err := filterOpenAPIV2(builtin.v2, func(p string) bool { return keepV2Path(p, gvs, keptGroups) })
	if err == nil {
		v2, err = mergeCRDsIntoV2(v2, custom.v2)
	}
	if err != nil {
		problems = append(problems, fmt.Errorf("%s: %w", contract.OpenAPIV2Path(), err))
	} else {
		out.v2 = v2
	}
	if minor < openAPIV3Since {
		// Its server answered /openapi/v3 with a 404, and kubectl
		// explained from /openapi/v2.
		out.v3 = map[string][]byte{}
	}
	return out, problems
}

// openAPIV3Since is the first minor whose kube-apiserver served
// /openapi/v3 by default: the OpenAPIV3 feature gate was alpha (off) in
// 1.23 and beta (on) in 1.24 (pkg/features/kube_features.go).
const openAPIV3Since = 24

// discoveryGroupVersions are the group versions discovery advertises.
func discoveryGroupVersions(d *contract.Discovery) map[schema.GroupVersion]bool {
	out := map[schema.GroupVersion]bool{}
	for _, g := range d.Groups {
		for _, v := range g.Versions {
			out[schema.GroupVersion{Group: g.Name, Version: v.Version}] = true
		}
	}
	for gv := range d.Resources {
		if parsed, err := schema.ParseGroupVersion(gv); err == nil && parsed.Version != "" {
			out[parsed] = true
		}
	}
	return out
}

// openAPIPath is the /openapi/v3 path of a group version's document.
func openAPIPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

func isGroupVersionPath(p string) bool {
	return strings.HasPrefix(p, "api/") || strings.HasPrefix(p, "apis/") && strings.Count(p, "/") == 2
}

// keepNonGroupVersionDoc keeps a group's document (apis/<group>) when one
// of its versions is kept, the core group's (api) when v1 is, and the
// server's other documents (apis, version, ...) always.
func keepNonGroupVersionDoc(p string, keptGroups map[string]bool) bool {
	switch {
	case p == "api":
		return keptGroups[""]
	case strings.HasPrefix(p, "apis/"):
		return keptGroups[strings.TrimPrefix(p, "apis/")]
	}
	return true
}

// keepV2Path applies the same rule to the paths of the v2 document:
// /api/v1/..., /apis/<group>/<version>/... and /apis/<group>/.
func keepV2Path(p string, gvs map[schema.GroupVersion]bool, keptGroups map[string]bool) bool {
	if rest, ok := strings.CutPrefix(p, "/api/"); ok {
		if rest == "" {
			return keptGroups[""]
		}
		version, _, _ := strings.Cut(rest, "/")
		return gvs[schema.GroupVersion{Version: version}]
	}
	if rest, ok := strings.CutPrefix(p, "/apis/"); ok && rest != "" {
		group, rest, _ := strings.Cut(rest, "/")
		if rest == "" {
			return keptGroups[group]
		}
		version, _, _ := strings.Cut(rest, "/")
		return gvs[schema.GroupVersion{Group: group, Version: version}]
	}
	return true
}

// crdOpenAPI holds the CRDs' specs: v3 by group version, v2 one per CRD.
type crdOpenAPI struct {
	v3 map[schema.GroupVersion][]*spec3.OpenAPI
	v2 []*spec.Swagger
}

// buildCRDOpenAPI builds every served version of every CRD as the
// apiextensions server's OpenAPI controllers do (openapiv3.Controller's
// buildV3Spec, openapi.Controller's createSpecCache), CRDs in name order.
func buildCRDOpenAPI(crds *crdIndex, gvs map[schema.GroupVersion]bool) (*crdOpenAPI, []error) {
	out := &crdOpenAPI{v3: map[schema.GroupVersion][]*spec3.OpenAPI{}}
	var problems []error
	if crds == nil {
		return out, nil
	}
	all := crds.all()
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	for _, internal := range all {
		if !established(internal) {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(internal, crd, nil); err != nil {
			problems = append(problems, fmt.Errorf("%s: CRD %s: %w", contract.CRDListPath, internal.Name, err))
			continue
		}
		merged := &spec.Swagger{}
		for _, v := range crd.Spec.Versions {
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
			if !v.Served || !gvs[gv] {
				continue
			}
			opts := builder.Options{IncludeSelectableFields: true} // CustomResourceFieldSelectors is GA
			v3, err := builder.BuildOpenAPIV3(crd, v.Name, opts)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: CRD %s version %s: %w", contract.OpenAPIV3Path(openAPIPath(gv)), crd.Name, v.Name, err))
				continue
			}
			out.v3[gv] = append(out.v3[gv], v3)
			opts.V2 = true
			v2, err := builder.BuildOpenAPIV2(crd, v.Name, opts)
			if err == nil {
				// Pruned as the controller does, to merge cleanly with
				// the built-in spec, whose defaults are pruned.
				v2.Definitions = handler.PruneDefaults(v2.Definitions)
				merged, err = builder.MergeSpecs(merged, v2)
			}
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: CRD %s version %s: %w", contract.OpenAPIV2Path(), crd.Name, v.Name, err))
			}
		}
		if merged.Paths != nil {
			out.v2 = append(out.v2, merged)
		}
	}
	return out, problems
}

// swaggerParts is a v2 document with its maps split: each value kept as
// written, so that what is not changed keeps the server's bytes.
type swaggerParts struct {
	members     rawjson.Object
	paths       map[string]json.RawMessage
	definitions map[string]json.RawMessage
	parameters  map[string]json.RawMessage
}

func splitSwagger(doc []byte) (*swaggerParts, error) {
	members, err := rawjson.ParseObject(doc)
	if err != nil {
		return nil, err
	}
	s := &swaggerParts{members: members, paths: map[string]json.RawMessage{}, definitions: map[string]json.RawMessage{}, parameters: map[string]json.RawMessage{}}
	for _, m := range members {
		var into map[string]json.RawMessage
		switch m.Name {
		case "paths":
			into = s.paths
		case "definitions":
			into = s.definitions
		case "parameters":
			into = s.parameters
		default:
			continue
		}
		if err := json.Unmarshal(m.Value, &into); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return s, nil
}

// join writes the document back, members in their order.
func (s *swaggerParts) join() []byte {
	members := append(rawjson.Object(nil), s.members...)
	for i := range members {
		switch members[i].Name {
		case "paths":
			members[i].Value = rawjson.SortedObject(s.paths).Marshal()
		case "definitions":
			members[i].Value = rawjson.SortedObject(s.definitions).Marshal()
		case "parameters":
			members[i].Value = rawjson.SortedObject(s.parameters).Marshal()
		}
	}
	return members.Marshal()
}

// definitionRefs are the definitions a JSON value refers to. In JSON text
// `"$ref":"#/definitions/` can only be a reference: quotes inside strings
// are escaped.
func definitionRefs(value []byte, into map[string]bool) {
	const prefix = `"$ref":"#/definitions/`
	for {
		i := bytes.Index(value, []byte(prefix))
		if i < 0 {
			return
		}
		value = value[i+len(prefix):]
		end := bytes.IndexByte(value, '"')
		if end < 0 {
			return
		}
		into[string(value[:end])] = true
		value = value[end:]
	}
}

// filterOpenAPIV2 keeps the paths keep accepts, the parameters, and the
// definitions they reach: what the server's builder would have made from
// those routes alone.
func filterOpenAPIV2(doc []byte, keep func(path string) bool) ([]byte, error) {
	s, err := splitSwagger(doc)
	if err != nil {
		return nil, err
	}
	reached := map[string]bool{}
	for p, v := range s.paths {
		if !keep(p) {
			delete(s.paths, p)
			continue
		}
		definitionRefs(v, reached)
	}
	for _, v := range s.parameters {
		definitionRefs(v, reached)
	}
	kept := map[string]json.RawMessage{}
	for len(reached) > 0 {
		next := map[string]bool{}
		for name := range reached {
			v, ok := s.definitions[name]
			if _, done := kept[name]; done || !ok {
				continue
			}
			kept[name] = v
			definitionRefs(v, next)
		}
		reached = next
	}
	s.definitions = kept
	return s.join(), nil
}

const gvkExtension = "x-kubernetes-group-version-kind"

// mergeCRDsIntoV2 merges the CRDs' specs into the document as the server
// does (builder.MergeSpecs with the built-in spec as the static spec:
// definitions equal but for their group version kinds are shared, with
// the kinds merged; others are renamed; paths the built-ins have win).
// Only what the CRDs add or change is encoded anew: the rest keeps the
// document's bytes.
func mergeCRDsIntoV2(doc []byte, crdSpecs []*spec.Swagger) ([]byte, error) {
	if len(crdSpecs) == 0 {
		return doc, nil
	}
	s, err := splitSwagger(doc)
	if err != nil {
		return nil, err
	}
	// The static spec: every name, so that conflicts and renames are the
	// server's, but decoded only where a CRD uses the same name.
	usedDefs, usedParams := map[string]bool{}, map[string]bool{}
	for _, c := range crdSpecs {
		for k := range c.Definitions {
			usedDefs[k] = true
		}
		for k := range c.Parameters {
			usedParams[k] = true
		}
	}
	static := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Paths:       &spec.Paths{Paths: make(map[string]spec.PathItem, len(s.paths))},
		Definitions: make(spec.Definitions, len(s.definitions)),
		Parameters:  make(map[string]spec.Parameter, len(s.parameters)),
	}}
	for k := range s.paths {
		static.Paths.Paths[k] = spec.PathItem{}
	}
	gvksBefore := map[string]any{}
	for k, raw := range s.definitions {
		var d spec.Schema
		if usedDefs[k] {
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("definition %s: %w", k, err)
			}
			gvksBefore[k] = d.Extensions[gvkExtension]
		}
		static.Definitions[k] = d
	}
	for k, raw := range s.parameters {
		var p spec.Parameter
		if usedParams[k] {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("parameter %s: %w", k, err)
			}
		}
		static.Parameters[k] = p
	}
	merged, err := builder.MergeSpecs(static, crdSpecs...)
	if err != nil {
		return nil, err
	}
	// The aggregator reads the apiextensions server's spec as JSON, so
	// what the CRDs add is written as decoded from JSON (extensions as
	// maps, keys in order), not as the builder's Go values.
	encode := func(v any) (json.RawMessage, error) {
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		back := reflect.New(reflect.TypeOf(v)).Interface()
		if err := json.Unmarshal(data, back); err != nil {
			return nil, err
		}
		return json.Marshal(back)
	}
	for k, v := range merged.Paths.Paths {
		if _, ok := s.paths[k]; !ok {
			if s.paths[k], err = encode(v); err != nil {
				return nil, err
			}
		}
	}
	for k, v := range merged.Parameters {
		if _, ok := s.parameters[k]; !ok {
			if s.parameters[k], err = encode(v); err != nil {
				return nil, err
			}
		}
	}
	for k, v := range merged.Definitions {
		raw, ok := s.definitions[k]
		switch {
		case !ok:
			s.definitions[k], err = encode(v)
		case usedDefs[k] && !reflect.DeepEqual(gvksBefore[k], v.Extensions[gvkExtension]):
			s.definitions[k], err = withGVKs(raw, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return s.join(), nil
}

// withGVKs is a built-in definition whose group version kinds the merge
// extended: its bytes with only that member replaced.
func withGVKs(raw json.RawMessage, merged spec.Schema) (json.RawMessage, error) {
	gvks, err := json.Marshal(merged.Extensions[gvkExtension])
	if err != nil {
		return nil, err
	}
	members, err := rawjson.ParseObject(raw)
	if err != nil {
		return nil, err
	}
	if members.Get(gvkExtension) != nil {
		return members.With(gvkExtension, gvks).Marshal(), nil
	}
	return json.Marshal(merged)
}
