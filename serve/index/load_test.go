package index

import (
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

func TestDecodeObject(t *testing.T) {
	for _, tc := range []struct {
		in, body, meta string
	}{
		{`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{}}`, `{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{}}`, `{"name":"a","labels":{"x":"y"}}`},
		{`{"metadata":{"name":"b"},"kind":"Pod"}`, `{"metadata":{"name":"b"}}`, `{"name":"b"}`},
		{`{"spec":{"kind":"x","s":"}\"{"},"metadata":{"name":"c\"d"},"apiVersion":"v1"}`, `{"spec":{"kind":"x","s":"}\"{"},"metadata":{"name":"c\"d"}}`, `{"name":"c\"d"}`},
		{`{"metadata":{"name":"e","namespace":"n"}}`, `{"metadata":{"name":"e","namespace":"n"}}`, `{"name":"e","namespace":"n"}`},
	} {
		o, _, err := decodeObject([]byte(tc.in), false, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if string(o.Item) != tc.body || string(o.Metadata()) != tc.meta {
			t.Errorf("%s: body %s meta %s", tc.in, o.Item, o.Metadata())
		}
	}
	o, ty, _ := decodeObject([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"k":"v","k":"w","n":null}}}`), false, "list")
	if ty.kind != "Pod" || ty.apiVersion != "v1" || o.Name() != "a" || o.Namespace() != "ns" || o.Key != "ns/a" || o.ResourceVersion != "7" {
		t.Errorf("identity %+v %+v", o, ty)
	}
	// Labels are read as encoding/json decodes them: the last of a
	// repeated key, null as "".
	if v, ok := o.labels().Lookup("k"); v != "w" || !ok || !o.labels().Has("n") || o.labels().Get("n") != "" || o.labels().Has("x") {
		t.Errorf("labels %s: k is %q, %v", o.labels(), v, ok)
	}
	if o, _, _ := decodeObject([]byte(`{"metadata":{"name":"a"}}`), false, "list"); o.Key != "list/a" || o.Namespace() != "list" {
		t.Errorf("without a namespace: key %q", o.Key)
	}
	for _, bad := range []string{`{"kind":"Pod"}`, `{"metadata":{"namespace":"x"}}`, `{"metadata":"x"}`,
		`{"metadata":{"name":"a","labels":{"k":1}}}`, `{"metadata":{"name":"a","labels":["k"]}}`} {
		if _, _, err := decodeObject([]byte(bad), false, ""); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestLoadProblems(t *testing.T) {
	files := servetest.Small()
	files["cluster-resources/configmaps/broken.json"] = []byte(`{"kind":"ConfigMapList","items":[{"metadata":`)
	files["cluster-resources/jobs/default.json"] = []byte(`{"kind":"JobList","apiVersion":"batch/v1","items":[{"metadata":{"name":"j"}}]}`)
	x := load(t, files.WriteDir(t, t.TempDir()))
	w := strings.Join(x.Warnings, "\n")
	if !strings.Contains(w, "cluster-resources/configmaps/broken.json") || !strings.Contains(w, "jobs.batch is not in discovery") {
		t.Errorf("warnings:\n%s", w)
	}
	// The rest of the bundle is served.
	if n := len(x.resources[servetest.ConfigMapsGVR.GroupResource()].objects); n != 2 {
		t.Errorf("configmaps %d", n)
	}
}

// A name that is not UTF-8 is served as Kubernetes' decoder reads it,
// with U+FFFD for the bad bytes, so a field selector on metadata.name
// matches what the contract computes from the decoded object (found by
// FuzzSelectors).
func TestNamesThatAreNotUTF8(t *testing.T) {
	o, _, err := decodeObject([]byte("{\"metadata\":{\"name\":\"0\xe8\",\"namespace\":\"n\xff\",\"resourceVersion\":\"\xfe7\"}}"), false, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.Name() != "0\uFFFD" || o.Namespace() != "n\uFFFD" || o.ResourceVersion != "\uFFFD7" {
		t.Errorf("read %q %q %q", o.Name(), o.Namespace(), o.ResourceVersion)
	}
}

// An object is rewritten in the file's own buffer: a custom resource
// that starts with its type as the server writes it is kept as it is,
// any other loses its type in place. Nothing is copied, so a large
// object costs its size once.
func TestDecodeObjectInPlace(t *testing.T) {
	for _, tc := range []struct {
		in     string
		custom bool
		typed  bool
		body   string
	}{
		{`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`, true, true, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`},
		{`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w"},"spec":{}}`, true, false, `{"metadata":{"name":"w"},"spec":{}}`},
		{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{}}`, false, false, `{"metadata":{"name":"p"},"spec":{}}`},
	} {
		in := []byte(tc.in)
		o, ty, err := decodeObject(in, tc.custom, "")
		if err != nil {
			t.Fatal(err)
		}
		if ty.typed != tc.typed || string(o.Item) != tc.body || &o.Item[0] != &in[0] {
			t.Errorf("%s: typed %v, body %s (in place: %v)", tc.in, ty.typed, o.Item, &o.Item[0] == &in[0])
		}
		if meta := string(o.Metadata()); !strings.HasPrefix(meta, `{"name":`) {
			t.Errorf("%s: metadata %s", tc.in, meta)
		}
	}
}
