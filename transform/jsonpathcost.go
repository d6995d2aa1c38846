package transform

import (
	"k8s.io/client-go/util/jsonpath"
)

// A CRD printer column is a JSONPath that client-go evaluates on every
// custom resource, and a recursive descent ("..") in it walks the whole
// subtree of every value it starts from, keeping every container it
// meets. Two or more in a row multiply: `.spec..a..a..a` on a spec nested
// 300 deep keeps the evaluation busy for minutes and gigabytes, with no
// way to stop it (the apiserver, which would evaluate it the same way,
// accepts both the CRD and the object). So before evaluating such a
// column on an object, its cost is counted exactly as client-go's
// evaluation would spend it, but on counts instead of values: in time
// linear in the object's size, whatever the path.

// maxColumnCost bounds the work of one column on one object, in the
// units jsonPathCost counts (a container visited or a value copied):
// here about a fifth of a second of client-go's evaluation. A path with
// one recursive descent costs a few times the object's size, so the
// bound grows with the object (columnBudget); printer columns of real
// CRDs cost a few thousand.
const maxColumnCost = 1_000_000

// columnBudget is the work allowed for one column on an object of this
// tree.
func columnBudget(t *valueTree) float64 {
	return max(maxColumnCost, 64*float64(len(t.parent)))
}

// walksRecursively reports whether the parsed path holds a recursive
// descent anywhere, the only step whose cost can grow faster than the
// object.
func walksRecursively(nodes []jsonpath.Node) bool {
	for _, n := range nodes {
		switch n := n.(type) {
		case *jsonpath.RecursiveNode:
			return true
		case *jsonpath.ListNode:
			if walksRecursively(n.Nodes) {
				return true
			}
		case *jsonpath.UnionNode:
			for _, l := range n.Nodes {
				if walksRecursively(l.Nodes) {
					return true
				}
			}
		case *jsonpath.FilterNode:
			if walksRecursively(n.Left.Nodes) || walksRecursively(n.Right.Nodes) {
				return true
			}
		}
	}
	return false
}

// valueTree is an object as client-go's JSONPath sees it, flattened in
// depth-first order: each value with its parent, depth and children.
// A string's characters are its children (the evaluation iterates
// them), counted but not stored.
type valueTree struct {
	parent   []int32
	depth    []int32
	width    []int32 // children: members, elements or characters
	children [][]int32
	keys     [][]string // member names of an object, beside children
	isList   []bool
}

func newValueTree(obj any) *valueTree {
	t := &valueTree{}
	t.add(obj, -1, 0)
	return t
}

func (t *valueTree) add(v any, parent, depth int32) int32 {
	i := int32(len(t.parent))
	t.parent = append(t.parent, parent)
	t.depth = append(t.depth, depth)
	t.width = append(t.width, 0)
	t.children = append(t.children, nil)
	t.keys = append(t.keys, nil)
	_, isList := v.([]any)
	t.isList = append(t.isList, isList)
	switch v := v.(type) {
	case map[string]any:
		t.width[i] = int32(len(v))
		kids, keys := make([]int32, 0, len(v)), make([]string, 0, len(v))
		for k, m := range v {
			keys = append(keys, k)
			kids = append(kids, t.add(m, i, depth+1))
		}
		t.children[i], t.keys[i] = kids, keys
	case []any:
		t.width[i] = int32(len(v))
		kids := make([]int32, 0, len(v))
		for _, e := range v {
			kids = append(kids, t.add(e, i, depth+1))
		}
		t.children[i] = kids
	case string:
		t.width[i] = int32(len(v))
	}
	return i
}

// jsonPathCost is the work client-go's JSONPath spends evaluating the
// parsed path on obj, counted on weights (how many times each value
// stands in the current results) instead of on the values themselves.
// The count grows with the path, never with the weights, so a path that
// would run for minutes is priced in microseconds. results is how many
// values the evaluation would return.
func jsonPathCost(nodes []jsonpath.Node, t *valueTree) (cost, results float64) {
	w := make([]float64, len(t.parent))
	w[0] = 1
	for _, wi := range t.walk(nodes, w, &cost) {
		results += wi
	}
	return cost, results
}

// walk applies each node to the weights in place of the values.
func (t *valueTree) walk(nodes []jsonpath.Node, w []float64, cost *float64) []float64 {
	for _, n := range nodes {
		w = t.step(n, w, cost)
	}
	return w
}

func (t *valueTree) step(n jsonpath.Node, w []float64, cost *float64) []float64 {
	out := make([]float64, len(w))
	switch n := n.(type) {
	case *jsonpath.ListNode:
		return t.walk(n.Nodes, w, cost)
	case *jsonpath.FieldNode:
		for i, wi := range w {
			if wi == 0 {
				continue
			}
			*cost += wi
			for j, k := range t.keys[i] {
				if k == n.Value {
					out[t.children[i][j]] += wi
				}
			}
		}
	case *jsonpath.RecursiveNode:
		t.descend(w, out, cost)
	case *jsonpath.UnionNode:
		for _, l := range n.Nodes {
			for i, wi := range t.walk(l.Nodes, w, cost) {
				out[i] += wi
			}
		}
	case *jsonpath.FilterNode:
		// Every element is tested with both sides of the filter; the
		// elements that pass are a part of all of them.
		elems := t.elements(w, cost)
		t.walk(n.Left.Nodes, elems, cost)
		t.walk(n.Right.Nodes, elems, cost)
		return elems
	case *jsonpath.ArrayNode:
		for i, wi := range w {
			if wi == 0 {
				continue
			}
			*cost += wi
			if !t.isList[i] {
				continue // client-go fails the path here; counting on is an overestimate
			}
			kids := t.children[i]
			for _, k := range arrayIndexes(n.Params, len(kids)) {
				out[kids[k]] += wi
			}
		}
	case *jsonpath.WildcardNode:
		return t.elements(w, cost)
	default:
		// Literals and identifiers: one value for each input.
		for _, wi := range w {
			*cost += wi
		}
	}
	return out
}

// elements are the children of every weighted value, at its weight.
func (t *valueTree) elements(w []float64, cost *float64) []float64 {
	out := make([]float64, len(w))
	for i, wi := range w {
		if wi == 0 {
			continue
		}
		*cost += wi * float64(1+t.width[i])
		for _, c := range t.children[i] {
			out[c] += wi
		}
	}
	return out
}

// descend is evalRecursive: from each weighted value, every non-empty
// container of its subtree (itself included) is visited, its children
// iterated, and kept; the list of what a subtree kept is copied once into
// each level above it up to the starting value. In depth-first order a
// value's ancestors come first, so one pass sums, for every value, the
// weights of the values it is reached from (a) and their depths (b).
func (t *valueTree) descend(w, out []float64, cost *float64) {
	a := make([]float64, len(w))
	b := make([]float64, len(w))
	for i := range w {
		if p := t.parent[i]; p >= 0 {
			a[i], b[i] = a[p], b[p]
		}
		a[i] += w[i]
		b[i] += w[i] * float64(t.depth[i])
		if a[i] == 0 || t.width[i] == 0 {
			continue
		}
		out[i] = a[i]
		*cost += a[i]*float64(t.width[i]) + a[i]*float64(t.depth[i]+1) - b[i]
	}
}

// arrayIndexes are the elements client-go's evalArray picks of a list of
// n: [start:end:step], negative indexes from the end; none where it would
// fail.
func arrayIndexes(params [3]jsonpath.ParamsEntry, n int) []int {
	start, end, step := 0, n, 1
	if params[0].Known {
		start = params[0].Value
	}
	if start < 0 {
		start += n
	}
	if params[1].Known {
		end = params[1].Value
	}
	if end < 0 || (end == 0 && params[1].Derived) {
		end += n
	}
	if params[2].Known {
		step = params[2].Value
	}
	if start == end || start < 0 || start >= n || end < 0 || end > n || start > end || step <= 0 {
		return nil
	}
	var out []int
	for i := start; i < end; i += step {
		out = append(out, i)
	}
	return out
}
