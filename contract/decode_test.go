package contract_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

func TestDecodeListShapes(t *testing.T) {
	cases := []struct {
		name    string
		data    string
		format  contract.Format
		shape   contract.Shape
		items   int
		rv      string
		kind    string
		wantErr string
	}{
		{"typed list", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"687"},"items":[{"metadata":{"name":"a"}}]}`, contract.FormatJSON, contract.ShapeTypedList, 1, "687", "PodList", ""},
		{"items null (2025 bundles)", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"687"},"items":null}`, contract.FormatJSON, contract.ShapeTypedList, 0, "687", "PodList", ""},
		{"empty list without items (1.26's admissionregistration v1alpha1 lists omit them)", `{"kind":"ValidatingAdmissionPolicyList","apiVersion":"admissionregistration.k8s.io/v1alpha1","metadata":{"resourceVersion":"471"}}`, contract.FormatJSON, contract.ShapeTypedList, 0, "471", "ValidatingAdmissionPolicyList", ""},
		{"an object whose kind ends in List is still an object", `{"kind":"WidgetList","apiVersion":"x/v1","metadata":{"name":"w"}}`, contract.FormatJSON, contract.ShapeObject, 1, "", "", ""},
		{"untyped list (CRDs before 2025)", `{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a.b.c"}}]}`, contract.FormatJSON, contract.ShapeUntypedList, 1, "9", "", ""},
		{"bare array (before v0.28.1)", `[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]`, contract.FormatJSON, contract.ShapeArray, 2, "", "", ""},
		{"empty bare array", "[]\n", contract.FormatJSON, contract.ShapeArray, 0, "", "", ""},
		{"single object (--namespace)", `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default"}}`, contract.FormatJSON, contract.ShapeObject, 1, "", "", ""},
		{"YAML sequence", "- apiVersion: velero.io/v1\n  kind: BackupStorageLocation\n  metadata:\n    name: default\n", contract.FormatYAML, contract.ShapeArray, 1, "", "", ""},
		{"YAML broken by redaction", "- metadata:\n    name: e\n  spec:\n    ip: ***HIDDEN***\n    map:\n      r1: ***HIDDEN***:10000\n    list:\n    - ***HIDDEN***\n", contract.FormatYAML, contract.ShapeArray, 1, "", "", ""},
		{"invalid JSON", `{"items":[`, contract.FormatJSON, 0, 0, "", "", "invalid JSON"},
		{"number", `42`, contract.FormatJSON, 0, 0, "", "", "not an array or object"},
		{"item without name", `[{"metadata":{}}]`, contract.FormatJSON, 0, 0, "", "", "no metadata.name"},
		{"item not an object", `{"items":[1]}`, contract.FormatJSON, 0, 0, "", "", "not an object"},
		{"object without metadata", `{"foo":1}`, contract.FormatJSON, 0, 0, "", "", "neither items nor metadata"},
		{"invalid YAML", "- a: [\n", contract.FormatYAML, 0, 0, "", "", "invalid YAML"},
		{"deeply nested", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), contract.FormatJSON, 0, 0, "", "", "invalid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := contract.DecodeList([]byte(c.data), c.format)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Shape != c.shape || len(l.Items) != c.items || l.ResourceVersion != c.rv || l.Kind != c.kind {
				t.Errorf("got shape %v, %d items, rv %q, kind %q", l.Shape, len(l.Items), l.ResourceVersion, l.Kind)
			}
		})
	}
}

// The list is split without being decoded: strings that hold quotes,
// backslashes and brackets, whitespace everywhere and duplicate members
// must not confuse it.
func TestDecodeListScansTricky(t *testing.T) {
	data := "[ {\"metadata\" : {\"name\":\"x\"}, \"spec\":{\"s\":\"a \\\" } ] { [ \\\\\"}, \"kind\":\"Old\", \"kind\" : \"New\" } ,\n" +
		"\t{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"first\"},\"metadata\":{\"name\":\"y\"},\"n\":[1, 2.5e3, true, null]} ]"
	l, err := contract.DecodeList([]byte(data), contract.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 {
		t.Fatalf("%d items: %q", len(l.Items), l.Items)
	}
	if v, k := l.ItemType(0); v != "" || k != "New" {
		t.Errorf("item 0 type %q %q", v, k)
	}
	if v, k := l.ItemType(1); v != "v1" || k != "" {
		t.Errorf("item 1 type %q %q", v, k)
	}
	tm, err := contract.ItemMeta(l.Items[1])
	if err != nil || tm.Metadata.Name != "y" {
		t.Errorf("item 1 is %+v (%v): the last metadata counts, as encoding/json decodes it", tm, err)
	}
	if !strings.HasSuffix(string(l.Items[1]), `null]}`) || !strings.HasPrefix(string(l.Items[0]), `{"metadata"`) {
		t.Errorf("items %q", l.Items)
	}
}

// A member that occurs twice is read as encoding/json reads it, the last
// one, and the list says so: the members its readers use are named, with
// where they are.
func TestDecodeListDuplicateKeys(t *testing.T) {
	for _, c := range []struct {
		name, data string
		names      []string // the items' names, as read
		want       string   // DuplicateKeys' message, "" for nil
	}{
		{"two items", `{"kind":"PodList","items":[{"metadata":{"name":"first"}}],"items":[{"metadata":{"name":"second"}}]}`,
			[]string{"second"}, "duplicate keys items: the last of each is read, as encoding/json reads it"},
		{"escaped key", `{"kind":"PodList","items":[{"metadata":{"name":"a"}}],"it\u0065ms":[{"metadata":{"name":"b"}}]}`,
			[]string{"b"}, "duplicate keys items"},
		{"in items", `{"items":[{"metadata":{"name":"a"}},{"kind":"Pod","kind":"Pod","metadata":{"name":"b","name":"c"}}],"metadata":{"resourceVersion":"1","resourceVersion":"2"}}`,
			[]string{"a", "c"}, "duplicate keys items[1].kind, items[1].metadata.name, metadata.resourceVersion:"},
		{"array", `[{"metadata":{"namespace":"x","namespace":"y","name":"a"}}]`, []string{"a"}, "duplicate keys [0].metadata.namespace:"},
		{"single object", `{"metadata":{"name":"a"},"metadata":{"name":"b"}}`, []string{"b"}, "duplicate keys metadata:"},
		{"members no reader uses", `{"items":[{"metadata":{"name":"a"},"spec":1,"spec":2}],"x":1,"x":2}`, []string{"a"}, ""},
		{"many", `[` + strings.Repeat(`{"kind":"A","kind":"A","metadata":{"name":"a"}},`, 7) + `{"metadata":{"name":"z"}}]`,
			[]string{"a", "a", "a", "a", "a", "a", "a", "z"}, "[4].kind and 2 more:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := contract.DecodeList([]byte(c.data), contract.FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for i := range l.Items {
				_, name := l.ItemKey(i)
				names = append(names, name)
			}
			if strings.Join(names, ",") != strings.Join(c.names, ",") {
				t.Errorf("items %q, want %q", names, c.names)
			}
			err = l.DuplicateKeys()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("DuplicateKeys() = %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, contract.ErrDuplicateKeys)):
				t.Errorf("DuplicateKeys() = %v, want %q", err, c.want)
			}
		})
	}
}

func TestDecodeListKeepsItemBytes(t *testing.T) {
	item := `{"metadata":{"name":"a"},"spec":{"x":"<b>"}}`
	l, err := contract.DecodeList([]byte(`{"items":[`+item+`]}`), contract.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	if string(l.Items[0]) != item {
		t.Errorf("item bytes changed: %s", l.Items[0])
	}
}

func TestNotAListIsDistinguishable(t *testing.T) {
	_, err := contract.DecodeList([]byte(`"x"`), contract.FormatJSON)
	if !errors.Is(err, contract.ErrNotAList) {
		t.Errorf("err = %v, want ErrNotAList", err)
	}
}

// A name that is not UTF-8 is read as Kubernetes' decoder reads it, with
// U+FFFD for the bad bytes (found by FuzzDecodeList): the key that orders
// and names the item is the one its table and server see.
func TestDecodeListNotUTF8(t *testing.T) {
	l, err := contract.DecodeList([]byte("[{\"kind\":\"P\xffd\",\"metadata\":{\"name\":\"0\xe8\",\"namespace\":\"n\"}}]"), contract.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	ns, name := l.ItemKey(0)
	_, kind := l.ItemType(0)
	if name != "0\uFFFD" || ns != "n" || kind != "P\uFFFDd" {
		t.Errorf("read %q %q %q", ns, name, kind)
	}
}

// TestEntryDecodeList checks that a list read from a bundle decodes, and
// that a list that does not names its entry.
func TestEntryDecodeList(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"cluster-resources/pods/default.json": `{"kind":"PodList","items":[{"metadata":{"name":"a"}}]}`,
		"cluster-resources/pods/broken.json":  `{"kind":"PodList","items":[`,
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := contract.Open(dir, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	seen := 0
	err = b.Walk(func(e *contract.Entry) error {
		if e.Class.Class != contract.ClassResourceList {
			return nil
		}
		seen++
		l, err := e.DecodeList()
		var ee *contract.EntryError
		switch e.Rel {
		case "cluster-resources/pods/default.json":
			if err != nil || len(l.Items) != 1 {
				t.Errorf("%s: %v", e.Rel, err)
			}
		case "cluster-resources/pods/broken.json":
			if !errors.As(err, &ee) || ee.Entry != e.Name || !strings.Contains(err.Error(), "invalid JSON") {
				t.Errorf("%s: %v", e.Rel, err)
			}
		}
		return nil
	})
	if err != nil || seen != 2 {
		t.Fatalf("walk: %v, %d lists", err, seen)
	}
}
