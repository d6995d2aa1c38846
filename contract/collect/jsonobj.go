package collect

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object whose members keep the server's order and bytes:
// splitting a list or table per namespace, or masking a secret, rewrites
// only the member it must and copies every other byte as the server sent it.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads the top-level members of a JSON object.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		o = append(o, member{key: key, value: value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// get returns a member's value, nil when absent.
func (o object) get(key string) json.RawMessage {
	for _, m := range o {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// with returns a copy of o whose member key has value, in key's place.
func (o object) with(key string, value json.RawMessage) object {
	out := make(object, len(o))
	copy(out, o)
	for i := range out {
		if out[i].key == key {
			out[i].value = value
			return out
		}
	}
	return append(out, member{key: key, value: value})
}

// marshal encodes the object compactly, as the API server does.
func (o object) marshal() []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// joinArray encodes raw elements as a compact JSON array.
func joinArray(elems []json.RawMessage) json.RawMessage {
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
