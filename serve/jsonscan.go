package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The index keeps every object as compact JSON bytes and serves slices of
// them. These helpers walk compact JSON (no insignificant whitespace, as
// json.Compact leaves it) without decoding it, so that loading finds the
// metadata of an object and a request never parses JSON at all.

// skipValue returns the index just past the value that starts at data[i].
// data must be compact, valid JSON (json.Compact has checked it).
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' {
			i++
		}
		return i
	}
}

// skipString returns the index just past the string whose quote is at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// eachField calls fn with the raw key (quotes removed, escapes kept) and
// the value span of every member of the compact JSON object obj, until fn
// returns false.
func eachField(obj []byte, fn func(key []byte, start, end int) bool) {
	if len(obj) < 2 || obj[0] != '{' {
		return
	}
	i := 1
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipString(obj, i)
		key := obj[i+1 : kEnd-1]
		vStart := kEnd + 1 // past ':'
		if vStart >= len(obj) {
			return
		}
		vEnd := skipValue(obj, vStart)
		if !fn(key, vStart, vEnd) {
			return
		}
		i = vEnd
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
}

// eachElement calls fn with every element of the compact JSON array arr.
func eachElement(arr []byte, fn func(elem []byte)) {
	if len(arr) < 2 || arr[0] != '[' {
		return
	}
	i := 1
	for i < len(arr) && arr[i] != ']' {
		end := skipValue(arr, i)
		fn(arr[i:end])
		i = end
		if i < len(arr) && arr[i] == ',' {
			i++
		}
	}
}

// member returns the value of a top-level member of obj, or nil.
func member(obj []byte, name string) []byte {
	var v []byte
	eachField(obj, func(key []byte, start, end int) bool {
		if string(key) == name {
			v = obj[start:end]
			return false
		}
		return true
	})
	return v
}

// stringValue decodes a JSON string value; anything else gives "".
// Bytes that are not UTF-8 become U+FFFD, as encoding/json decodes them.
func stringValue(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// compact returns data without insignificant whitespace, checking that it
// is valid JSON.
func compact(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// pathTrie finds the values of several dot-separated paths ("spec.nodeName",
// "status.podIPs.0.ip") in one walk of a compact JSON object: each level
// is scanned once, whatever the number of paths below it, and values that
// no path reaches are skipped without being decoded.
type pathTrie struct {
	children map[string]*pathTrie
	slot     int // index of the path ending here, -1 for none
}

func newPathTrie() *pathTrie { return &pathTrie{slot: -1} }

// add registers path and returns its slot; adding a path twice returns the
// same slot.
func (t *pathTrie) add(path string, next *int) int {
	n := t
	for _, part := range strings.Split(path, ".") {
		c := n.children[part]
		if c == nil {
			if n.children == nil {
				n.children = map[string]*pathTrie{}
			}
			c = newPathTrie()
			n.children[part] = c
		}
		n = c
	}
	if n.slot < 0 {
		n.slot = *next
		*next++
	}
	return n.slot
}

// find stores in out[slot] the raw value of every path present in v.
func (t *pathTrie) find(v []byte, out [][]byte) {
	if t.slot >= 0 {
		out[t.slot] = v
	}
	if len(t.children) == 0 || len(v) == 0 {
		return
	}
	switch v[0] {
	case '{':
		eachField(v, func(key []byte, start, end int) bool {
			if c := t.children[string(key)]; c != nil {
				c.find(v[start:end], out)
			}
			return true
		})
	case '[':
		i := 0
		eachElement(v, func(elem []byte) {
			if c := t.children[strconv.Itoa(i)]; c != nil {
				c.find(elem, out)
			}
			i++
		})
	}
}

// formatValue renders a raw JSON value as the contract's FieldSet.FieldValue
// renders the same value decoded: strings as they are, booleans true or
// false, integral numbers in decimal, null as "", objects and arrays as
// their JSON with sorted keys.
func formatValue(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return stringValue(raw)
	case 'n':
		return ""
	case 't', 'f':
		return string(raw)
	case '{', '[':
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return ""
		}
		out, _ := json.Marshal(v)
		return string(out)
	default:
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return string(raw)
		}
		if f == float64(int64(f)) {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
}
