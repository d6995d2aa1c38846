package transform

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// columnTimeBudget is what rendering one object may take, whatever its
// CRD's printer column: generous, so that a slow machine does not fail
// the fuzzer, and far below the minutes a priced column would cost.
const columnTimeBudget = 2 * time.Second

// FuzzCRDPrinterColumns renders the table of one arbitrary custom
// resource under a CRD with one arbitrary printer column (JSONPath, type
// and format), as the upgrade does: it never panics, it takes under
// columnTimeBudget, and unless the column was priced over its budget
// (and reported) every cell but a date's is the apiextensions table
// convertor's own. Date cells are ages, which the renderer computes as
// of the collection time rather than now; a recursive descent's cell is
// whichever match Go's map order gives first, on the server too.
func FuzzCRDPrinterColumns(f *testing.F) {
	for _, seed := range []struct{ path, typ, format, object string }{
		{".spec..a..a..a", "string", "", `{"metadata":{"name":"deep"},"spec":{"a":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300) + `}}`},
		{".spec.replicas", "integer", "int32", `{"metadata":{"name":"r"},"spec":{"replicas":3}}`},
		{".spec.ratio", "number", "float", `{"metadata":{"name":"r"},"spec":{"ratio":0.5}}`},
		{".metadata.creationTimestamp", "date", "", `{"metadata":{"name":"d","creationTimestamp":"2025-11-20T09:00:00Z"}}`},
		{`.status.conditions[?(@.type=="Ready")].status`, "string", "", `{"metadata":{"name":"c"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`},
		{".spec.flag", "boolean", "", `{"metadata":{"name":"b"},"spec":{"flag":true}}`},
		{"..name", "string", "name", `{"metadata":{"name":"n"},"spec":{"items":[{"name":"x"},{"name":"y"}]}}`},
		{".spec[", "string", "", `{"metadata":{"name":"bad"}}`},
	} {
		f.Add(seed.path, seed.typ, seed.format, []byte(seed.object))
	}
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	f.Fuzz(func(t *testing.T, path, typ, format string, object []byte) {
		defer fuzzWatchdog(10 * time.Second)()
		col := apiextensionsv1.CustomResourceColumnDefinition{Name: "Col", Type: typ, Format: format, JSONPath: path}
		crd, err := json.Marshal(map[string]any{"kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1", "items": []any{map[string]any{
			"metadata": map[string]any{"name": "widgets.example.com"},
			"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
				"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
				"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
					"schema":                   map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
					"additionalPrinterColumns": []any{col}}}}}}})
		if err != nil {
			return
		}
		crds, problems := newCRDIndex(crd)
		if len(problems) > 0 {
			return
		}
		l, err := contract.DecodeList(append(append([]byte("["), object...), ']'), contract.FormatJSON)
		if err != nil || len(l.Items) != 1 {
			return
		}
		if _, kind := l.ItemType(0); kind != "" && kind != "Widget" {
			return // refused by the kind check before rendering
		}
		reported := false
		r := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), crds)
		start := time.Now()
		data, _, err := r.Render(List{GVR: gvr, Kind: "Widget", Custom: true, Items: l.Items, Warn: func(error) { reported = true }})
		if took := time.Since(start); took > columnTimeBudget {
			t.Fatalf("column %q on a %d-byte object took %v", path, len(object), took)
		}
		if err != nil || reported {
			return
		}
		var table metav1.Table
		if err := json.Unmarshal(data, &table); err != nil || len(table.Rows) != 1 {
			t.Fatalf("not a table of one row: %v\n%s", err, data)
		}
		// The apiextensions server's own convertor on the object as its
		// storage decodes it.
		list, err := unstructuredList(List{GVR: gvr, Kind: "Widget", Custom: true, Items: l.Items})
		if err != nil {
			t.Fatalf("rendered an object that does not decode: %v", err)
		}
		conv, _ := tableconvertor.New([]apiextensionsv1.CustomResourceColumnDefinition{col})
		want, err := conv.ConvertToTable(context.Background(), list, nil)
		if err != nil {
			t.Fatalf("the renderer made a table, the convertor: %v", err)
		}
		wantJSON, err := json.Marshal(want.Rows[0].Cells)
		if err != nil {
			t.Fatal(err)
		}
		var wantCells []any
		if err := json.Unmarshal(wantJSON, &wantCells); err != nil {
			t.Fatal(err)
		}
		got := table.Rows[0].Cells
		if len(got) != len(wantCells) {
			t.Fatalf("%d cells, the convertor's %d: %v, %v", len(got), len(wantCells), got, wantCells)
		}
		for i, def := range want.ColumnDefinitions {
			if def.Type == "date" {
				continue
			}
			if i > 0 && strings.Contains(path, "..") {
				// A recursive descent walks maps in Go's map order
				// (client-go's evalRecursive ranges over MapKeys), so
				// which match comes first, and is printed, differs from
				// run to run on the server as here.
				continue
			}
			if !reflect.DeepEqual(got[i], wantCells[i]) {
				t.Errorf("column %q (%s): cell %#v, the convertor's %#v", def.Name, path, got[i], wantCells[i])
			}
		}
	})
}
