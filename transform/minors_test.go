package transform_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/transform"
)

// printersDir holds the objects TestMinorTables renders (inputs.json.gz)
// and, per minor, the tables that minor's own printers made of them
// (1.NN.json.gz, written by scripts/minor-printers.sh).
const printersDir = "../testdata/printers"

// minorInputs is inputs.json.gz: the lists of every kind the printers (or,
// for CustomResourceDefinitions, the default convertor before 1.37)
// render, from the example bundle and objects.yaml, one list per
// resource with its items in storage order.
type minorInputs struct {
	CollectedAt time.Time   `json:"collectedAt"`
	Lists       []minorList `json:"lists"`
}

type minorList struct {
	Resource   string            `json:"resource"`
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

func (l minorList) render(t *testing.T, at time.Time, minor string) (*metav1.Table, transform.Convertor) {
	t.Helper()
	gv, err := schema.ParseGroupVersion(l.APIVersion)
	if err != nil {
		t.Fatal(err)
	}
	gr := schema.ParseGroupResource(l.Resource)
	data, conv, err := transform.NewRenderer(at, nil).ForMinor(minor).Render(transform.List{GVR: gv.WithResource(gr.Resource), Kind: l.Kind, Items: l.Items})
	if err != nil {
		t.Fatalf("%s for %s: %v", l.Resource, minor, err)
	}
	var table metav1.Table
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	return &table, conv
}

// readMinorInputs gathers the inputs from their sources.
func readMinorInputs(t *testing.T) minorInputs {
	t.Helper()
	b, err := contract.Open(exampleBundle, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	collected, err := b.CollectedAt()
	if err != nil {
		t.Fatal(err)
	}
	at := collected.CollectedAt
	lists := map[string]*minorList{}
	add := func(gvr schema.GroupVersionResource, kind string, items ...json.RawMessage) {
		key := gvr.GroupResource().String()
		l := lists[key]
		if l == nil {
			l = &minorList{Resource: key, APIVersion: gvr.GroupVersion().String(), Kind: kind}
			lists[key] = l
		}
		l.Items = append(l.Items, items...)
	}
	err = b.Walk(func(e *contract.Entry) error {
		if !b.IsListOfRecord(e) || e.Class.Custom {
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			return err
		}
		add(contract.ListGVR(e.Class, l), contract.ListKind(e.Class, l), l.Items...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := os.ReadFile(filepath.Join(printersDir, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(extra), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("objects.yaml: %v", err)
		}
		if u.Object == nil {
			continue
		}
		gvk := u.GroupVersionKind()
		gvr, _ := meta.UnsafeGuessKindToResource(gvk)
		raw, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		add(gvr, gvk.Kind, raw)
	}
	in := minorInputs{CollectedAt: at}
	for _, l := range lists {
		sortStorageOrder(t, l.Items)
		// Only what the printers (of any minor: some kinds are gone from
		// the pin) or, for CRDs, apiextensions render.
		for m := contract.MinorNumber(contract.OldestMinor); m <= contract.MinorNumber(contract.PinnedMinor); m++ {
			if _, conv := l.render(t, at, fmt.Sprintf("1.%d", m)); conv == transform.ConvertorPrinters || conv == transform.ConvertorDefinitions {
				in.Lists = append(in.Lists, *l)
				break
			}
		}
	}
	sort.Slice(in.Lists, func(i, j int) bool { return in.Lists[i].Resource < in.Lists[j].Resource })
	return in
}

func sortStorageOrder(t *testing.T, items []json.RawMessage) {
	t.Helper()
	keys := make([]string, len(items))
	for i, it := range items {
		m, err := contract.ItemMeta(it)
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = m.Metadata.Namespace + "/" + m.Metadata.Name
	}
	sort.Sort(byKey{keys, items})
}

type byKey struct {
	keys  []string
	items []json.RawMessage
}

func (b byKey) Len() int           { return len(b.keys) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
	b.items[i], b.items[j] = b.items[j], b.items[i]
}

// recordedTables is a 1.NN.json.gz.
type recordedTables struct {
	Kubernetes string                   `json:"kubernetes"`
	Tables     map[string]*metav1.Table `json:"tables"`
}

// TestMinorTables renders the same objects as every supported minor's
// own printers did (recorded by scripts/minor-printers.sh from that
// release's k8s.io/kubernetes) and compares the tables: columns by name,
// type, format, priority and description, and every cell and row
// condition.
func TestMinorTables(t *testing.T) {
	in := readMinorInputs(t)
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	inputsPath := filepath.Join(printersDir, "inputs.json.gz")
	if testenv.Update() {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(inputsPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s; record the tables with make record-printers", inputsPath)
	}
	if recorded, err := readGzip(inputsPath); err != nil || !bytes.Equal(recorded, data) {
		t.Fatalf("%s is not what the example bundle and objects.yaml make (%v): go test -run %s -update, then make record-printers", inputsPath, err, t.Name())
	}
	for m := contract.MinorNumber(contract.OldestMinor); m <= contract.MinorNumber(contract.PinnedMinor); m++ {
		minor := fmt.Sprintf("1.%d", m)
		t.Run(minor, func(t *testing.T) {
			rec := readRecorded(t, minor)
			if len(rec.Tables) == 0 {
				t.Fatalf("%s.json.gz holds no table", minor)
			}
			for _, l := range in.Lists {
				want, ok := rec.Tables[l.Resource]
				if !ok {
					continue // the release has no such kind, or no printer for it
				}
				got, conv := l.render(t, in.CollectedAt, minor)
				if l.Kind == "CustomResourceDefinition" && conv == transform.ConvertorDefinitions && minor == contract.PinnedMinor {
					continue // recorded with the default convertor; the pinned apiextensions renders them
				}
				compareTables(t, l.Resource, want, got)
			}
		})
	}
}

func readRecorded(t *testing.T, minor string) recordedTables {
	t.Helper()
	path := filepath.Join(printersDir, minor+".json.gz")
	data, err := readGzip(path)
	if err != nil {
		t.Fatalf("%v (make record-printers writes it)", err)
	}
	var rec recordedTables
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(zr)
}

func compareTables(t *testing.T, resource string, want, got *metav1.Table) {
	t.Helper()
	columns := func(tb *metav1.Table) []string {
		var out []string
		for _, c := range tb.ColumnDefinitions {
			out = append(out, fmt.Sprintf("%s:%s:%s:%d:%q", c.Name, c.Type, c.Format, c.Priority, c.Description))
		}
		return out
	}
	if w, g := columns(want), columns(got); !reflect.DeepEqual(w, g) {
		t.Errorf("%s: columns\n got %v\nwant %v", resource, g, w)
		return
	}
	if len(want.Rows) != len(got.Rows) {
		t.Errorf("%s: %d rows, want %d", resource, len(got.Rows), len(want.Rows))
		return
	}
	for i := range want.Rows {
		w, g := jsonValue(t, want.Rows[i].Cells), jsonValue(t, got.Rows[i].Cells)
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s row %d: cells\n got %v\nwant %v", resource, i, g, w)
		}
		if wc, gc := jsonValue(t, want.Rows[i].Conditions), jsonValue(t, got.Rows[i].Conditions); !reflect.DeepEqual(wc, gc) {
			t.Errorf("%s row %d: conditions\n got %v\nwant %v", resource, i, gc, wc)
		}
	}
}

// jsonValue is v as JSON reads it back, so that cells compare as the
// bytes a client reads.
func jsonValue(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUpgradeChoosesMinor checks where the minor comes from, and that the
// tables follow it: the example bundle's cluster_version.json says
// v1.35.4 and its nodes' kubelets v1.35.4.
func TestUpgradeChoosesMinor(t *testing.T) {
	withoutVersion := filepath.Join(t.TempDir(), "support-bundle-2025-11-20T10_00_00")
	if err := os.CopyFS(withoutVersion, os.DirFS(exampleBundle)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(withoutVersion, contract.ClusterVersionPath)); err != nil {
		t.Fatal(err)
	}
	withoutNodes := filepath.Join(t.TempDir(), "support-bundle-2025-11-20T10_00_00")
	if err := os.CopyFS(withoutNodes, os.DirFS(withoutVersion)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(withoutNodes, "cluster-resources", "nodes.json")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, bundle, flag       string
		minor, source            string
		note, problem, saSecrets bool
	}{
		{name: "cluster_version", bundle: exampleBundle, minor: "1.35", source: transform.VersionFromClusterVersion},
		{name: "flag", bundle: exampleBundle, flag: "v1.31.14", minor: "1.31", source: transform.VersionFromFlag, saSecrets: true},
		{name: "newer than the pin", bundle: exampleBundle, flag: "v1.40.0", minor: contract.PinnedMinor, source: transform.VersionFromFlag, note: true},
		{name: "kubelets", bundle: withoutVersion, minor: "1.35", source: transform.VersionFromKubelets, problem: true},
		{name: "unknown", bundle: withoutNodes, minor: contract.PinnedMinor, problem: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "upgraded.tar")
			sum, err := transform.Upgrade(context.Background(), transform.Options{Source: tc.bundle, Dest: out, KubeVersion: tc.flag, Limits: contract.DefaultLimits})
			if err != nil {
				t.Fatal(err)
			}
			if sum.RenderedFor != tc.minor || sum.RenderedForSource != tc.source || (sum.RenderedForNote != "") != tc.note {
				t.Errorf("rendered for %q from %q (note %q), want %q from %q (a note: %v)", sum.RenderedFor, sum.RenderedForSource, sum.RenderedForNote, tc.minor, tc.source, tc.note)
			}
			versionProblem := false
			for _, p := range sum.Problems {
				versionProblem = versionProblem || p.Path == contract.ClusterVersionPath
			}
			if versionProblem != tc.problem {
				t.Errorf("problems %+v: want one about the version: %v", sum.Problems, tc.problem)
			}
			sa := renderTables(t, out)
			hasSecrets := bytes.Contains(sa, []byte("== cluster-resources/serviceaccounts/default.table.json\n   Name:string:name | Secrets:string | Age:string\n"))
			if hasSecrets != tc.saSecrets {
				t.Errorf("serviceaccounts table has a Secrets column: %v, want %v", hasSecrets, tc.saSecrets)
			}
		})
	}
}
