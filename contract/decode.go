package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/bundlectl/bundlectl/internal/rawjson"
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
	// NoItems is set for an empty list written without items: a list
	// type whose items are omitempty (1.26's admissionregistration
	// v1alpha1 lists), which a server serving it writes so when empty.
	NoItems bool

	// What each item says of its type and identity, read in the pass
	// that splits it and kept compact, since a list can hold millions
	// of small items: types indexes typeNames, the distinct types in
	// the order they first occur, and keys, every item's storage key
	// one after the other.
	types     []itemType
	typeNames []typeName
	keys      string
	// n counts the items, kept or not (ScanList keeps none).
	n int
	// duplicates counts the members readers use that occur more than
	// once; duplicateKeys names the first few (DuplicateKeys).
	duplicates    int
	duplicateKeys []string
}

// itemType is an item's type, an index in typeNames, and its storage key,
// keys[start:end]: namespace/name, whose slash is at sep, or the name
// alone, sep == start, when it has no namespace.
type itemType struct{ typ, start, sep, end uint32 }

// typeName is an apiVersion and kind pair some item says it has, and the
// index of the first that does.
type typeName struct {
	apiVersion, kind string
	first            int
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

// DecodeList reads every legacy shape of a resource list. The file is
// validated as it is split, in one pass, without decoding
// (internal/rawjson); each item keeps the bytes it was stored with. A
// member that occurs twice is read as encoding/json reads it, the last
// one, and recorded (see DuplicateKeys).
func DecodeList(data []byte, format Format) (*List, error) {
	return decodeList(data, format, &itemSink{keepAll: true})
}

// ScanList reads a list as DecodeList does, but keeps only the items
// whose name keep accepts (none when keep is nil): Items and the item
// methods cover those, Len counts them all. A reader that counts and
// checks the items of a list holds its file and nothing per item.
func ScanList(data []byte, format Format, keep func(name string) bool) (*List, error) {
	return decodeList(data, format, &itemSink{keep: keep})
}

func decodeList(data []byte, format Format, s *itemSink) (*List, error) {
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
		l := &List{Shape: ShapeArray}
		s.start(l)
		if end := l.elements(data, 0, s); end != len(data) {
			return nil, invalidJSON(data)
		}
		if err := s.finish(); err != nil {
			return nil, err
		}
		return l, nil
	case '{':
		return decodeObject(data, s)
	}
	if err := rawjson.Check(data); err != nil {
		return nil, err
	}
	if data[0] == 'n' {
		return &List{Shape: ShapeArray}, nil // null
	}
	return nil, fmt.Errorf("top-level JSON value is not an array or object: %w", ErrNotAList)
}

// invalidJSON is the error of a file the scan found invalid: where it
// goes wrong, in encoding/json's words (rawjson.Check).
func invalidJSON(data []byte) error {
	if err := rawjson.Check(data); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// item is one element of a list: its bytes and the members a reader of
// the list needs, found in the same pass that finds where it ends.
type item struct {
	raw                        json.RawMessage
	apiVersion, kind, metadata []byte
	name, namespace            []byte // of the metadata
}

func decodeObject(data []byte, s *itemSink) (*List, error) {
	l := &List{}
	var top item
	var items []byte
	var seen keySet
	// The items are split as they are found, in the pass that finds
	// where they end: each byte of a list of hundreds of megabytes is
	// looked at once. Of two items members, the last is read.
	split := func(m rawjson.Member) int {
		if !m.Is("items") {
			return -1
		}
		s.start(l)
		if data[m.Start] != '[' {
			return -1
		}
		end := l.elements(data[m.Start:], 1, s)
		if end < 0 {
			return -1
		}
		return m.Start + end
	}
	end := rawjson.EachMemberReadingValid(data, split, func(m rawjson.Member) bool {
		v := data[m.Start:m.End]
		name := keyOf(m, "items", "apiVersion", "kind", "metadata")
		switch name {
		case "":
			return true
		case "items":
			items = v
		default:
			top.set(name, v)
		}
		l.note(&seen, name, "", -1, "")
		return true
	})
	if end != len(data) {
		return nil, invalidJSON(data)
	}
	if items == nil && isEmptyList(&top) {
		// A list type whose items are omitempty (1.26's
		// admissionregistration.k8s.io/v1alpha1 lists, for one): the
		// server wrote an empty list without them.
		items, l.NoItems = []byte("null"), true
	}
	if items == nil {
		if top.metadata == nil || string(top.metadata) == "null" {
			return nil, fmt.Errorf("object has neither items nor metadata: %w", ErrNotAList)
		}
		top.raw = append(json.RawMessage(nil), data...)
		l.Shape = ShapeObject
		l.readMetadata(&top, "", -1)
		s.start(l)
		s.add(&top)
		if err := s.finish(); err != nil {
			return nil, err
		}
		return l, nil
	}
	l.APIVersion, l.Kind, l.Shape = rawjson.String(top.apiVersion), rawjson.String(top.kind), ShapeTypedList
	if l.Kind == "" {
		l.Shape = ShapeUntypedList
	}
	seen = 0
	rawjson.EachMember(top.metadata, func(m rawjson.Member) bool {
		if m.Is("resourceVersion") {
			l.ResourceVersion = rawjson.String(top.metadata[m.Start:m.End])
			l.note(&seen, "resourceVersion", "metadata", -1, "")
		}
		return true
	})
	switch items[0] {
	case 'n': // "items": null
		return l, nil
	case '[':
		return l, s.finish()
	}
	return nil, fmt.Errorf("items is not an array: %w", ErrNotAList)
}

// isEmptyList says whether an object without items is a list: its kind
// ends in "List" and its metadata (a ListMeta) names nothing.
func isEmptyList(top *item) bool {
	if !strings.HasSuffix(rawjson.String(top.kind), "List") || rawjson.String(top.apiVersion) == "" {
		return false
	}
	var named bool
	rawjson.EachMember(top.metadata, func(m rawjson.Member) bool {
		named = named || m.Is("name")
		return !named
	})
	return !named
}

// keyOf is the one of names that the member's key is, or "".
func keyOf(m rawjson.Member, names ...string) string {
	for _, n := range names {
		if m.Is(n) {
			return n
		}
	}
	return ""
}

func (it *item) set(name string, v []byte) {
	switch name {
	case "apiVersion":
		it.apiVersion = v
	case "kind":
		it.kind = v
	case "metadata":
		it.metadata = v
	case "name":
		it.name = v
	case "namespace":
		it.namespace = v
	}
}

// elements splits the JSON array that starts arr into its items, reading
// the members each needs, and hands them to s; it validates the array in
// the same pass, and returns the index just past it, or -1 when it is not
// valid. arr starts with the list's items when the list is an object
// (depth 1, inside it), and is the whole file otherwise (depth 0).
func (l *List) elements(arr []byte, depth int, s *itemSink) int {
	path := "items"
	if l.Shape == ShapeArray {
		path = ""
	}
	return rawjson.EachElementMembersValid(arr, depth, func(e []byte, members []rawjson.Member) {
		it := item{raw: json.RawMessage(e)}
		var seen keySet
		for _, m := range members {
			if name := keyOf(m, "apiVersion", "kind", "metadata"); name != "" {
				it.set(name, e[m.Start:m.End])
				l.note(&seen, name, path, l.n, "")
			}
		}
		l.readMetadata(&it, path, l.n)
		s.add(&it)
	})
}

// readMetadata reads the name and namespace of an item's metadata.
func (l *List) readMetadata(it *item, path string, index int) {
	var seen keySet
	rawjson.EachMember(it.metadata, func(m rawjson.Member) bool {
		if name := keyOf(m, "name", "namespace"); name != "" {
			it.set(name, it.metadata[m.Start:m.End])
			l.note(&seen, name, path, index, "metadata")
		}
		return true
	})
}

// keySet holds the keys of one object seen so far, of those readers use.
type keySet uint8

var keyBits = map[string]keySet{"items": 1, "apiVersion": 2, "kind": 4, "metadata": 8, "name": 16, "namespace": 32, "resourceVersion": 64}

// maxDuplicates bounds the duplicate keys a List names: a hostile file
// can repeat keys in every one of a million items.
const maxDuplicates = 5

// note records the key name of the object at path[index].sub as a
// duplicate when seen has it already (index -1: path.sub).
func (l *List) note(seen *keySet, name, path string, index int, sub string) {
	bit := keyBits[name]
	if *seen&bit == 0 {
		*seen |= bit
		return
	}
	if l.duplicates++; l.duplicates > maxDuplicates {
		return
	}
	where := path
	if index >= 0 {
		where = fmt.Sprintf("%s[%d]", path, index)
	}
	for _, p := range []string{sub, name} {
		if p != "" && where != "" {
			where += "."
		}
		where += p
	}
	l.duplicateKeys = append(l.duplicateKeys, where)
}

// ErrDuplicateKeys is wrapped by List.DuplicateKeys.
var ErrDuplicateKeys = errors.New("duplicate keys")

// DuplicateKeys says which members the readers of the list use (the
// list's apiVersion, kind, metadata.resourceVersion and items; each
// item's apiVersion, kind, metadata.name and metadata.namespace) occur
// more than once, nil when none does. Every reader of the module reads
// the last one, as encoding/json and the API server do, so the objects
// served and tabled agree; but a file written so was not written by a
// Kubernetes client, and readers report it.
func (l *List) DuplicateKeys() error {
	if l.duplicates == 0 {
		return nil
	}
	names := strings.Join(l.duplicateKeys, ", ")
	if more := l.duplicates - len(l.duplicateKeys); more > 0 {
		names += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Errorf("%w %s: the last of each is read, as encoding/json reads it", ErrDuplicateKeys, names)
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

// CheckKinds runs a KindCheck over a decoded list: over the first item of
// each type it holds, which is where the check of every item would fail
// first.
func CheckKinds(c Classification, l *List) error {
	k, err := NewKindCheck(c, l.Kind)
	if err != nil {
		return err
	}
	if l.types == nil && len(l.Items) > 0 {
		for i := range l.Items { // a List not made by DecodeList
			_, kind := l.ItemType(i)
			if err := k.Item(i, kind); err != nil {
				return err
			}
		}
		return nil
	}
	for _, t := range l.typeNames {
		if err := k.Item(t.first, t.kind); err != nil {
			return err
		}
	}
	return nil
}

// ItemMeta reads an item's type and identity without decoding the rest.
func ItemMeta(item json.RawMessage) (ItemTypeMeta, error) {
	var tm ItemTypeMeta
	item = bytes.TrimSpace(item)
	if len(item) == 0 || item[0] != '{' || !rawjson.Valid(item) {
		return tm, fmt.Errorf("item is not a JSON object: %w", ErrNotAList)
	}
	tm.APIVersion, tm.Kind = rawjson.String(rawjson.Get(item, "apiVersion")), rawjson.String(rawjson.Get(item, "kind"))
	meta := rawjson.Get(item, "metadata")
	tm.Metadata.Name, tm.Metadata.Namespace = rawjson.String(rawjson.Get(meta, "name")), rawjson.String(rawjson.Get(meta, "namespace"))
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
