package rawjson_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// scanCases are objects, arrays and strings whose reading depends on the
// rules rawjson shares with encoding/json: duplicate keys (the last one
// counts), escaped keys (compared decoded), white space everywhere, and
// bytes that are not UTF-8.
var scanCases = []string{
	`{"items":[{"metadata":{"name":"first"}}],"items":[{"metadata":{"name":"second"}}]}`,
	`{"kind":"PodList","k\u0069nd":"NodeList"}`,
	`{"\u006Detadata":{"name":"a"},"metadata":{"name":"b"},"metadat\u0061":{"name":"c"}}`,
	" { \"a\" :\t[ 1 , { \"b\" : \"\\\"}\" } ,\n\"x\" ] , \"c\" : null } ",
	`{"a\"b":1,"a\\":2,"\/":3,"é":4,"\u00e9":5}`,
	"{\"\xff\":1,\"\xfe\":2}",
	`[1,"two",{"three":3},[4],true,false,null,-5.5e-3]`,
	` [ ] `, `{}`, `"\u00e9\n\"\\\/\b\f\r\t"`, "\"\xff\"", `"plain"`, `12`, `null`,
	`{"a":{"b":{"c":[{"d":1},{"d":2,"d":3}]}}}`,
}

func TestScanAsEncodingJSON(t *testing.T) {
	for _, c := range append(append([]string(nil), scanCases...), validCases...) {
		checkScan(t, []byte(c))
	}
}

func TestGetLastDuplicate(t *testing.T) {
	obj := []byte(`{"items":[1],"items":[2],"it\u0065ms":[3]}`)
	if got := string(rawjson.Get(obj, "items")); got != "[3]" {
		t.Errorf("Get(items) = %s, want the last, [3]", got)
	}
	o, err := rawjson.ParseObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(o.Get("items")); got != "[3]" {
		t.Errorf("Object.Get(items) = %s, want [3]", got)
	}
	// With drops the earlier copies, so that the old values are gone.
	if got := string(o.With("items", json.RawMessage(`[]`)).Marshal()); got != `{"it\u0065ms":[]}` {
		t.Errorf("With = %s", got)
	}
	if got := string(o.With("kind", json.RawMessage(`"X"`)).Marshal()); got != `{"items":[1],"items":[2],"it\u0065ms":[3],"kind":"X"}` {
		t.Errorf("With a new key = %s", got)
	}
}

// FuzzScan holds the package to encoding/json on any input: Valid to
// json.Valid, AppendCompact to json.Compact, and, on valid input, the
// members, elements and strings it finds to what json.Unmarshal decodes,
// three levels deep. Invalid input must not make anything panic or hang.
func FuzzScan(f *testing.F) {
	for _, c := range append(append([]string(nil), scanCases...), validCases...) {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScan(t, data)
	})
}

func checkScan(t *testing.T, data []byte) {
	t.Helper()
	valid := rawjson.Valid(data)
	if want := json.Valid(data); valid != want {
		t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, valid, want)
	}
	checkValidatingScan(t, data, valid)
	if !valid {
		// Nothing to compare with; only nothing may go wrong.
		rawjson.EachMember(data, func(m rawjson.Member) bool { m.Name(); return true })
		rawjson.EachElement(data, func([]byte) {})
		rawjson.SkipValue(data, 0)
		rawjson.ParseObject(data)
		return
	}
	var want bytes.Buffer
	if err := json.Compact(&want, data); err != nil {
		t.Fatal(err)
	}
	if got := rawjson.AppendCompact(nil, data); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("AppendCompact(%q) = %q, json.Compact gives %q", data, got, want.Bytes())
	}
	checkValue(t, bytes.TrimSpace(data), 3)
}

// checkValue compares what rawjson reads of the valid value v with what
// encoding/json decodes, depth levels down.
func checkValue(t *testing.T, v []byte, depth int) {
	t.Helper()
	if depth == 0 || len(v) == 0 {
		return
	}
	if end := rawjson.SkipValue(v, 0); end != len(v) {
		t.Fatalf("SkipValue(%q) = %d, want %d", v, end, len(v))
	}
	switch v[0] {
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		rawjson.EachMember(v, func(mem rawjson.Member) bool {
			seen[mem.Name()] = true
			if !mem.Is(mem.Name()) {
				t.Fatalf("Member %q: Is(Name()) is false", mem.Key)
			}
			return true
		})
		if diff := cmp.Diff(keys(m), keys(seen)); diff != "" {
			t.Fatalf("the keys of %q differ from encoding/json's (-json +rawjson):\n%s", v, diff)
		}
		// Members whose arrays the caller reads are those EachMember finds.
		var each, reading []rawjson.Member
		rawjson.EachMember(v, func(mem rawjson.Member) bool { each = append(each, mem); return true })
		read := func(mem rawjson.Member) int {
			if v[mem.Start] != '[' {
				return -1
			}
			end := rawjson.EachElementMembers(v[mem.Start:], func([]byte, []rawjson.Member) {})
			if end < 0 {
				t.Fatalf("EachElementMembers(%q) found no end", v[mem.Start:])
			}
			return mem.Start + end
		}
		rawjson.EachMemberReading(v, read, func(mem rawjson.Member) bool { reading = append(reading, mem); return true })
		if fmt.Sprint(each) != fmt.Sprint(reading) {
			t.Fatalf("EachMemberReading(%q) found %v, EachMember %v", v, reading, each)
		}
		o, err := rawjson.ParseObject(v)
		if err != nil {
			t.Fatalf("ParseObject(%q): %v", v, err)
		}
		for k, want := range m {
			got := rawjson.Get(v, k)
			if !sameJSON(got, want) || !sameJSON(o.Get(k), want) {
				t.Fatalf("Get(%q, %q) = %q, Object.Get = %q; encoding/json decodes %q", v, k, got, o.Get(k), want)
			}
			checkValue(t, got, depth-1)
		}
	case '[':
		var want []json.RawMessage
		if err := json.Unmarshal(v, &want); err != nil {
			t.Fatal(err)
		}
		var got []json.RawMessage
		rawjson.EachElement(v, func(e []byte) { got = append(got, e) })
		if len(got) != len(want) {
			t.Fatalf("EachElement(%q) found %d elements, encoding/json %d", v, len(got), len(want))
		}
		for i := range got {
			if !sameJSON(got[i], want[i]) {
				t.Fatalf("element %d of %q is %q, encoding/json decodes %q", i, v, got[i], want[i])
			}
			checkValue(t, got[i], depth-1)
		}
		// The members found in the same pass are EachMember's.
		n := 0
		rawjson.EachElementMembers(v, func(e []byte, ms []rawjson.Member) {
			if n >= len(got) || !bytes.Equal(e, got[n]) {
				t.Fatalf("EachElementMembers(%q) element %d is %q, EachElement's %q", v, n, e, got[n:min(n+1, len(got))])
			}
			var each []rawjson.Member
			rawjson.EachMember(e, func(m rawjson.Member) bool { each = append(each, m); return true })
			if fmt.Sprint(ms) != fmt.Sprint(each) {
				t.Fatalf("members of element %d of %q: %v, EachMember finds %v", n, v, ms, each)
			}
			n++
		})
		if n != len(got) {
			t.Fatalf("EachElementMembers(%q) found %d elements, EachElement %d", v, n, len(got))
		}
	case '"':
		var want string
		if err := json.Unmarshal(v, &want); err != nil {
			t.Fatal(err)
		}
		if got := rawjson.String(v); got != want {
			t.Fatalf("String(%q) = %q, encoding/json decodes %q", v, got, want)
		}
	default:
		if got := rawjson.String(v); got != "" {
			t.Fatalf("String(%q) = %q, want \"\" for a value that is not a string", v, got)
		}
	}
}

// checkValidatingScan holds the walkers that validate as they go to
// Valid's answer on an object or array, and, where valid, to what the
// walkers that do not validate find: the members of the object, reading
// its arrays as DecodeList reads a list's items, or the elements of the
// array with their members.
func checkValidatingScan(t *testing.T, data []byte, valid bool) {
	t.Helper()
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || len(trimmed) < len(data) && !valid {
		return // the walkers start at a value; Valid's white space is its own
	}
	// walk reads trimmed into found, validating or not, and returns where
	// the value ends.
	var walk func(found *[]string, validate bool) int
	element := func(found *[]string) func(e []byte, ms []rawjson.Member) {
		return func(e []byte, ms []rawjson.Member) { *found = append(*found, fmt.Sprintf("%s %v", e, ms)) }
	}
	switch trimmed[0] {
	case '{':
		walk = func(found *[]string, validate bool) int {
			read := func(m rawjson.Member) int {
				if trimmed[m.Start] != '[' {
					return -1
				}
				var end int
				if validate {
					end = rawjson.EachElementMembersValid(trimmed[m.Start:], 1, element(found))
				} else {
					end = rawjson.EachElementMembers(trimmed[m.Start:], element(found))
				}
				if end < 0 {
					return -1
				}
				return m.Start + end
			}
			member := func(m rawjson.Member) bool { *found = append(*found, fmt.Sprint(m)); return true }
			if validate {
				return rawjson.EachMemberReadingValid(trimmed, read, member)
			}
			rawjson.EachMemberReading(trimmed, read, member)
			return len(trimmed)
		}
	case '[':
		walk = func(found *[]string, validate bool) int {
			if validate {
				return rawjson.EachElementMembersValid(trimmed, 0, element(found))
			}
			return rawjson.EachElementMembers(trimmed, element(found))
		}
	default:
		return
	}
	var got, want []string
	end := walk(&got, true)
	if accepted := end == len(trimmed); accepted != valid {
		t.Fatalf("the validating walkers read %q to %d of %d: valid %v, Valid says %v", trimmed, end, len(trimmed), accepted, valid)
	}
	if valid {
		walk(&want, false)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("the validating walkers found in %q:\n%v\nthe others:\n%v", trimmed, got, want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sameJSON(a, b []byte) bool {
	return bytes.Equal(rawjson.AppendCompact(nil, a), rawjson.AppendCompact(nil, b))
}
