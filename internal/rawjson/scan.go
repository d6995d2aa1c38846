// Package rawjson reads JSON text without decoding it: whether it is
// valid, where a value ends, the members of an object and the elements of
// an array, each as the bytes it was written with.
//
// Bundles hold lists of hundreds of megabytes whose items must keep their
// stored bytes (upgrade copies them, serve sends them), and decoding them
// to read a name scans every byte several times. Every reader of the
// module (contract, serve, transform, the collector) walks JSON with this
// one package, with the semantics of encoding/json: a key is compared
// after its escapes are decoded, and of two members with the same key the
// last one counts. FuzzScan holds it to encoding/json on any input.
//
// The walkers expect valid JSON (Valid says), except those named Valid,
// which check it as they go; on anything else they never panic and always
// end, but what they find is unspecified.
package rawjson

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// structural marks the bytes SkipValue stops at inside an object or
// array: a table, since bytes.IndexAny builds its set on every call.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// SkipValue returns the index just past the value that starts at data[i].
func SkipValue(data []byte, i int) int {
	if i >= len(data) {
		return len(data)
	}
	switch data[i] {
	case '"':
		return SkipString(data, i)
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
				i = SkipString(data, i)
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

// SkipString returns the index just past the JSON string whose opening
// quote is at data[i]: past the next quote not escaped by an odd run of
// backslashes, or len(data) when none ends it. It does not validate the
// string.
func SkipString(data []byte, i int) int {
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

// Member is one member of an object, found where it was written.
type Member struct {
	// Key is the key as written: quotes removed, escapes kept.
	Key []byte
	// KeyStart is the index of the key's opening quote in the object;
	// Start and End delimit the value.
	KeyStart, Start, End int
}

// Name is the member's key as encoding/json decodes it.
func (m Member) Name() string {
	if plainKey(m.Key) {
		return string(m.Key)
	}
	return String(quoted(m.Key))
}

// Is says whether the member's key, decoded, is name.
func (m Member) Is(name string) bool {
	if plainKey(m.Key) {
		return string(m.Key) == name
	}
	return String(quoted(m.Key)) == name
}

// plainKey says whether a key decodes to its own bytes.
func plainKey(key []byte) bool {
	return bytes.IndexByte(key, '\\') < 0 && utf8.Valid(key)
}

func quoted(key []byte) []byte {
	q := make([]byte, 0, len(key)+2)
	q = append(q, '"')
	q = append(q, key...)
	return append(q, '"')
}

// EachMember calls fn with every member of the object at obj, in the
// order written, until fn returns false. obj may start with white space;
// anything but an object has no members.
func EachMember(obj []byte, fn func(m Member) bool) {
	members(obj, skipSpace(obj, 0), 0, nil, fn, unchecked)
}

// EachMemberReadingValid is EachMember for a caller that reads some
// values itself as they are found (the items of a list, split into
// elements): read is given each member before fn, with m.End unset, and
// returns the index in obj just past the value it read, or -1 to have it
// skipped; a value read so is not scanned a second time. It also
// validates the object as Valid does, in the same pass: it returns the index just past
// the object, or -1 when obj does not start with a valid one (or fn
// stopped). A value that read reads, it must validate itself (an array
// of members is EachElementMembersValid(v, 1, ...)).
func EachMemberReadingValid(obj []byte, read func(m Member) int, fn func(m Member) bool) int {
	return members(obj, skipSpace(obj, 0), 0, read, fn, 0)
}

// unchecked is the depth argument of a scan that does not validate.
const unchecked = -1

// members calls fn with each member of the object that starts at
// obj[start], its offsets counted from obj[base], and returns the index
// just past the object, or -1 when fn stopped or the object is not valid.
// read, if not nil, may find where a value ends (see EachMemberReadingValid).
// A depth of 0 or more validates the object, which lies inside depth
// arrays and objects, as Valid would; unchecked does not.
func members(obj []byte, start, base int, read func(m Member) int, fn func(m Member) bool, depth int) int {
	validate := depth >= 0
	i := start
	if i >= len(obj) || obj[i] != '{' || validate && depth >= maxNestingDepth {
		return -1
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		var kEnd int
		if validate {
			if kEnd = validString(obj, i); kEnd < 0 {
				return -1
			}
		} else {
			kEnd = SkipString(obj, i)
		}
		m := Member{Key: obj[i+1 : max(kEnd-1, i+1)], KeyStart: i - base}
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return -1
		}
		valueStart := skipSpace(obj, i+1)
		if valueStart >= len(obj) {
			return -1
		}
		m.Start = valueStart - base
		valueEnd := -1
		if read != nil {
			if end := read(m); end > valueStart && end <= len(obj) {
				valueEnd = end
			}
		}
		if valueEnd < 0 {
			if validate {
				if valueEnd = validValue(obj, valueStart, depth+1); valueEnd < 0 {
					return -1
				}
			} else {
				valueEnd = SkipValue(obj, valueStart)
			}
		}
		m.End = valueEnd - base
		if !fn(m) {
			return -1
		}
		i = skipSpace(obj, valueEnd)
		if i >= len(obj) || obj[i] != ',' {
			break
		}
		i = skipSpace(obj, i+1)
		if validate && (i >= len(obj) || obj[i] != '"') {
			return -1 // a comma before the closing brace, or no key
		}
	}
	if i < len(obj) && obj[i] == '}' {
		return i + 1
	}
	return -1
}

// Get returns the value of the object's member name, the last one when
// the key occurs more than once (as encoding/json decodes it), or nil.
func Get(obj []byte, name string) []byte {
	var v []byte
	EachMember(obj, func(m Member) bool {
		if m.Is(name) {
			v = obj[m.Start:m.End]
		}
		return true
	})
	return v
}

// EachElement calls fn with every element of the array at arr, in order.
// arr may start with white space; anything but an array has no elements.
func EachElement(arr []byte, fn func(elem []byte)) {
	eachElement(arr, false, func(elem []byte, _ []Member) { fn(elem) }, unchecked)
}

// EachElementMembersValid is EachElement that also gives the members of
// each element that is an object (none for any other), found in the pass
// that finds where the element ends (EachElement and then EachMember
// would read every byte twice; the slice of members is reused between
// calls), and validates the array, which lies inside depth arrays and objects, as Valid does, in
// the same pass: it returns the index just past the array, or -1 when arr
// does not start with a valid one. Elements before an invalid byte have
// been given to fn.
func EachElementMembersValid(arr []byte, depth int, fn func(elem []byte, members []Member)) int {
	return eachElement(arr, true, fn, depth)
}

func eachElement(arr []byte, withMembers bool, fn func(elem []byte, members []Member), depth int) int {
	validate := depth >= 0
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' || validate && depth >= maxNestingDepth {
		return -1
	}
	var ms []Member
	collect := func(m Member) bool {
		ms = append(ms, m)
		return true
	}
	elemDepth := unchecked
	if validate {
		elemDepth = depth + 1
	}
	i = skipSpace(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		ms = ms[:0]
		end := -1
		if withMembers && arr[i] == '{' {
			end = members(arr, i, i, nil, collect, elemDepth)
		}
		if end < 0 {
			ms = ms[:0]
			if validate {
				if end = validValue(arr, i, elemDepth); end < 0 {
					return -1
				}
			} else {
				end = SkipValue(arr, i)
			}
		}
		if end == i {
			return -1
		}
		fn(arr[i:end:end], ms)
		i = skipSpace(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			break
		}
		i = skipSpace(arr, i+1)
		if validate && (i >= len(arr) || arr[i] == ']') {
			return -1 // a comma before the closing bracket
		}
	}
	if i < len(arr) && arr[i] == ']' {
		return i + 1
	}
	return -1
}

// String decodes a JSON string value as encoding/json does (bytes that
// are not UTF-8 become U+FFFD); anything else gives "".
func String(v []byte) string {
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

// AppendCompact appends the valid JSON data to dst without insignificant
// white space, as json.Compact writes it, in one pass that does not check
// the grammar again.
func AppendCompact(dst, data []byte) []byte {
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			end := SkipString(data, i)
			dst = append(dst, data[i:end]...)
			i = end
		case isSpace(c):
			i++
		default:
			start := i
			for i < len(data) && data[i] != '"' && !isSpace(data[i]) {
				i++
			}
			dst = append(dst, data[start:i]...)
		}
	}
	return dst
}
