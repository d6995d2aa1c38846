package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
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
func stringValue(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
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
