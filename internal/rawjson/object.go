package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
)

// Object is a JSON object split into its members, which keep their order
// and bytes: rewriting one member (masking a secret, splitting a list per
// namespace, merging an OpenAPI document) copies every other byte as it
// was written.
type Object []Field

// Field is one member of an Object.
type Field struct {
	// Name is the key, decoded.
	Name string
	// Value is the value as written.
	Value json.RawMessage

	rawKey []byte // the key as written, quotes included; nil for a new field
}

// ErrNotObject is returned by ParseObject for valid JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// ParseObject splits the JSON object data into its members.
func ParseObject(data []byte) (Object, error) {
	if err := Check(data); err != nil {
		return nil, err
	}
	if data[skipSpace(data, 0)] != '{' {
		return nil, ErrNotObject
	}
	o := Object{}
	EachMember(data, func(m Member) bool {
		o = append(o, Field{Name: m.Name(), Value: data[m.Start:m.End:m.End], rawKey: data[m.KeyStart : m.KeyStart+len(m.Key)+2]})
		return true
	})
	return o, nil
}

// Get returns the value of the member name, the last one when the key
// occurs more than once (as encoding/json decodes it), or nil.
func (o Object) Get(name string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Name == name {
			return o[i].Value
		}
	}
	return nil
}

// With returns a copy of o whose member name has value: in the place of
// its last occurrence, earlier ones dropped (so that no reader can see
// the old value), or added at the end.
func (o Object) With(name string, value json.RawMessage) Object {
	out := make(Object, 0, len(o)+1)
	last := -1
	for i := range o {
		if o[i].Name == name {
			last = i
		}
	}
	for i, f := range o {
		switch {
		case i == last:
			out = append(out, Field{Name: name, Value: value, rawKey: f.rawKey})
		case f.Name != name:
			out = append(out, f)
		}
	}
	if last < 0 {
		out = append(out, Field{Name: name, Value: value})
	}
	return out
}

// SortedObject is a map as encoding/json writes one: keys in order.
func SortedObject(m map[string]json.RawMessage) Object {
	o := make(Object, 0, len(m))
	for k, v := range m {
		o = append(o, Field{Name: k, Value: v})
	}
	sort.Slice(o, func(i, j int) bool { return o[i].Name < o[j].Name })
	return o
}

// Marshal writes the object compactly: each key as it was written, or
// as encoding/json writes it for a new one, and each value as it is.
func (o Object) Marshal() []byte {
	size := 2
	for _, f := range o {
		size += len(f.Name) + len(f.Value) + 4 // quotes, colon, comma
	}
	var buf bytes.Buffer
	buf.Grow(size) // a merged OpenAPI document is tens of megabytes: no doubling
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		if f.rawKey != nil {
			buf.Write(f.rawKey)
		} else {
			key, _ := json.Marshal(f.Name)
			buf.Write(key)
		}
		buf.WriteByte(':')
		buf.Write(f.Value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// Array writes elements as a compact JSON array.
func Array(elems []json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(e)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}
