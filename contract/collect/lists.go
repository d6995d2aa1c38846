package collect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// list is a LIST response, a raw list or a Table, kept as the server sent
// it: its members in order and its elements (items or rows) as raw bytes.
type list struct {
	body     []byte // exactly as received
	obj      rawjson.Object
	elemsKey string // "items" or "rows"
	elems    []json.RawMessage
	rv       string
	edited   bool // elems differ from body's (masked secrets)
	// empty is how the server encodes no elements ("[]" or, for tables of
	// the default convertor, "null"), for namespaces split off empty.
	empty json.RawMessage
}

func parseList(body []byte, elemsKey string) (*list, error) {
	obj, err := rawjson.ParseObject(body)
	if err != nil {
		return nil, err
	}
	l := &list{body: body, obj: obj, elemsKey: elemsKey, empty: json.RawMessage("[]")}
	if raw := obj.Get(elemsKey); string(raw) == "null" {
		l.empty = raw
	} else if raw != nil {
		if err := json.Unmarshal(raw, &l.elems); err != nil {
			return nil, fmt.Errorf("%s: %w", elemsKey, err)
		}
	}
	var meta struct {
		ResourceVersion string `json:"resourceVersion"`
	}
	if raw := obj.Get("metadata"); raw != nil {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	}
	l.rv = meta.ResourceVersion
	return l, nil
}

// kind is the response's kind ("Table", "PodList").
func (l *list) kind() string {
	var k string
	json.Unmarshal(l.obj.Get("kind"), &k)
	return k
}

// edit replaces every element with fn's result.
func (l *list) edit(fn func(json.RawMessage) (json.RawMessage, error)) error {
	for i, e := range l.elems {
		out, err := fn(e)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", l.elemsKey, i, err)
		}
		l.elems[i] = out
	}
	l.edited = true
	return nil
}

// whole is the complete response: the bytes received unless elements were
// edited.
func (l *list) whole() []byte {
	if !l.edited {
		return l.body
	}
	return l.with(l.elems)
}

// with is the response holding only elems, every other member as sent.
func (l *list) with(elems []json.RawMessage) []byte {
	value := l.empty
	if len(elems) > 0 {
		value = rawjson.Array(elems)
	}
	out := l.obj.With(l.elemsKey, value).Marshal()
	return append(out, trailingSpace(l.body)...)
}

func trailingSpace(b []byte) []byte {
	return b[len(bytes.TrimRight(b, " \t\r\n")):]
}

// elemNamespace reads metadata.namespace of an item, or of a row's object.
func elemNamespace(elem json.RawMessage, row bool) (string, error) {
	var item struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if !row {
		err := json.Unmarshal(elem, &item)
		return item.Metadata.Namespace, err
	}
	var r struct {
		Object *json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(elem, &r); err != nil || r.Object == nil {
		return "", fmt.Errorf("row has no object to tell its namespace")
	}
	err := json.Unmarshal(*r.Object, &item)
	return item.Metadata.Namespace, err
}

// namespaces lists the namespaces of the elements, sorted.
func (l *list) namespaces() ([]string, error) {
	set := map[string]bool{}
	for _, e := range l.elems {
		ns, err := elemNamespace(e, l.elemsKey == "rows")
		if err != nil {
			return nil, err
		}
		set[ns] = true
	}
	return sortedKeys(set), nil
}

// split cuts an all-namespaces response into one response per namespace
// of nss (each keeping the list's metadata, so its resourceVersion), with
// an empty one for a namespace that has no elements.
func (l *list) split(nss []string) (map[string][]byte, error) {
	byNS := map[string][]json.RawMessage{}
	for _, e := range l.elems {
		ns, err := elemNamespace(e, l.elemsKey == "rows")
		if err != nil {
			return nil, err
		}
		byNS[ns] = append(byNS[ns], e)
	}
	out := make(map[string][]byte, len(nss))
	for _, ns := range nss {
		out[ns] = l.with(byNS[ns])
	}
	return out, nil
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// indent formats a raw list as troubleshoot writes it: two-space indent,
// no trailing newline; the members and values stay as the server sent them.
func indent(body []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(body), "", "  "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
