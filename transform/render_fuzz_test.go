package transform

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// fuzzKind is a resource the renderer can be asked for.
type fuzzKind struct {
	gvr    schema.GroupVersionResource
	kind   string
	custom bool
}

// fuzzKinds lists every built-in resource of the pinned release's
// discovery, sorted by group version and resource, then the custom
// resources of the example bundle's CRDs. A fuzz input's first value
// picks one of them.
func fuzzKinds(crds *crdIndex) []fuzzKind {
	var out []fuzzKind
	d := builtinDiscovery(pinnedMinor)
	gvs := make([]string, 0, len(d.Resources))
	for gv := range d.Resources {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	for _, gv := range gvs {
		g, err := schema.ParseGroupVersion(gv)
		if err != nil {
			continue
		}
		for _, r := range d.Resources[gv] {
			if r.Kind == "" || containsSlash(r.Name) {
				continue
			}
			out = append(out, fuzzKind{gvr: g.WithResource(r.Name), kind: r.Kind})
		}
	}
	var custom []fuzzKind
	for gr, c := range crds.byResource {
		for _, v := range c.crd.Spec.Versions {
			custom = append(custom, fuzzKind{gvr: gr.WithVersion(v.Name), kind: c.crd.Spec.Names.Kind, custom: true})
		}
	}
	sort.Slice(custom, func(i, j int) bool { return custom[i].gvr.String() < custom[j].gvr.String() })
	return append(out, custom...)
}

func containsSlash(s string) bool {
	for i := range len(s) {
		if s[i] == '/' {
			return true
		}
	}
	return false
}

// FuzzRenderTable renders a table for one arbitrary object of each
// built-in kind (and of the example bundle's custom resources), as the
// upgrade does for an item that decodes and has the kind its list says:
// whatever the object, rendering never panics, and a table it makes is a
// Table of one row. Seeds: every object of the example bundle, an object
// with little more than a name for every kind, and the inputs kept under
// testdata/fuzz/FuzzRenderTable (crashers found, now regressions).
func FuzzRenderTable(f *testing.F) {
	root := filepath.Join("..", "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	crdData, err := os.ReadFile(filepath.Join(root, contract.CRDListPath))
	if err != nil {
		f.Fatal(err)
	}
	crds, _ := newCRDIndex(crdData)
	kinds := fuzzKinds(crds)
	if len(kinds) < 50 {
		f.Fatalf("only %d kinds", len(kinds))
	}
	for i := range kinds {
		f.Add(uint16(i), []byte(`{"metadata":{"name":"x","namespace":"default","creationTimestamp":"2025-11-20T09:00:00Z","labels":{"a":"b"}}}`))
	}
	seeds := 0
	for _, seed := range exampleObjects(f, root, kinds) {
		f.Add(seed.kind, seed.item)
		seeds++
	}
	if seeds < 150 {
		f.Fatalf("only %d objects of the example bundle as seeds", seeds)
	}
	r := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), crds)
	f.Fuzz(func(t *testing.T, kind uint16, item []byte) {
		defer fuzzWatchdog(10 * time.Second)()
		k := kinds[int(kind)%len(kinds)]
		l, err := contract.DecodeList(append(append([]byte("["), item...), ']'), contract.FormatJSON)
		if err != nil || len(l.Items) != 1 {
			return
		}
		if _, itemKind := l.ItemType(0); itemKind != "" && itemKind != k.kind {
			return // refused by the kind check before rendering
		}
		data, conv, err := r.Render(List{GVR: k.gvr, Kind: k.kind, Custom: k.custom, Items: l.Items})
		if err != nil {
			return
		}
		var table metav1.Table
		if err := json.Unmarshal(data, &table); err != nil {
			t.Fatalf("%s (%s): the table is not JSON: %v\n%s", k.gvr, conv, err, data)
		}
		if table.Kind != "Table" || len(table.Rows) != 1 || len(table.ColumnDefinitions) == 0 {
			t.Fatalf("%s (%s): %d rows, %d columns: %s", k.gvr, conv, len(table.Rows), len(table.ColumnDefinitions), data)
		}
	})
}

type fuzzSeed struct {
	kind uint16
	item []byte
}

// exampleObjects returns every object of the example bundle's lists with
// the index of its kind in kinds: the realistic seeds the fuzzer mutates.
func exampleObjects(f *testing.F, root string, kinds []fuzzKind) []fuzzSeed {
	index := map[schema.GroupResource]uint16{}
	for i := len(kinds) - 1; i >= 0; i-- { // the first version of a resource wins
		index[kinds[i].gvr.GroupResource()] = uint16(i)
	}
	b, err := contract.Open(root, contract.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	defer b.Close()
	var seeds []fuzzSeed
	err = b.Walk(func(e *contract.Entry) error {
		if e.Class.Class != contract.ClassResourceList || !e.IsRegular() {
			return nil
		}
		k, ok := index[e.Class.GR]
		if !ok {
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			return err
		}
		for _, item := range l.Items {
			seeds = append(seeds, fuzzSeed{k, item})
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	return seeds
}

// fuzzWatchdog crashes the process when an input runs longer than d, so
// that the fuzzer keeps a hang as a failing input; call the function it
// returns when the input is done.
func fuzzWatchdog(d time.Duration) func() {
	timer := time.AfterFunc(d, func() { panic(fmt.Sprintf("one input ran over %v", d)) })
	return func() { timer.Stop() }
}
