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

	types []itemType // apiVersion and kind of each item, as it says
}

type itemType struct{ apiVersion, kind, namespace, name string }

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

// DecodeList reads every legacy shape of a resource list. The file is
// validated once and then split without decoding (see jsonscan.go); each
// item keeps the bytes it was stored with.
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
	if !ValidJSON(data) {
		return nil, invalidJSON(data)
	}
	switch data[0] {
	case '[':
		l := &List{Shape: ShapeArray}
		items, _ := elements(data, 0)
		if err := l.setItems(items); err != nil {
			return nil, err
		}
		return l, nil
	case '{':
		return decodeObject(data)
	case 'n':
		return &List{Shape: ShapeArray}, nil // null
	}
	return nil, fmt.Errorf("top-level JSON value is not an array or object: %w", ErrNotAList)
}

// invalidJSON says where JSON that ValidJSON refused goes wrong.
func invalidJSON(data []byte) error {
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return errors.New("invalid JSON")
}

func decodeObject(data []byte) (*List, error) {
	top := scanList(data)
	items := top.items
	if items == nil {
		if top.metadata == nil || string(top.metadata) == "null" {
			return nil, fmt.Errorf("object has neither items nor metadata: %w", ErrNotAList)
		}
		top.raw = append(json.RawMessage(nil), data...)
		l := &List{Shape: ShapeObject}
		if err := l.setItems([]item{top.item}); err != nil {
			return nil, err
		}
		return l, nil
	}
	l := &List{APIVersion: stringValue(top.apiVersion), Kind: stringValue(top.kind), Shape: ShapeTypedList}
	if l.Kind == "" {
		l.Shape = ShapeUntypedList
	}
	l.ResourceVersion = stringValue(member(top.metadata, "resourceVersion"))
	switch items[0] {
	case 'n': // "items": null
		return l, nil
	case '[':
		return l, l.setItems(top.elements)
	}
	return nil, fmt.Errorf("items is not an array: %w", ErrNotAList)
}

// setItems keeps the items, refusing those that are not objects with
// metadata.name: a list with one such item cannot be served or tabled
// faithfully, so it is reported rather than half-read.
func (l *List) setItems(items []item) error {
	l.Items = make([]json.RawMessage, len(items))
	l.types = make([]itemType, len(items))
	for i, it := range items {
		if it.raw[0] != '{' {
			return fmt.Errorf("item %d is not an object: %w", i, ErrNotAList)
		}
		t := itemType{apiVersion: stringValue(it.apiVersion), kind: stringValue(it.kind),
			namespace: stringValue(member(it.metadata, "namespace")), name: stringValue(member(it.metadata, "name"))}
		if t.name == "" {
			return fmt.Errorf("item %d has no metadata.name: %w", i, ErrNotAList)
		}
		l.Items[i], l.types[i] = it.raw, t
	}
	return nil
}

// ErrWrongKind is wrapped by the kind checks: a file holds objects of
// another kind than its path says (a DeploymentList in nodes.json, a Pod
// among Nodes). Served or tabled as what the path says, they would be
// wrong, so readers report the file instead.
var ErrWrongKind = errors.New("objects of the wrong kind for the path")

// KindCheck checks, one item at a time, that a list holds the kind its
// path says; where the path does not say (generic and custom resource
// folders), that its items agree.
type KindCheck struct {
	want     string
	fromPath bool
}

// NewKindCheck starts the check of a list classified as c whose own kind
// is listKind ("" when the file does not say). A typed list of another
// kind is refused at once; "List" says nothing.
func NewKindCheck(c Classification, listKind string) (*KindCheck, error) {
	k := &KindCheck{want: c.Kind, fromPath: c.Kind != ""}
	if base, ok := strings.CutSuffix(listKind, "List"); ok && k.fromPath && base != "" && base != c.Kind {
		return nil, fmt.Errorf("the list is a %s, but its path holds %s objects: %w", listKind, c.Kind, ErrWrongKind)
	}
	return k, nil
}

// Item checks the kind item i says it has ("" when it does not say).
func (k *KindCheck) Item(i int, kind string) error {
	switch {
	case kind == "" || kind == k.want:
		return nil
	case k.want == "":
		k.want = kind
		return nil
	case k.fromPath:
		return fmt.Errorf("item %d is a %s, but its path holds %s objects: %w", i, kind, k.want, ErrWrongKind)
	}
	return fmt.Errorf("item %d is a %s, but the items before it are %s objects: %w", i, kind, k.want, ErrWrongKind)
}

// CheckKinds runs a KindCheck over a decoded list.
func CheckKinds(c Classification, l *List) error {
	k, err := NewKindCheck(c, l.Kind)
	if err != nil {
		return err
	}
	for i := range l.Items {
		_, kind := l.ItemType(i)
		if err := k.Item(i, kind); err != nil {
			return err
		}
	}
	return nil
}

// ItemMeta reads an item's type and identity without decoding the rest.
func ItemMeta(item json.RawMessage) (ItemTypeMeta, error) {
	var tm ItemTypeMeta
	item = bytes.TrimSpace(item)
	if len(item) == 0 || item[0] != '{' || !ValidJSON(item) {
		return tm, fmt.Errorf("item is not a JSON object: %w", ErrNotAList)
	}
	tm.APIVersion, tm.Kind = stringValue(member(item, "apiVersion")), stringValue(member(item, "kind"))
	meta := member(item, "metadata")
	tm.Metadata.Name, tm.Metadata.Namespace = stringValue(member(meta, "name")), stringValue(member(meta, "namespace"))
	return tm, nil
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

// ItemKey is item i's namespace ("" for cluster-scoped objects) and name.
func (l *List) ItemKey(i int) (namespace, name string) {
	if i < len(l.types) {
		return l.types[i].namespace, l.types[i].name
	}
	tm, _ := ItemMeta(l.Items[i]) // a List not made by DecodeList
	return tm.Metadata.Namespace, tm.Metadata.Name
}

// ItemType is the apiVersion and kind item i says it has, "" where it
// does not say.
func (l *List) ItemType(i int) (apiVersion, kind string) {
	if i < len(l.types) {
		return l.types[i].apiVersion, l.types[i].kind
	}
	tm, _ := ItemMeta(l.Items[i]) // a List not made by DecodeList
	return tm.APIVersion, tm.Kind
}
