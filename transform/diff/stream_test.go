package diff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform/diff"
)

// editItems rewrites the items of the list rel of bundle dir with fn.
func editItems(t *testing.T, dir, rel string, fn func(items []map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Items      []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	fn(list.Items)
	if data, err = json.Marshal(list); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// changedExample is the example bundle with a Deployment's image changed,
// a label that holds characters a terminal acts on and characters
// encoding/json escapes for HTML, and its StorageClasses deleted.
func changedExample(t *testing.T) string {
	b := exampleCopy(t)
	editItems(t, b, "cluster-resources/deployments/shop.json", func(items []map[string]any) {
		spec := items[0]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		spec["containers"].([]any)[0].(map[string]any)["image"] = "registry.example.com/shop/api-gateway:5.1.0"
		items[1]["metadata"].(map[string]any)["labels"].(map[string]any)["note"] = "<b>&\u009b31m\u202eé"
	})
	none := `{"kind":"StorageClassList","apiVersion":"storage.k8s.io/v1","items":[]}`
	if err := os.WriteFile(filepath.Join(b, "cluster-resources", "storage-classes.json"), []byte(none), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// hourLater writes a generated bundle of pods pods and the same cluster
// an hour later (every object's times moved), with logs.
func hourLater(t *testing.T, pods int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	spec := contracttest.Small()
	spec.Pods, spec.Events = pods, 20
	a, b := filepath.Join(dir, "a.tar.gz"), filepath.Join(dir, "b.tar.gz")
	if _, err := contracttest.WriteBundleFile(a, spec); err != nil {
		t.Fatal(err)
	}
	spec.CollectedAt = spec.CollectedAt.Add(time.Hour)
	if _, err := contracttest.WriteBundleFile(b, spec); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// The report's JSON is written object by object from the temporary file,
// and is the very bytes encoding/json writes of the whole Report: with
// no object, with highlights and escaped strings, with the records past
// the sorters' budget, with the noise and the logs.
func TestStreamedJSONIsEncodingJSONs(t *testing.T) {
	example, changed := exampleCopy(t), changedExample(t)
	a, b := hourLater(t, 40)
	for name, o := range map[string]diff.Options{
		"equal":          {A: example, B: example},
		"changed":        {A: example, B: changed},
		"hour-later":     diff.WithRunBudget(diff.Options{A: a, B: b}, 20000),
		"all-and-logs":   {A: a, B: b, All: true, Logs: true},
		"one-namespace":  {A: example, B: changed, Namespace: "shop"},
		"reverse-change": {A: changed, B: example},
	} {
		t.Run(name, func(t *testing.T) {
			o.Log = io.Discard
			res, err := diff.Compare(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			var streamed, want bytes.Buffer
			if err := res.WriteJSON(&streamed); err != nil {
				t.Fatal(err)
			}
			whole, err := res.Whole()
			if err != nil {
				t.Fatal(err)
			}
			if name != "equal" && len(whole.Objects) == 0 {
				t.Fatal("no object differs: the case tests nothing")
			}
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(whole); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(streamed.Bytes(), want.Bytes()) {
				i := 0
				for i < min(streamed.Len(), want.Len()) && streamed.Bytes()[i] == want.Bytes()[i] {
					i++
				}
				t.Errorf("the streamed JSON (%d bytes) differs from encoding/json's (%d bytes) at byte %d:\n%s\nwant\n%s",
					streamed.Len(), want.Len(), i, around(streamed.Bytes(), i), around(want.Bytes(), i))
			}
		})
	}
}

func around(b []byte, i int) string {
	return string(b[max(0, i-200):min(len(b), i+200)])
}

// The temporary file that holds what grows with the report has no name
// from the start: nothing of the comparison is left in TMPDIR while the
// result is read, nor after.
func TestSpillIsNameless(t *testing.T) {
	example, changed := exampleCopy(t), changedExample(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	res, err := diff.Compare(context.Background(), diff.Options{A: example, B: changed, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	left := func(when string) {
		t.Helper()
		if entries, err := os.ReadDir(tmp); err != nil || len(entries) != 0 {
			t.Errorf("%s: TMPDIR holds %v (%v)", when, entries, err)
		}
	}
	left("with the result open")
	var out strings.Builder
	if err := res.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "api-gateway:5.1.0") {
		t.Errorf("the report read back lacks the change:\n%s", out.String())
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	left("once closed")
}

// An object of A that cannot be decoded (a number no float64 holds) once
// B's differs is warned of, naming its file and item, and reported as
// changed without its fields: the diff ends (it used to read both
// bundles again and again for the fields it could never list).
func TestUndecodableObjectOfA(t *testing.T) {
	a, b := exampleCopy(t), exampleCopy(t)
	rel := filepath.Join("cluster-resources", "configmaps", "shop.json")
	data, err := os.ReadFile(filepath.Join(a, rel))
	if err != nil {
		t.Fatal(err)
	}
	items := bytes.Index(data, []byte(`"items"`))
	meta := items + bytes.Index(data[items:], []byte(`"metadata"`))
	data = append(append(append([]byte{}, data[:meta]...), `"x": 1e999, `...), data[meta:]...)
	if err := os.WriteFile(filepath.Join(a, rel), data, 0o644); err != nil {
		t.Fatal(err)
	}
	editItems(t, b, rel, func(items []map[string]any) {
		items[0]["metadata"].(map[string]any)["labels"] = map[string]any{"changed": "yes"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := diff.Run(ctx, diff.Options{A: a, B: b, Kinds: []string{"configmaps"}, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if got := changes(rep); len(got) != 1 || got[0] != "changed ConfigMap shop/cart-redis" || len(rep.Objects[0].Fields) != 0 {
		t.Errorf("changes %v (%+v): want cart-redis changed, without fields", got, rep.Objects)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], rel+": item 0: ") || !strings.Contains(rep.Warnings[0], "1e999") {
		t.Errorf("warnings %q, want one naming %s, item 0", rep.Warnings, rel)
	}
}
