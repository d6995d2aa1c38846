package transform

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// annotatedClasses is a list of StorageClasses annotated default, created
// a day apart, the last the newest.
func annotatedClasses(names ...string) List {
	l := List{GVR: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}, Kind: "StorageClass"}
	for i, n := range names {
		l.Items = append(l.Items, json.RawMessage(fmt.Sprintf(`{"metadata":{"name":%q,"creationTimestamp":"2025-01-%02dT00:00:00Z",`+
			`"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"p"}`, n, i+1)))
	}
	return l
}

func cellNames(rows []rankedCandidate) []string {
	var out []string
	for _, c := range rows {
		out = append(out, c.row.Cells[0].(string)+"|"+c.top.Cells[0].(string))
	}
	return out
}

// Every annotated class is a candidate; they rank newest first; a ranking
// the printers do not hold to is refused.
func TestRankChecksWhatThePrintersDo(t *testing.T) {
	r := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), nil)
	cands, err := r.candidates(annotatedClasses("x", "y", "z"), printerStorage)
	if err != nil {
		t.Fatal(err)
	}
	if got := cellNames(cands); !slices.Equal(got, []string{"x|x (default)", "y|y (default)", "z|z (default)"}) {
		t.Fatalf("candidates %q", got)
	}
	ranked, err := r.rank(slices.Clone(cands))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, row := range ranked.Rows {
		order = append(order, row.Name)
	}
	if !slices.Equal(order, []string{"z", "y", "x"}) {
		t.Errorf("ranked %q", order)
	}
	for name, tamper := range map[string]struct {
		change func([]rankedCandidate)
		want   string
	}{
		// z's top row is another's: listed with any other, it shows neither.
		"wrong top row": {func(c []rankedCandidate) { c[2].top = c[0].top }, "listed with 1 others, z shows neither its row alone nor its row in a list of itself"},
		// x's row alone is its top row: listed with another, both show their top rows.
		"not a candidate": {func(c []rankedCandidate) { c[0].top = c[0].row }, "listed together, 2 of 2 objects show their top rows"},
	} {
		bad := slices.Clone(cands)
		tamper.change(bad)
		if _, err := r.rank(bad); err == nil || !strings.Contains(err.Error(), tamper.want) {
			t.Errorf("%s: %v, want %q", name, err, tamper.want)
		}
	}
	many := make([]rankedCandidate, maxRankedRows+1)
	for i := range many {
		many[i] = cands[0]
		many[i].name = fmt.Sprint(i)
	}
	if _, err := r.rank(many); err == nil || !strings.Contains(err.Error(), "more than 1000 objects") {
		t.Errorf("%d candidates: %v", len(many), err)
	}
}
