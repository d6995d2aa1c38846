// Package termtext makes text from a bundle or a server safe to print.
// A terminal interprets control characters: an entry name or an analysis
// message holding "\r" or an ANSI escape can erase the line before it and
// print another, set the window title or write the clipboard (OSC 52),
// and bidirectional overrides make text read other than it is. Escape
// shows those characters as Go escapes instead; all other text, UTF-8
// included, is printed as it is.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every control character written as a Go escape:
// C0 controls and DEL ("\r", "\n", "\x1b"; "\t" too, which would break
// the columns of a table), C1 controls ("\u009b", which
// some terminals take for ESC [), the bidirectional marks, embeddings,
// overrides and isolates ("\u202e"), the line and paragraph separators,
// and each byte that is not UTF-8 ("\xff"). A backslash is left as it is:
// the output is for reading, not for parsing back.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafeRune(r):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			b.WriteString(asciiEscape(byte(r)))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// EscapeJSON escapes, in a JSON document, the characters Escape escapes
// that encoding/json leaves raw in strings: DEL, C1 controls and the
// bidirectional ones (it escapes C0 controls and the separators itself).
// They can only occur inside strings, where \uXXXX means the same
// character, so the document decodes to the same values.
func EscapeJSON(doc []byte) []byte {
	var out []byte // nil until a character is escaped
	for i := 0; i < len(doc); {
		r, size := utf8.DecodeRune(doc[i:])
		if r >= 0x7f && unsafeRune(r) {
			if out == nil {
				out = append(make([]byte, 0, len(doc)+8), doc[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		} else if out != nil {
			out = append(out, doc[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return doc
	}
	return out
}

// firstUnsafe is the index of the first byte Escape changes, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune says whether a terminal may act on r instead of showing it.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // bidi marks
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// asciiEscape is how %q writes a C0 control or DEL.
func asciiEscape(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	return fmt.Sprintf(`\x%02x`, c)
}
