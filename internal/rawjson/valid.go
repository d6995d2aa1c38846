package rawjson

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Valid reports whether data is exactly one JSON value, white space
// around it allowed, with the answer of encoding/json.Valid in every case,
// its nesting limit of 10,000 levels included. Every raw list is validated
// before it is split, and encoding/json's scanner, which calls a function
// per byte, was a tenth of an upgrade's time; this loop runs several times
// faster. FuzzValid holds it to encoding/json's answers.
func Valid(data []byte) bool {
	i := validValue(data, skipSpace(data, 0), 0)
	return i >= 0 && skipSpace(data, i) == len(data)
}

// validValue returns the index just past the valid JSON value that
// starts at data[i], inside depth arrays and objects, or -1.
func validValue(data []byte, i, depth int) int {
	var open []byte // the '{' or '[' of each container the scan is inside
	for {
		// A value starts at data[i], after optional white space.
		i = skipSpace(data, i)
		if i >= len(data) {
			return -1
		}
		complete := true
		switch c := data[i]; c {
		case '{', '[':
			if depth+len(open) >= maxNestingDepth {
				return -1
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == closer(c) {
				i++
				break
			}
			open = append(open, c)
			if c == '{' {
				i = validKey(data, i)
			}
			complete = false
		case '"':
			i = validString(data, i)
		case 't':
			i = validLiteral(data, i, "true")
		case 'f':
			i = validLiteral(data, i, "false")
		case 'n':
			i = validLiteral(data, i, "null")
		default:
			i = validNumber(data, i)
		}
		if i < 0 {
			return -1
		}
		if !complete {
			continue
		}
		// After a complete value: close containers until the next element.
		for {
			if len(open) == 0 {
				return i
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return -1
			}
			c := open[len(open)-1]
			if data[i] == ',' {
				i++
				if c == '{' {
					if i = validKey(data, skipSpace(data, i)); i < 0 {
						return -1
					}
				}
				break
			}
			if data[i] != closer(c) {
				return -1
			}
			open = open[:len(open)-1]
			i++
		}
	}
}

// maxNestingDepth is encoding/json's: deeper values are invalid.
const maxNestingDepth = 10000

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// validKey returns the index just past the colon of the member name at
// data[i], or -1.
func validKey(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = validString(data, i); i < 0 {
		return -1
	}
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return i + 1
}

// stringSpecial marks the bytes a string scan must stop at: the closing
// quote, an escape, and the control characters JSON forbids in strings.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// validString returns the index just past the string whose quote is at
// data[i], or -1. Bytes that are not UTF-8 are valid, as for encoding/json.
func validString(data []byte, i int) int {
	for i++; i < len(data); {
		c := data[i]
		if !stringSpecial[c] {
			i++
			continue
		}
		switch c {
		case '"':
			return i + 1
		case '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return -1
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		default:
			return -1 // a control character
		}
	}
	return -1
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// validNumber returns the index just past the number at data[i], or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data) || !isDigit(data[i]):
		return -1
	case data[i] == '0':
		i++
	default:
		i = digits(data, i)
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		i = digits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		i = digits(data, i)
	}
	return i
}

func digits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func validLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// Check is Valid with an error that says where data goes wrong, in
// encoding/json's words: "invalid JSON: invalid character ...".
func Check(data []byte) error {
	if Valid(data) {
		return nil
	}
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return errors.New("invalid JSON")
}
