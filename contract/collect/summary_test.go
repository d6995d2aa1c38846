package collect_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/contract/termtext"
)

// What a server answers reaches the terminal escaped: a version, a
// resource or a problem cannot erase a line, set the title or write the
// clipboard.
func TestSummaryTextEscapesServerText(t *testing.T) {
	const hostile = "\x1b[2K\rok\b\x1b]52;c;ZXZpbA==\x07\u009b31m\u202eevil"
	sum := &collect.Summary{
		KubernetesVersion: "v1.35.0+" + hostile,
		Resources:         []collect.ResourceCount{{Group: hostile, Version: hostile, Resource: hostile}},
		Problems:          []collect.Problem{{What: hostile, Message: hostile}},
	}
	var b bytes.Buffer
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(b.String(), "\n", "")
	if termtext.Escape(out) != out {
		t.Errorf("a control character reached the text:\n%s", termtext.Escape(b.String()))
	}
	if n := strings.Count(out, termtext.Escape(hostile)); n != 6 {
		t.Errorf("the server's text is shown escaped %d times, want 6:\n%s", n, out)
	}
}
