package transform

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/util/jsonpath"
)

// nested is {"a":{"a":...{"a":"x"}}}, depth levels deep.
func nested(depth int) map[string]any {
	m := map[string]any{"a": "x"}
	for range depth {
		m = map[string]any{"a": m}
	}
	return m
}

// The cost model follows client-go's evaluation step by step: the values
// it counts are the values client-go returns, for every kind of step a
// printer column can hold (filters aside, which it counts as passing
// every element).
func TestJSONPathCostCountsWhatClientGoReturns(t *testing.T) {
	var custom map[string]any
	if err := json.Unmarshal([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"}},
		"spec":{"a":{"a":{"b":[{"a":1},{"a":{"a":"deep"}},"text",[],{}]}},"replicas":3,"list":[1,2,[3,4]]},
		"status":{"conditions":[{"type":"Ready","status":"True","message":"a long enough message"},{"type":"Synced","status":"False"}]}}`), &custom); err != nil {
		t.Fatal(err)
	}
	objects := map[string]map[string]any{"custom": custom, "nested": {"spec": nested(12)}}
	paths := []string{
		".spec.replicas", ".spec.a", ".spec..a", "..a", ".spec..a..a", ".spec..a..a..a", "..a..a..a..a",
		".status.conditions[*].type", ".status.conditions[0].status", ".status.conditions[-1:].type", ".status.conditions[0:2:2].type", ".spec.list[*][*]", ".spec.list[2][*]",
		".spec.*", "..[*]", ".spec..b[*]", ".metadata['name','labels']", ".spec..['a','b']", ".spec.missing..a",
		"..conditions[*].message", ".spec..list..[*]",
	}
	for name, obj := range objects {
		tree := newValueTree(obj)
		for _, path := range paths {
			p, err := jsonpath.Parse(path, "{"+path+"}")
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			j := jsonpath.New(path)
			j.AllowMissingKeys(true)
			if err := j.Parse("{" + path + "}"); err != nil {
				t.Fatal(err)
			}
			found, err := j.FindResults(obj)
			cost, got := jsonPathCost(p.Root.Nodes, tree)
			if err != nil {
				// The cell is empty; the count goes on, over the cost.
				if cost <= 0 {
					t.Errorf("%s on %s: cost %v", path, name, cost)
				}
				continue
			}
			want := 0
			for _, r := range found {
				want += len(r)
			}
			if int(got) != want {
				t.Errorf("%s on %s: counted %v results, client-go returns %d", path, name, got, want)
			}
			if cost <= 0 || cost > columnBudget(tree) {
				t.Errorf("%s on %s: cost %v, want within (0, %v]", path, name, cost, columnBudget(tree))
			}
		}
	}
}

// The hostile column of the hardening issue: three recursive descents on
// a spec nested 300 deep, which client-go evaluates for minutes, is over
// budget; at 12 deep it is well within.
func TestJSONPathCostPricesRecursiveDescents(t *testing.T) {
	p, err := jsonpath.Parse("deep", "{.spec..a..a..a}")
	if err != nil {
		t.Fatal(err)
	}
	for depth, over := range map[int]bool{12: false, 300: true} {
		tree := newValueTree(map[string]any{"spec": nested(depth)})
		cost, _ := jsonPathCost(p.Root.Nodes, tree)
		if (cost > columnBudget(tree)) != over {
			t.Errorf("depth %d: cost %.3g against a budget of %.3g; want over=%v", depth, cost, columnBudget(tree), over)
		}
	}
	// A long string is a container of characters to a recursive descent.
	tree := newValueTree(map[string]any{"spec": map[string]any{"a": strings.Repeat("x", 1000)}})
	p, _ = jsonpath.Parse("s", "{.spec..a}")
	if cost, _ := jsonPathCost(p.Root.Nodes, tree); cost < 1000 {
		t.Errorf("a 1000-character string costs %v to walk", cost)
	}
	if !walksRecursively(p.Root.Nodes) {
		t.Error("walksRecursively(.spec..a) = false")
	}
	p, _ = jsonpath.Parse("s", "{.status.conditions[?(@.type==\"Ready\")].status}")
	if walksRecursively(p.Root.Nodes) {
		t.Error("walksRecursively of a filter without a recursive descent = true")
	}
}

// FuzzJSONPathCost holds the cost model to client-go on any printer
// column and object: where the model prices the column within budget,
// client-go evaluates it in the time that budget stands for and returns
// as many values as the model counted (filters aside, which the model
// lets every element pass).
func FuzzJSONPathCost(f *testing.F) {
	for _, seed := range [][2]string{
		{".spec..a..a", `{"spec":{"a":{"a":{"a":[1,{"a":2}]}}}}`},
		{".status.conditions[-1:].type", `{"status":{"conditions":[{"type":"A"},{"type":"B"}]}}`},
		{".metadata['name','uid']", `{"metadata":{"name":"n","uid":"u"}}`},
		{"..[*]", `{"a":["xy",{"b":[]}]}`},
		{".spec.list[0:3:2]", `{"spec":{"list":[1,2,3,4]}}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, path, object string) {
		var obj any
		if json.Unmarshal([]byte(object), &obj) != nil {
			return
		}
		p, err := jsonpath.Parse("fuzz", "{"+path+"}")
		if err != nil || strings.Contains(path, "?") || literal(p.Root.Nodes) {
			return
		}
		tree := newValueTree(obj)
		cost, counted := jsonPathCost(p.Root.Nodes, tree)
		if cost > columnBudget(tree) {
			return
		}
		defer fuzzWatchdog(10 * time.Second)()
		j := jsonpath.New("fuzz")
		j.AllowMissingKeys(true)
		if err := j.Parse("{" + path + "}"); err != nil {
			t.Fatalf("parses once, not twice: %v", err)
		}
		found, err := j.FindResults(obj)
		if err != nil {
			return // the cell is empty; the model's count is an overestimate
		}
		n := 0
		for _, r := range found {
			n += len(r)
		}
		// The count is exact where the path has no literals (the model
		// prices those, but does not follow them).
		if float64(n) != counted {
			t.Errorf("%s on %s: counted %v, client-go returns %d", path, object, counted, n)
		}
	})
}

// literal reports whether a path has a literal or identifier step
// outside filters: a value of the path's own, not of the object.
func literal(nodes []jsonpath.Node) bool {
	for _, n := range nodes {
		switch n := n.(type) {
		case *jsonpath.ListNode:
			if literal(n.Nodes) {
				return true
			}
		case *jsonpath.UnionNode:
			for _, l := range n.Nodes {
				if literal(l.Nodes) {
					return true
				}
			}
		case *jsonpath.TextNode, *jsonpath.IntNode, *jsonpath.FloatNode, *jsonpath.BoolNode, *jsonpath.IdentifierNode:
			return true
		}
	}
	return false
}
