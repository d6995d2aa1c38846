package transform

import (
	"context"
	"encoding/json"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// List is one raw list of a bundle, decoded far enough to render it.
type List struct {
	GVR             schema.GroupVersionResource
	Kind            string
	Custom          bool
	ResourceVersion string
	Items           []json.RawMessage
	// Key is the storage key (namespace/name) of item i, which orders
	// the rows; read from the items when nil.
	Key func(i int) string
	// ItemGVKs is the type of each item where some item says it is of
	// another version or kind than the list; nil when all are alike.
	ItemGVKs []schema.GroupVersionKind
	// Warn, when set, is told of what the table leaves out without
	// failing: cells of a CRD printer column too costly to evaluate.
	Warn func(error)
	// ReadDefaulted, when set, is told that the server's read path
	// changed an object (readDefaults): the list is not served as stored.
	ReadDefaulted func()
	// ranked, when set, gathers the objects whose rows depend on the
	// rest of the list (rankedrows.go); alone renders the one item as a
	// single GET does, not as a list.
	ranked *rankedSet
	alone  bool
}

// eachChunk calls fn with the items of l in storage order, r.chunk at a
// time; cancelling ctx stops it between chunks.
func (r *Renderer) eachChunk(ctx context.Context, l List, fn func(List) error) error {
	order := storageOrder(l)
	for start := 0; start < len(l.Items); start += r.chunk {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		end := min(start+r.chunk, len(l.Items))
		chunk := l.slice(start, end)
		if order != nil {
			chunk = l.subset(order[start:end])
		}
		if err := fn(chunk); err != nil {
			return err
		}
	}
	return nil
}

// storageOrder lists the items' indexes in the order the server lists
// them, etcd key order (the bytes of namespace/name), or returns nil when
// they are in that order already: the server wrote the lists a bundle
// holds, so that a million items cost no index each.
func storageOrder(l List) []int {
	key := l.Key
	if key == nil {
		keys := make([]string, len(l.Items))
		for i, it := range l.Items {
			if tm, err := contract.ItemMeta(it); err == nil {
				keys[i] = storageKeyOf(tm.Metadata.Namespace, tm.Metadata.Name)
			}
		}
		key = func(i int) string { return keys[i] }
	}
	sorted := true
	for i := 1; i < len(l.Items) && sorted; i++ {
		sorted = key(i-1) <= key(i)
	}
	if sorted {
		return nil
	}
	order := make([]int, len(l.Items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return key(order[a]) < key(order[b]) })
	return order
}

// slice is the list of the items from start to end, in that order.
func (l List) slice(start, end int) List {
	sub := l
	sub.Items, sub.Key = l.Items[start:end:end], nil
	if l.ItemGVKs != nil {
		sub.ItemGVKs = l.ItemGVKs[start:end:end]
	}
	return sub
}

// subset is the list of the items at the given indexes, in that order.
func (l List) subset(idx []int) List {
	sub := l
	sub.Items, sub.Key, sub.ItemGVKs = make([]json.RawMessage, len(idx)), nil, nil
	if l.ItemGVKs != nil {
		sub.ItemGVKs = make([]schema.GroupVersionKind, len(idx))
	}
	for j, i := range idx {
		sub.Items[j] = l.Items[i]
		if l.ItemGVKs != nil {
			sub.ItemGVKs[j] = l.ItemGVKs[i]
		}
	}
	return sub
}

// readAs is the list with its items of kind from read as of kind as.
func (l List) readAs(from, as schema.GroupVersionKind) List {
	read := l
	read.GVR.Version = as.Version
	if l.ItemGVKs != nil {
		read.ItemGVKs = slices.Clone(l.ItemGVKs)
		for i, gvk := range read.ItemGVKs {
			if gvk == from {
				read.ItemGVKs[i] = as
			}
		}
	}
	return read
}
