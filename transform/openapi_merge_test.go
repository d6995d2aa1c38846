package transform

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/bundlectl/bundlectl/contract"
)

// The documents built one CRD at a time, merged encoded on stand-ins, are
// the documents the builder's merges make of every CRD's spec at once
// (builder.MergeSpecsV3 per group version, builder.MergeSpecs with the
// whole built-in v2 document decoded as the static spec). The CRDs of
// the live recordings conflict with 1.20's meta/v1 definitions, which
// the v2 merge renames (ObjectMeta_v2, ...) in the CRDs' references.
func TestCRDDocumentsAreTheBuildersMerge(t *testing.T) {
	for _, c := range []struct {
		minor   int
		renamed string
	}{{20, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta_v2"}, {pinnedMinor, ""}} {
		b, err := contract.Open(fmt.Sprintf("../testdata/live/1.%d/bundle.tar.gz", c.minor), contract.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		crds, problems := newCRDIndex(b.CRDList)
		b.Close()
		if len(problems) != 0 || len(crds.byResource) == 0 {
			t.Fatalf("1.%d: %d CRDs, %v", c.minor, len(crds.byResource), problems)
		}
		builtin, err := loadBuiltinOpenAPI(c.minor)
		if err != nil {
			t.Fatal(err)
		}
		gvs := map[schema.GroupVersion]bool{}
		for _, crd := range crds.all() {
			for _, v := range crd.Spec.Versions {
				gvs[schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}] = true
			}
		}

		// One at a time, encoded.
		v3 := map[schema.GroupVersion]*v3Merger{}
		merger := newV2Merger(builtin.v2)
		// At once, as the builder's values.
		v3Specs := map[schema.GroupVersion][]*spec3.OpenAPI{}
		var v2Specs []*spec.Swagger
		if problems := eachCRDSpec(crds, gvs, func(gv schema.GroupVersion, s *spec3.OpenAPI) {
			if v3[gv] == nil {
				v3[gv] = &v3Merger{}
			}
			v3[gv].add(s)
			v3Specs[gv] = append(v3Specs[gv], s)
		}, func(s *spec.Swagger) {
			if err := merger.add(s); err != nil {
				t.Fatal(err)
			}
			v2Specs = append(v2Specs, s)
		}); len(problems) != 0 {
			t.Fatal(problems)
		}

		for gv, m := range v3 {
			got, err := m.document()
			if err != nil {
				t.Fatal(err)
			}
			merged, err := builder.MergeSpecsV3(v3Specs[gv]...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(merged)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("1.%d %s: the v3 document is not the builder's merge", c.minor, gv)
			}
		}

		got, err := merger.document()
		if err != nil {
			t.Fatal(err)
		}
		static := &spec.Swagger{}
		if err := json.Unmarshal(builtin.v2, static); err != nil {
			t.Fatal(err)
		}
		merged, err := builder.MergeSpecs(static, v2Specs...)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(merged)
		if err != nil {
			t.Fatal(err)
		}
		var gotJSON, wantJSON any
		if err := json.Unmarshal(got, &gotJSON); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &wantJSON); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotJSON, wantJSON) {
			t.Errorf("1.%d: the v2 document is not the builder's merge", c.minor)
			for _, sec := range []string{"paths", "definitions", "parameters"} {
				g, _ := gotJSON.(map[string]any)[sec].(map[string]any)
				w, _ := wantJSON.(map[string]any)[sec].(map[string]any)
				for k := range w {
					if !reflect.DeepEqual(g[k], w[k]) {
						gb, _ := json.Marshal(g[k])
						wb, _ := json.Marshal(w[k])
						t.Logf("%s %s:\n got %.400s\nwant %.400s", sec, k, gb, wb)
					}
				}
				for k := range g {
					if _, ok := w[k]; !ok {
						t.Logf("%s %s: only ours", sec, k)
					}
				}
			}
		}
		if c.renamed != "" && !strings.Contains(string(got), `"$ref":"#/definitions/`+c.renamed+`"`) {
			t.Errorf("1.%d: no reference to %s: the case of a renaming merge is gone", c.minor, c.renamed)
		}
	}
}
