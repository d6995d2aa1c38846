package app

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// The JSON a report streams is escaped as the whole document would be,
// however its writes cut it, even in the middle of a character.
func TestJSONEscaperStreams(t *testing.T) {
	doc, err := json.MarshalIndent(map[string]string{"title": "\u009b31m\u202eevil é 日本 \x7f \u2028", "name": "web-0"}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := termtext.EscapeJSON(doc)
	if bytes.Equal(want, doc) {
		t.Fatal("nothing to escape: the test tests nothing")
	}
	for size := 1; size <= len(doc); size++ {
		var out bytes.Buffer
		e := &jsonEscaper{w: &out}
		for i := 0; i < len(doc); i += size {
			if n, err := e.Write(doc[i:min(i+size, len(doc))]); err != nil || n != min(size, len(doc)-i) {
				t.Fatalf("writes of %d bytes: wrote %d, %v", size, n, err)
			}
		}
		if err := e.flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("writes of %d bytes:\n%s\nwant\n%s", size, out.Bytes(), want)
		}
	}
}
