package transform

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

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
