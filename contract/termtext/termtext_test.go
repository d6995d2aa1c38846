package termtext_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// Hostile is text a bundle may hold to take over the terminal that
// prints it: it erases its line and prints another (\r, \b, CSI), sets
// the window title (OSC 0), writes the clipboard (OSC 52), uses the C1
// CSI (U+009B) and reverses what follows (U+202E).
const Hostile = "ok\rPASS\b\b\x1b[2K\x1b]0;title\a\x1b]52;c;ZWNobw==\x07\u009b31m\u202eevil\u2066\x7f\xff\n"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"pods/default.json":  "pods/default.json",
		"ünïcödé ✓ 日本 \\x1b": "ünïcödé ✓ 日本 \\x1b",
		"a\tb\nc":            `a\tb\nc`,
		"\x1b[31mred":        `\x1b[31mred`,
		"\u009b31m":          `\u009b31m`,
		"\u202eabc\u200f":    `\u202eabc\u200f`,
		"x\xffy":             `x\xffy`,
		"\u2028":             `\u2028`,
		Hostile:              `ok\rPASS\b\b\x1b[2K\x1b]0;title\a\x1b]52;c;ZWNobw==\a\u009b31m\u202eevil\u2066\x7f\xff\n`,
	} {
		if got := termtext.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// Unsafe says whether s holds what a terminal would act on: the test of
// every command's output.
func unsafe(s string) bool { return termtext.Escape(s) != s }

func TestEscapeJSON(t *testing.T) {
	doc, err := json.Marshal(map[string]string{"name": Hostile, "plain": "日本"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "\u009b") {
		t.Fatal("encoding/json escaped U+009B itself; EscapeJSON may no longer be needed")
	}
	esc := termtext.EscapeJSON(doc)
	if strings.ContainsFunc(string(esc), func(r rune) bool { return unsafe(string(r)) }) {
		t.Errorf("EscapeJSON left a control character: %q", esc)
	}
	var back map[string]string
	if err := json.Unmarshal(esc, &back); err != nil {
		t.Fatal(err)
	}
	want := strings.ToValidUTF8(Hostile, "\ufffd")
	if back["name"] != want || back["plain"] != "日本" {
		t.Errorf("EscapeJSON changed the values: %q", back)
	}
	if plain := []byte(`{"a":"b"}`); &termtext.EscapeJSON(plain)[0] != &plain[0] {
		t.Error("EscapeJSON copied a document it had nothing to escape in")
	}
}
