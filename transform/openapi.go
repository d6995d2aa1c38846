package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
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
	out := &openAPIFiles{v3: map[string][]byte{}}

	keptGroups := map[string]bool{}
	custom := map[schema.GroupVersion]*v3Merger{}
	for gv := range gvs {
		p := openAPIPath(gv)
		if doc, ok := builtin.v3[p]; ok {
			out.v3[p] = doc
			keptGroups[gv.Group] = true
			continue
		}
		custom[gv] = &v3Merger{}
	}
	for p, doc := range builtin.v3 {
		if _, ok := out.v3[p]; ok || isGroupVersionPath(p) {
			continue
		}
		if keepNonGroupVersionDoc(p, keptGroups) {
			out.v3[p] = doc
		}
	}

	var problems []error
	v2, err := filterOpenAPIV2(builtin.v2, func(p string) bool { return keepV2Path(p, gvs, keptGroups) })
	var merger *v2Merger
	if err == nil {
		merger = newV2Merger(v2)
	}
	v2Problem := func(err error) {
		problems = append(problems, fmt.Errorf("%s: %w", contract.OpenAPIV2Path(), err))
		merger = nil
	}
	if err != nil {
		v2Problem(err)
	}
	problems = append(problems, eachCRDSpec(crds, gvs, func(gv schema.GroupVersion, v3 *spec3.OpenAPI) {
		if m := custom[gv]; m != nil {
			m.add(v3)
		}
	}, func(v2 *spec.Swagger) {
		if merger == nil {
			return
		}
		if err := merger.add(v2); err != nil {
			v2Problem(err)
		}
	})...)
	for gv, m := range custom {
		p := openAPIPath(gv)
		doc, err := m.document()
		delete(custom, gv) // its parts, once written in the document
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", contract.OpenAPIV3Path(p), err))
		} else if doc != nil {
			out.v3[p] = doc
		}
	}
	if merger != nil {
		if out.v2, err = merger.document(); err != nil {
			v2Problem(err)
		}
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

// eachCRDSpec builds every served version of every CRD as the
// apiextensions server's OpenAPI controllers do (openapiv3.Controller's
// buildV3Spec, openapi.Controller's createSpecCache), CRDs in name order,
// and hands each on at once: a version's v3 spec to v3, the CRD's v2 spec
// (its versions merged) to v2. One CRD is decoded, schemas and all, at a
// time: the builder's specs are many times the size of the schema they
// are built from, and a list may hold hundreds of large CRDs.
func eachCRDSpec(crds *crdIndex, gvs map[schema.GroupVersion]bool, v3 func(schema.GroupVersion, *spec3.OpenAPI), v2 func(*spec.Swagger)) []error {
	if crds == nil {
		return nil
	}
	var problems []error
	all := crds.infos()
	sort.Slice(all, func(i, j int) bool { return all[i].crd.Name < all[j].crd.Name })
	for _, info := range all {
		if !established(info.crd) {
			continue
		}
		internal, err := decodeCRD(info.raw)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err == nil {
			err = apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(internal, crd, nil)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: CRD %s: %w", contract.CRDListPath, info.crd.Name, err))
			continue
		}
		merged := &spec.Swagger{}
		for _, v := range crd.Spec.Versions {
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
			if !v.Served || !gvs[gv] {
				continue
			}
			opts := builder.Options{IncludeSelectableFields: true} // CustomResourceFieldSelectors is GA
			spec3, err := builder.BuildOpenAPIV3(crd, v.Name, opts)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: CRD %s version %s: %w", contract.OpenAPIV3Path(openAPIPath(gv)), crd.Name, v.Name, err))
				continue
			}
			v3(gv, spec3)
			opts.V2 = true
			spec2, err := builder.BuildOpenAPIV2(crd, v.Name, opts)
			if err == nil {
				// Pruned as the controller does, to merge cleanly with
				// the built-in spec, whose defaults are pruned.
				spec2.Definitions = handler.PruneDefaults(spec2.Definitions)
				merged, err = builder.MergeSpecs(merged, spec2)
			}
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: CRD %s version %s: %w", contract.OpenAPIV2Path(), crd.Name, v.Name, err))
			}
		}
		if merged.Paths != nil {
			v2(merged)
		}
	}
	return problems
}

// v3Merger merges the v3 specs of a group version's CRDs into its
// document as builder.MergeSpecsV3 does (the first spec's version and
// info; schemas of meta/v1 and autoscaling/v1 taken from the first spec
// that has them, any other schema two specs name a conflict; paths from
// the last), keeping each path and schema encoded, not as the builder's
// values.
type v3Merger struct {
	head    *spec3.OpenAPI // the first spec's version and info
	paths   map[string]json.RawMessage
	schemas map[string]json.RawMessage
	err     error
}

// v3SharedSchemas are the prefixes of the schemas every CRD's spec holds
// (the builder's metadataGV and autoscalingGV).
var v3SharedSchemas = []string{"io.k8s.apimachinery.pkg.apis.meta.v1", "io.k8s.api.autoscaling.v1"}

func (m *v3Merger) add(s *spec3.OpenAPI) {
	if m.head == nil {
		m.head = &spec3.OpenAPI{Version: s.Version, Info: s.Info}
	}
	if m.err != nil || s.Paths == nil {
		return
	}
	paths, schemas, err := encodeV3(s)
	if err != nil {
		m.err = err
		return
	}
	if m.paths == nil {
		m.paths = map[string]json.RawMessage{}
	}
	for k, v := range schemas {
		if m.schemas == nil {
			m.schemas = map[string]json.RawMessage{}
		}
		if _, exists := m.schemas[k]; exists {
			if slices.ContainsFunc(v3SharedSchemas, func(p string) bool { return strings.HasPrefix(k, p) }) {
				continue
			}
			m.err = fmt.Errorf("OpenAPI V3 merge schema conflict on %s", k)
			return
		}
		m.schemas[k] = v
	}
	maps.Copy(m.paths, paths)
}

// encodeV3 is a spec's paths and schemas, each encoded as it is within the
// document the spec encodes to.
func encodeV3(s *spec3.OpenAPI) (paths, schemas map[string]json.RawMessage, err error) {
	doc, err := json.Marshal(s)
	if err != nil {
		return nil, nil, err
	}
	members, err := rawjson.ParseObject(doc)
	if err != nil {
		return nil, nil, err
	}
	if err := unmarshalIfAny(members.Get("paths"), &paths); err != nil {
		return nil, nil, err
	}
	if c := members.Get("components"); c != nil {
		err = unmarshalIfAny(rawjson.Get(c, "schemas"), &schemas)
	}
	return paths, schemas, err
}

func unmarshalIfAny(data []byte, v any) error {
	if data == nil {
		return nil
	}
	return json.Unmarshal(data, v)
}

// document is the merged document, nil when no CRD served the group
// version. Its frame (member order and names) is what encoding the
// builder's merged spec writes: encoded from a spec whose path and schema
// stand in for the real ones, which are then written in.
func (m *v3Merger) document() ([]byte, error) {
	if m.err != nil || m.head == nil {
		return nil, m.err
	}
	const standIn = "bundlectl-stand-in"
	frame := *m.head
	if m.paths != nil {
		frame.Paths = &spec3.Paths{Paths: map[string]*spec3.Path{standIn: {}}}
	}
	if m.schemas != nil {
		frame.Components = &spec3.Components{Schemas: map[string]*spec.Schema{standIn: {}}}
	}
	data, err := json.Marshal(&frame)
	if err != nil {
		return nil, err
	}
	doc, err := rawjson.ParseObject(data)
	if err != nil {
		return nil, err
	}
	if m.paths != nil {
		doc = doc.With("paths", rawjson.SortedObject(m.paths).Marshal())
	}
	if m.schemas != nil {
		components, err := rawjson.ParseObject(doc.Get("components"))
		if err != nil {
			return nil, err
		}
		doc = doc.With("components", components.With("schemas", rawjson.SortedObject(m.schemas).Marshal()).Marshal())
	}
	return doc.Marshal(), nil
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

// join writes the document back, members in their order. A map the
// document did not have and the CRDs added to (parameters: releases
// before 1.22 wrote none, the pinned builder refers to some) is written
// where encoding a spec.Swagger puts it, after the definitions.
func (s *swaggerParts) join() []byte {
	members := append(rawjson.Object(nil), s.members...)
	if len(s.parameters) > 0 && members.Get("parameters") == nil {
		at := len(members)
		for i, m := range members {
			if m.Name == "definitions" || m.Name == "paths" && at == len(members) {
				at = i + 1
			}
		}
		members = slices.Insert(members, at, rawjson.Field{Name: "parameters"})
	}
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

// definitionRefs adds the definitions a JSON value refers to.
func definitionRefs(value []byte, into map[string]bool) {
	for _, name := range refs(value, definitionRef) {
		into[name] = true
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

// v2Merger merges the CRDs' v2 specs into the built-in document as the
// server does: builder.MergeSpecs with the built-in spec as the static
// spec (the CRDs' specs joined, the last of a name winning; then
// definitions equal but for their group version kinds shared, with the
// kinds merged; others renamed; paths the built-ins have win).
//
// A list of large CRDs decodes to many times its size, so each CRD's spec
// is encoded as soon as it is built (add) and the merge runs on stand-ins:
// decoded values only where the built-in spec has the same name, and
// elsewhere values that hold nothing but the references of the encoded
// ones, so that the merge's pruning and renaming see what they would see.
// What the merge renamed in a stand-in is renamed in its bytes. Only what
// the CRDs add or change is encoded anew: the rest keeps the document's
// bytes.
type v2Merger struct {
	doc []byte
	// The CRDs' specs joined, encoded as the aggregator, which reads the
	// apiextensions server's spec as JSON, writes them.
	paths, definitions, parameters map[string]json.RawMessage
}

func newV2Merger(doc []byte) *v2Merger {
	return &v2Merger{doc: doc, paths: map[string]json.RawMessage{}, definitions: map[string]json.RawMessage{}, parameters: map[string]json.RawMessage{}}
}

// add joins one CRD's spec (builder.MergeSpecs' mergeSpec).
func (m *v2Merger) add(crdSpec *spec.Swagger) error {
	for k, v := range crdSpec.Definitions {
		if err := encodeInto(m.definitions, k, v); err != nil {
			return fmt.Errorf("definition %s: %w", k, err)
		}
	}
	for k, v := range crdSpec.Parameters {
		if err := encodeInto(m.parameters, k, v); err != nil {
			return fmt.Errorf("parameter %s: %w", k, err)
		}
	}
	for k, v := range crdSpec.Paths.Paths {
		if err := encodeInto(m.paths, k, v); err != nil {
			return fmt.Errorf("path %s: %w", k, err)
		}
	}
	return nil
}

// encodeInto sets into[k] to v written as decoded from JSON (extensions
// as maps, keys in order), not as the builder's Go value.
func encodeInto[T any](into map[string]json.RawMessage, k string, v T) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var back T
	if err := json.Unmarshal(data, &back); err != nil {
		return err
	}
	into[k], err = json.Marshal(back)
	return err
}

const (
	definitionRef = "#/definitions/"
	parameterRef  = "#/parameters/"
)

// document is the built-in document with the CRDs merged in.
func (m *v2Merger) document() ([]byte, error) {
	if len(m.paths) == 0 {
		return m.doc, nil
	}
	s, err := splitSwagger(m.doc)
	if err != nil {
		return nil, err
	}
	// The static spec: every name, so that conflicts and renames are the
	// server's, but decoded only where the CRDs use the same name (or a
	// rename of it: name_v2, ...).
	static := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Paths:       &spec.Paths{Paths: make(map[string]spec.PathItem, len(s.paths))},
		Definitions: make(spec.Definitions, len(s.definitions)),
		Parameters:  make(map[string]spec.Parameter, len(s.parameters)),
	}}
	for k := range s.paths {
		static.Paths.Paths[k] = spec.PathItem{}
	}
	for k := range s.definitions {
		static.Definitions[k] = spec.Schema{}
	}
	gvksBefore := map[string]any{}
	for k := range m.definitions {
		for i := 1; ; i++ {
			name := k
			if i > 1 {
				name = fmt.Sprintf("%s_v%d", k, i)
			}
			raw, ok := s.definitions[name]
			if !ok {
				break
			}
			var d spec.Schema
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("definition %s: %w", name, err)
			}
			static.Definitions[name] = d
			gvksBefore[name] = d.Extensions[gvkExtension]
		}
	}
	for k, raw := range s.parameters {
		var p spec.Parameter
		if _, used := m.parameters[k]; used {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("parameter %s: %w", k, err)
			}
		}
		static.Parameters[k] = p
	}

	// The CRDs' spec: decoded where the static spec has the name, stand-ins
	// elsewhere; parameters are few and small.
	source := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Paths:       &spec.Paths{Paths: make(map[string]spec.PathItem, len(m.paths))},
		Definitions: make(spec.Definitions, len(m.definitions)),
		Parameters:  make(map[string]spec.Parameter, len(m.parameters)),
	}}
	standIns := map[string]spec.Schema{}
	for k, raw := range m.definitions {
		if _, ok := s.definitions[k]; ok {
			var d spec.Schema
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, fmt.Errorf("definition %s: %w", k, err)
			}
			source.Definitions[k] = d
			continue
		}
		standIns[k] = schemaStandIn(raw)
		source.Definitions[k] = standIns[k]
	}
	for k, raw := range m.parameters {
		var p spec.Parameter
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("parameter %s: %w", k, err)
		}
		source.Parameters[k] = p
	}
	pathStandIns := map[string]spec.PathItem{}
	for k, raw := range m.paths {
		pathStandIns[k] = pathStandIn(raw)
		source.Paths.Paths[k] = pathStandIns[k]
	}

	merged, err := builder.MergeSpecs(static, source)
	if err != nil {
		return nil, err
	}

	// What the merge renamed, read from the stand-ins' references.
	renames := map[string]string{}
	for k, before := range standIns {
		if after, ok := merged.Definitions[k]; ok {
			noteRenames(schemaRefs(before), schemaRefs(after), renames)
		}
	}
	for k, before := range pathStandIns {
		if after, ok := merged.Paths.Paths[k]; ok {
			noteRenames(pathRefs(before), pathRefs(after), renames)
		}
	}
	for k := range merged.Paths.Paths {
		if _, ok := s.paths[k]; !ok {
			s.paths[k] = renamed(m.paths[k], renames)
		}
	}
	for k, v := range merged.Parameters {
		if _, ok := s.parameters[k]; !ok {
			if s.parameters[k], err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
	}
	for k, v := range merged.Definitions {
		raw, ok := s.definitions[k]
		_, standIn := standIns[k]
		before, decoded := gvksBefore[k]
		switch {
		case standIn:
			s.definitions[k] = renamed(m.definitions[k], renames)
		case !ok:
			s.definitions[k], err = json.Marshal(v)
		case decoded && !reflect.DeepEqual(before, v.Extensions[gvkExtension]):
			s.definitions[k], err = withGVKs(raw, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return s.join(), nil
}

// refs are the references of a JSON value to prefix (definitionRef or
// parameterRef), each once, in order. In JSON text `"$ref":"#/...` can
// only be a reference: quotes inside strings are escaped.
func refs(value []byte, prefix string) []string {
	key := []byte(`"$ref":"` + prefix)
	seen := map[string]bool{}
	var out []string
	for {
		i := bytes.Index(value, key)
		if i < 0 {
			slices.Sort(out)
			return out
		}
		value = value[i+len(key):]
		end := bytes.IndexByte(value, '"')
		if end < 0 {
			return out
		}
		if name := string(value[:end]); !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
		value = value[end:]
	}
}

func refTo(prefix, name string) spec.Ref { return spec.MustCreateRef(prefix + name) }

// schemaStandIn is a definition that holds only the definitions the
// encoded one refers to.
func schemaStandIn(raw []byte) spec.Schema {
	var out spec.Schema
	for _, name := range refs(raw, definitionRef) {
		out.AllOf = append(out.AllOf, spec.Schema{SchemaProps: spec.SchemaProps{Ref: refTo(definitionRef, name)}})
	}
	return out
}

func schemaRefs(s spec.Schema) []string {
	var out []string
	for _, r := range s.AllOf {
		out = append(out, r.Ref.String())
	}
	return out
}

// pathStandIn is a path that holds only the parameters and definitions
// the encoded one refers to.
func pathStandIn(raw []byte) spec.PathItem {
	var out spec.PathItem
	for _, name := range refs(raw, parameterRef) {
		out.Parameters = append(out.Parameters, spec.Parameter{Refable: spec.Refable{Ref: refTo(parameterRef, name)}})
	}
	if defs := schemaStandIn(raw); defs.AllOf != nil {
		out.Parameters = append(out.Parameters, spec.Parameter{ParamProps: spec.ParamProps{Schema: &defs}})
	}
	return out
}

func pathRefs(p spec.PathItem) []string {
	var out []string
	for _, param := range p.Parameters {
		if param.Schema != nil {
			out = append(out, schemaRefs(*param.Schema)...)
		} else {
			out = append(out, param.Ref.String())
		}
	}
	return out
}

// noteRenames records where a stand-in's references changed.
func noteRenames(before, after []string, into map[string]string) {
	for i := range min(len(before), len(after)) {
		if before[i] != after[i] {
			into[before[i]] = after[i]
		}
	}
}

// renamed is an encoded value with its references renamed.
func renamed(raw []byte, renames map[string]string) []byte {
	for from, to := range renames {
		f, _ := json.Marshal(from)
		t, _ := json.Marshal(to)
		ref := append([]byte(`"$ref":`), f...)
		if bytes.Contains(raw, ref) {
			raw = bytes.ReplaceAll(raw, ref, append([]byte(`"$ref":`), t...))
		}
	}
	return raw
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
