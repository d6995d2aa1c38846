package index

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// A table is read a value at a time, whatever the reads return: one
// byte at a time, white space anywhere, members in any order, the last
// of a repeated member, as encoding/json reads it.
func TestDecodeTableFile(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{`{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[{"cells":["a",1],"object":{"metadata":{"name":"a","namespace":"n"}}},{"cells":["b"],"conditions":[{"type":"Completed"}]}]}`,
			`[{"name":"Name"}] n/a:["a",1] /:["b"][{"type":"Completed"}]`},
		{" \n{ \"rows\" : [ { \"cells\" : [ \"a\" , 1 ] } ] , \"kind\" : \"Table\" } \n", `/:["a",1]`},
		{`{"rows":[{"cells":["x"]}],"kind":"Table","rows":[{"cells":["y"]}]}`, `/:["y"]`},
		{`{"rows":[{"cells":["x"]}],"kind":"Table","rows":null}`, ``},
		{`{"kind":"Table","rows":[]}`, ``},
		{`{"kind":"Table","rows":[{"cells":null,"object":{"metadata":{"name":"a"}}}]}`, `/a:[]`},
	} {
		for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
			tab, err := decodeTableFile(r)
			if err != nil {
				t.Fatalf("%s: %v", tc.in, err)
			}
			var got []string
			if tab.columns != nil {
				got = append(got, string(tab.columns))
			}
			for _, row := range tab.rows {
				got = append(got, fmt.Sprintf("%s/%s:%s%s", row.namespace, row.name, row.row.Cells, row.row.Conditions))
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("%s: %s, want %s", tc.in, s, tc.want)
			}
		}
	}
	for _, bad := range []string{``, `[]`, `{"kind":"List","rows":[]}`, `{"kind":"Table","rows":[}`, `{"kind":"Table","rows":[{"cells":[]},]}`,
		`{"kind":"Table",}`, `{"kind":"Table"`, `{"kind":"Table"} x`, `{"kind":"Table","rows":[{"cells":[1 2]}]}`, `{kind:"Table"}`, `{"kind" "Table"}`} {
		if _, err := decodeTableFile(iotest.OneByteReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// A table of many rows is never held whole: the scanner's buffer holds
// the row being read, and the rows' cells are kept compacted.
func TestDecodeTableFileStreams(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"kind":"Table","rows":[`)
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"cells": ["p%d", "\u003cnone\u003e"], "object": {"kind":"PartialObjectMetadata","metadata": {"name": "p%d", "namespace": "default"}}}`, i, i)
	}
	b.WriteString(`]}`)
	size := b.Len()
	s := &tableScanner{r: &b}
	tab, err := s.table()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.rows) != 100_000 || tab.rows[99_999].name != "p99999" || tab.rows[1].namespace != "default" {
		t.Fatalf("%d rows", len(tab.rows))
	}
	if cap(s.buf) > 256<<10 {
		t.Errorf("the scanner held %d bytes of a table of %d", cap(s.buf), size)
	}
}
