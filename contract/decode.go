package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Shape is the JSON shape a list was stored in; troubleshoot has used all of them.
type Shape int

const (
	ShapeTypedList   Shape = iota // {"kind":"PodList","apiVersion":"v1","metadata":{...},"items":[...]}
	ShapeUntypedList              // {"metadata":{...},"items":[...]} (CRD lists before 2025)
	ShapeArray                    // [...] (every file before v0.28.1, and custom resources)
	ShapeObject                   // a single object (namespaces.json with --namespace)
)

var shapeNames = [...]string{"typed list", "untyped list", "array", "single object"}

func (s Shape) String() string { return shapeNames[s] }

// List is a decoded raw list. Items keep the bytes exactly as stored, so a
// writer can copy them and a server can hash or serve them without
// re-encoding.
type List struct {
	Shape Shape
	// APIVersion and Kind of the list itself, when the file says.
	APIVersion, Kind string
	// ResourceVersion of the list, when the file says.
	ResourceVersion string
	Items           []json.RawMessage
}

// ItemTypeMeta is the part of an item that tells its type and identity.
type ItemTypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// ErrNotAList is wrapped by DecodeList when a file is valid JSON but no list
// shape fits (a number, a string, an object without items or metadata).
var ErrNotAList = errors.New("not a list of Kubernetes objects")

// DecodeList reads every legacy shape of a resource list.
func DecodeList(data []byte, format Format) (*List, error) {
	if format == FormatYAML {
		j, err := yamlToJSON(data)
		if err != nil {
			return nil, err
		}
		data = j
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("empty file: %w", ErrNotAList)
	}
	switch data[0] {
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		if err := checkItems(items); err != nil {
			return nil, err
		}
		return &List{Shape: ShapeArray, Items: items}, nil
	case '{':
		return decodeObject(data)
	case 'n':
		if string(data) == "null" {
			return &List{Shape: ShapeArray}, nil
		}
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("invalid JSON")
	}
	return nil, fmt.Errorf("top-level JSON value is not an array or object: %w", ErrNotAList)
}

func decodeObject(data []byte) (*List, error) {
	var top struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		// RawMessage (not a pointer) so that "items": null is seen as
		// present: encoding/json hands null to UnmarshalJSON.
		Metadata json.RawMessage `json:"metadata"`
		Items    json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if top.Items == nil {
		if top.Metadata == nil || string(top.Metadata) == "null" {
			return nil, fmt.Errorf("object has neither items nor metadata: %w", ErrNotAList)
		}
		if err := checkItems([]json.RawMessage{data}); err != nil {
			return nil, err
		}
		return &List{Shape: ShapeObject, Items: []json.RawMessage{append(json.RawMessage(nil), data...)}}, nil
	}
	l := &List{APIVersion: top.APIVersion, Kind: top.Kind, Shape: ShapeTypedList}
	if top.Kind == "" {
		l.Shape = ShapeUntypedList
	}
	if top.Metadata != nil {
		var lm struct {
			ResourceVersion string `json:"resourceVersion"`
		}
		if err := json.Unmarshal(top.Metadata, &lm); err != nil {
			return nil, fmt.Errorf("list metadata: %w", err)
		}
		l.ResourceVersion = lm.ResourceVersion
	}
	if string(top.Items) != "null" {
		if err := json.Unmarshal(top.Items, &l.Items); err != nil {
			return nil, fmt.Errorf("items is not an array: %w", err)
		}
	}
	if err := checkItems(l.Items); err != nil {
		return nil, err
	}
	return l, nil
}

// checkItems refuses items that are not objects with metadata.name: a list
// with one such item cannot be served or tabled faithfully, so it is
// reported rather than half-read.
func checkItems(items []json.RawMessage) error {
	for i, it := range items {
		var tm ItemTypeMeta
		if err := json.Unmarshal(it, &tm); err != nil {
			return fmt.Errorf("item %d is not an object: %w", i, ErrNotAList)
		}
		if tm.Metadata.Name == "" {
			return fmt.Errorf("item %d has no metadata.name: %w", i, ErrNotAList)
		}
	}
	return nil
}

// ItemMeta decodes an item's type and identity.
func ItemMeta(item json.RawMessage) (ItemTypeMeta, error) {
	var tm ItemTypeMeta
	err := json.Unmarshal(item, &tm)
	return tm, err
}

// hiddenValue matches a YAML scalar that is exactly troubleshoot's
// redaction mask. Unquoted, `***HIDDEN***` is read as a YAML alias and the
// whole file fails to parse (troubleshoot issue #1218), so it is quoted
// before a second attempt.
// The mask may be followed by what the redactor left (an IP's port:
// `***HIDDEN***:10000`), so the whole plain scalar is quoted.
var hiddenValue = regexp.MustCompile(`(?m)(:[ \t]+|-[ \t]+)(\*\*\*HIDDEN\*\*\*[^\n]*?)[ \t]*$`)

func yamlToJSON(data []byte) ([]byte, error) {
	j, err := yaml.YAMLToJSON(data)
	if err == nil {
		return j, nil
	}
	if !strings.Contains(string(data), "***HIDDEN***") {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	repaired := hiddenValue.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := hiddenValue.FindSubmatch(m)
		quoted := strings.ReplaceAll(string(sub[2]), "'", "''")
		return []byte(string(sub[1]) + "'" + quoted + "'")
	})
	j, err2 := yaml.YAMLToJSON(repaired)
	if err2 != nil {
		return nil, fmt.Errorf("invalid YAML (also after quoting ***HIDDEN*** redactions): %w", err)
	}
	return j, nil
}
