package contract

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Raw lists run to hundreds of megabytes, and decoding them into
// json.RawMessage slices and then each item into a struct to read its
// name scans every byte four times. These helpers walk JSON that
// ValidJSON has accepted, whitespace and all, in one cheap pass without
// decoding it, so that items keep the bytes they were stored with.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// structural marks the bytes skipValue stops at inside an object or
// array: a table, since bytes.IndexAny builds its set on every call.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipValue returns the index just past the value that starts at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return SkipJSONString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			for i < len(data) && !structural[data[i]] {
				i++
			}
			if i == len(data) {
				return i
			}
			switch data[i] {
			case '"':
				i = SkipJSONString(data, i)
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
		for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' && !isSpace(data[i]) {
			i++
		}
		return i
	}
}

// SkipJSONString returns the index just past the JSON string whose
// opening quote is at data[i]: past the next quote not escaped by an odd
// run of backslashes, or len(data) when none ends it. It does not
// validate the string; the upgrade's quantity check reads strings with it
// too.
func SkipJSONString(data []byte, i int) int {
	for i++; i < len(data); {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		q := i + j
		backslashes := 0
		for k := q - 1; k >= i && data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return len(data)
}

// item is one element of a list: its bytes and the members a reader of
// the list needs, found in the same pass that finds where it ends.
type item struct {
	raw                        json.RawMessage
	apiVersion, kind, metadata []byte
}

// list is what one pass over a list object finds: its own members, and
// its items split into elements.
type list struct {
	item
	items    []byte // the value of items, nil when there is none
	elements []item // the elements of items, when it is an array
}

// elements returns the elements of the valid JSON array at data[i] and
// the index just past it.
func elements(data []byte, i int) ([]item, int) {
	var out []item
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] != ']' {
		var it item
		end := scanObject(data, i, &it)
		it.raw = json.RawMessage(data[i:end:end])
		out = append(out, it)
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return out, i + 1
}

// scanObject returns the index just past the value at data[i] and, when
// it is an object, records its apiVersion, kind and metadata (the last of
// each, as encoding/json decodes duplicates).
func scanObject(data []byte, i int, it *item) int {
	return scanMembers(data, i, it, nil)
}

// scanList is scanObject for a list object, which also splits its items
// in the same pass: each byte of a list of hundreds of megabytes is
// looked at once.
func scanList(data []byte) list {
	var l list
	scanMembers(data, 0, &l.item, &l)
	return l
}

func scanMembers(data []byte, i int, it *item, l *list) int {
	if data[i] != '{' {
		return skipValue(data, i)
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		kEnd := SkipJSONString(data, i)
		key := data[i+1 : kEnd-1]
		i = skipSpace(data, kEnd)
		i = skipSpace(data, i+1) // past ':'
		if i >= len(data) {
			return i
		}
		var end int
		if l != nil && keyEquals(key, "items") {
			l.elements = nil
			if data[i] == '[' {
				l.elements, end = elements(data, i)
			} else {
				end = skipValue(data, i)
			}
			l.items = data[i:end]
		} else {
			end = skipValue(data, i)
		}
		switch {
		case keyEquals(key, "apiVersion"):
			it.apiVersion = data[i:end]
		case keyEquals(key, "kind"):
			it.kind = data[i:end]
		case keyEquals(key, "metadata"):
			it.metadata = data[i:end]
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return skipSpace(data, i) + 1 // past '}'
}

// member returns the value of a top-level member of a valid JSON object,
// or nil. A name that occurs twice gives its last value, as
// encoding/json decodes it.
func member(obj []byte, name string) []byte {
	if len(obj) < 2 || obj[0] != '{' {
		return nil
	}
	var v []byte
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := SkipJSONString(obj, i)
		key := obj[i+1 : kEnd-1]
		i = skipSpace(obj, kEnd)
		i = skipSpace(obj, i+1) // past ':'
		if i >= len(obj) {
			return v
		}
		end := skipValue(obj, i)
		if keyEquals(key, name) {
			v = obj[i:end]
		}
		i = skipSpace(obj, end)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return v
}

// keyEquals compares a raw key, escapes and all, with a plain name.
func keyEquals(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	var s string
	return json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) == nil && s == name
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
