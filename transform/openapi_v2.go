package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

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
	static, gvksBefore, err := m.staticSpec(s)
	if err != nil {
		return nil, err
	}
	source, standIns, pathStandIns, err := m.sourceSpec(s)
	if err != nil {
		return nil, err
	}
	merged, err := builder.MergeSpecs(static, source)
	if err != nil {
		return nil, err
	}
	if err := m.writeMerged(s, merged, standIns, pathStandIns, gvksBefore); err != nil {
		return nil, err
	}
	return s.join(), nil
}

// staticSpec is the built-in document as the merge's static spec: every
// name, so that conflicts and renames are the server's, but decoded only
// where the CRDs use the same name (or a rename of it: name_v2, ...).
// gvksBefore are the group version kinds of the definitions decoded.
func (m *v2Merger) staticSpec(s *swaggerParts) (static *spec.Swagger, gvksBefore map[string]any, err error) {
	static = &spec.Swagger{SwaggerProps: spec.SwaggerProps{
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
	gvksBefore = map[string]any{}
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
				return nil, nil, fmt.Errorf("definition %s: %w", name, err)
			}
			static.Definitions[name] = d
			gvksBefore[name] = d.Extensions[gvkExtension]
		}
	}
	for k, raw := range s.parameters {
		var p spec.Parameter
		if _, used := m.parameters[k]; used {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, nil, fmt.Errorf("parameter %s: %w", k, err)
			}
		}
		static.Parameters[k] = p
	}
	return static, gvksBefore, nil
}

// sourceSpec is the CRDs' spec: decoded where the static spec has the
// name, stand-ins elsewhere (standIns, pathStandIns); parameters are few
// and small.
func (m *v2Merger) sourceSpec(s *swaggerParts) (source *spec.Swagger, standIns map[string]spec.Schema, pathStandIns map[string]spec.PathItem, err error) {
	source = &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Paths:       &spec.Paths{Paths: make(map[string]spec.PathItem, len(m.paths))},
		Definitions: make(spec.Definitions, len(m.definitions)),
		Parameters:  make(map[string]spec.Parameter, len(m.parameters)),
	}}
	standIns = map[string]spec.Schema{}
	for k, raw := range m.definitions {
		if _, ok := s.definitions[k]; ok {
			var d spec.Schema
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, nil, nil, fmt.Errorf("definition %s: %w", k, err)
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
			return nil, nil, nil, fmt.Errorf("parameter %s: %w", k, err)
		}
		source.Parameters[k] = p
	}
	pathStandIns = map[string]spec.PathItem{}
	for k, raw := range m.paths {
		pathStandIns[k] = pathStandIn(raw)
		source.Paths.Paths[k] = pathStandIns[k]
	}
	return source, standIns, pathStandIns, nil
}

// writeMerged writes into s what the merge added or changed: what it
// renamed is read from the stand-ins' references and renamed in their
// bytes; the rest keeps the document's bytes.
func (m *v2Merger) writeMerged(s *swaggerParts, merged *spec.Swagger, standIns map[string]spec.Schema, pathStandIns map[string]spec.PathItem, gvksBefore map[string]any) error {
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
	var err error
	for k, v := range merged.Parameters {
		if _, ok := s.parameters[k]; !ok {
			if s.parameters[k], err = json.Marshal(v); err != nil {
				return err
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
			return err
		}
	}
	return nil
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
