package rawjson_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/rawjson"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// validCases are inputs on every edge of the grammar; each is checked
// against encoding/json.Valid, so the expectation is not ours.
var validCases = []string{
	``, ` `, `{}`, `[]`, ` [ ] `, `{"a":1}`, `{"a" : [1, 2.5, -0.1e+3, "x", true, false, null, {}, []]}`,
	`"\u00e9\n\"\\\/\b\f\r\t"`, `"\u00zz"`, `"\u12"`, `"\x"`, "\"a\tb\"", "\"\x7f\xff\xfe\"", `"abc`, `"abc\`,
	`0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-07`, `1.5e3x`, `+1`, `00`, `-01`, `0.0e0`,
	`true`, `tru`, `truex`, `nul`, `null null`, `[1,]`, `[,1]`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`,
	`{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `[1}`, `{"a":1]`, `]`, `}`, `[[[]]]`, `[[[]]`, "\ufeff{}",
	"{\"a\":\n\t1\r}", `[{"a":[{"b":{}}]}]`, `{"a":"b","c":{"d":[]}}` + ` x`,
}

func TestValid(t *testing.T) {
	cases := append([]string(nil), validCases...)
	// encoding/json refuses nesting beyond 10,000 levels, empty
	// containers included.
	for _, depth := range []int{9999, 10000, 10001} {
		cases = append(cases,
			strings.Repeat("[", depth)+strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth-1)+"{}"+strings.Repeat("}", depth-1),
			strings.Repeat("[", depth-1)+`{"a":1}`+strings.Repeat("]", depth-1))
	}
	// The walkers that validate a value given its depth count the same.
	for _, depth := range []int{9997, 9998, 9999} {
		for _, list := range []string{`[{"a":1}]`, `[[]]`, `[{"a":[]}]`} {
			want := json.Valid([]byte(strings.Repeat("[", depth) + list + strings.Repeat("]", depth)))
			end := rawjson.EachElementMembersValid([]byte(list), depth, func([]byte, []rawjson.Member) {})
			if got := end == len(list); got != want {
				t.Errorf("EachElementMembersValid(%s, %d) = %d: valid %v, encoding/json says %v", list, depth, end, got, want)
			}
		}
	}
	for _, c := range cases {
		want := json.Valid([]byte(c))
		if got := rawjson.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %v, encoding/json says %v", c, got, want)
		}
		checkValidatingScan(t, []byte(c), want)
	}
}

// BenchmarkValid compares Valid with encoding/json.Valid on a list of
// pods as troubleshoot writes it, and the split of its items after Valid
// with the split that validates as it goes.
func BenchmarkValid(b *testing.B) {
	data := benchList(b)
	b.Run("Valid", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if !rawjson.Valid(data) {
				b.Fatal("invalid")
			}
		}
	})
	// A list's items as DecodeList splits them: validated first, then
	// split, or validated as they are split.
	split := func(validate bool) int {
		read := func(m rawjson.Member) int {
			if !m.Is("items") {
				return -1
			}
			each := func([]byte, []rawjson.Member) {}
			var end int
			if validate {
				end = rawjson.EachElementMembersValid(data[m.Start:], 1, each)
			} else {
				end = rawjson.EachElementMembers(data[m.Start:], each)
			}
			return m.Start + end
		}
		keep := func(rawjson.Member) bool { return true }
		if validate {
			return rawjson.EachMemberReadingValid(data, read, keep)
		}
		if !rawjson.Valid(data) {
			return -1
		}
		rawjson.EachMemberReading(data, read, keep)
		return len(data)
	}
	for _, validate := range []bool{false, true} {
		name := map[bool]string{false: "ValidThenSplit", true: "SplitValidating"}[validate]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if split(validate) != len(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if !json.Valid(data) {
				b.Fatal("invalid")
			}
		}
	})
}

// benchList is the largest pods list of the small generated bundle, as
// troubleshoot indents it.
func benchList(b *testing.B) []byte {
	b.Helper()
	var archive bytes.Buffer
	if _, err := contracttest.WriteBundle(&archive, contracttest.Small()); err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(&archive)
	if err != nil {
		b.Fatal(err)
	}
	var largest []byte
	for tr := tar.NewReader(zr); ; {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if strings.Contains(hdr.Name, "/pods/") && hdr.Size > int64(len(largest)) {
			if largest, err = io.ReadAll(tr); err != nil {
				b.Fatal(err)
			}
		}
	}
	return largest
}
