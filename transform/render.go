package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/bundlectl/bundlectl/contract"
)

// Convertor names the upstream code that renders a table, as reported in
// the upgrade summary.
type Convertor string

const (
	ConvertorPrinters   Convertor = "printers"
	ConvertorCRD        Convertor = "crd"
	ConvertorDefault    Convertor = "default"
	ConvertorAggregator Convertor = "aggregator"
	// ConvertorDefinitions is apiextensions' convertor of CRDs themselves.
	ConvertorDefinitions Convertor = "apiextensions"
)

// Renderer renders the Table a kube-apiserver of a release would have
// returned for a list, as of the collection time.
type Renderer struct {
	at   time.Time
	crds *crdIndex
	// minor is the Kubernetes minor ("1.31" is 31) whose server's
	// tables are rendered (minors.go).
	minor int
	// chunk is how many objects are decoded and rendered at a time.
	chunk int
}

// defaultChunk bounds the objects decoded at once, so that memory follows
// the size of the raw list rather than of its decoded objects. Rows do not
// depend on each other, except for the printers' FlowSchema list, which
// sorts (a cluster has a few dozen), and the ranked rows (rankedrows.go),
// which serve takes from their own file: of more than a chunk of them,
// the stored table marks the top-ranked of each chunk.
const defaultChunk = 256

// NewRenderer renders tables as of collectedAt, with the CRDs of the
// bundle, as the pinned release's server does.
func NewRenderer(collectedAt time.Time, crds *crdIndex) *Renderer {
	return &Renderer{at: collectedAt.Truncate(time.Second), crds: crds, minor: pinnedMinor, chunk: defaultChunk}
}

// ForMinor renders as the server of minor ("1.31", from OldestMinor to
// PinnedMinor) does instead.
func (r *Renderer) ForMinor(minor string) *Renderer {
	r.minor = contract.MinorNumber(minor)
	return r
}

// Render returns the table's JSON as the server writes it (encoding/json,
// HTML escaping on, a trailing newline), with row objects as the server's
// default includeObject=Metadata makes them.
func (r *Renderer) Render(l List) ([]byte, Convertor, error) {
	var buf bytes.Buffer
	conv, err := r.RenderTo(context.Background(), &buf, l)
	return buf.Bytes(), conv, err
}

// RenderTo writes what Render returns to w. Items are rendered in storage
// order a chunk at a time, each chunk's rows written as they come, which
// gives the bytes of encoding the whole table at once. On an error, what
// was written is to be thrown away. Cancelling ctx stops the rendering
// between chunks, and between objects of a costly CRD column.
func (r *Renderer) RenderTo(ctx context.Context, w io.Writer, l List) (Convertor, error) {
	if len(l.Items) == 0 {
		table, conv, err := r.table(ctx, l)
		if err != nil {
			return conv, err
		}
		data, err := encodeTable(table)
		if err == nil {
			_, err = w.Write(data)
		}
		return conv, err
	}
	out := tableEncoder{w: w, nullCreation: r.minor <= lastMinorWithNullCreation}
	var conv Convertor
	err := r.eachChunk(ctx, l, func(chunk List) error {
		table, c, err := r.table(ctx, chunk)
		conv = c
		if err == nil {
			err = out.add(table)
		}
		return err
	})
	if err != nil {
		return conv, err
	}
	return conv, out.finish()
}

func (r *Renderer) table(ctx context.Context, l List) (*metav1.Table, Convertor, error) {
	gr := l.GVR.GroupResource()
	switch {
	case l.Custom:
		if crd, ok := r.crds.lookup(gr); ok {
			t, err := r.customTable(ctx, l, crd)
			describeNameForMinor(r.minor, t)
			return t, ConvertorCRD, err
		}
	case storageConvertors[gr] == ConvertorAggregator:
		t, err := r.internalTable(l, aggregatorStorage)
		describeNameForMinor(r.minor, t)
		return t, ConvertorAggregator, err
	case storageConvertors[gr] == ConvertorDefinitions && r.minor >= definitionColumnsSince:
		t, err := r.internalTable(l, definitionStorage)
		return t, ConvertorDefinitions, err
	case storageConvertors[gr] == "":
		gvk := l.GVR.GroupVersion().WithKind(l.Kind)
		// First: the minor's own printer of a kind the pin has with other fields.
		if k, ok := removedKindFor(gvk.GroupKind(), r.minor); ok {
			t, err := r.removedTable(l, k)
			return t, ConvertorPrinters, err
		}
		if _, withPrinter, ok := newInternalList(gvk); ok && withPrinter {
			t, err := r.internalTable(l, printerStorage)
			return t, ConvertorPrinters, err
		}
		if as, ok := readableVersion(gvk); ok && as != gvk {
			if _, withPrinter, _ := newInternalList(as); withPrinter {
				// Read where the pin has the kind; a list those fields
				// do not fit is left to the default convertor below.
				if t, err := r.internalTable(l.readAs(gvk, as), printerStorage); err == nil {
					return t, ConvertorPrinters, nil
				}
			}
		}
	}
	t, err := r.defaultTable(l)
	describeNameForMinor(r.minor, t)
	return t, ConvertorDefault, err
}

// internalTable decodes every item to its internal version, as the
// server's storage does, and renders the list as that storage does.
func (r *Renderer) internalTable(l List, s internalStorage) (*metav1.Table, error) {
	gvk := l.GVR.GroupVersion().WithKind(l.Kind)
	list, err := s.newList(gvk)
	if err != nil {
		return nil, err
	}
	items := make([]runtime.Object, 0, len(l.Items))
	rawOf := make(map[runtime.Object]json.RawMessage, len(l.Items))
	for i, raw := range l.Items {
		itemGVK := gvk
		if l.ItemGVKs != nil {
			itemGVK = l.ItemGVKs[i]
		}
		obj, err := s.decode(raw, itemGVK)
		if err != nil {
			return nil, itemError(i, raw, err)
		}
		if readDefaults(obj, r.minor) && l.ReadDefaulted != nil {
			l.ReadDefaulted()
		}
		items = append(items, obj)
		rawOf[obj] = raw
	}
	sortStorageOrder(items)
	if err := meta.SetList(list, items); err != nil {
		return nil, err
	}
	if err := setListVersion(list, l.ResourceVersion); err != nil {
		return nil, err
	}
	// The list now holds copies; the convertor sees pointers to them.
	inList, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	partials := make(map[runtime.Object]*metav1.PartialObjectMetadata, len(inList))
	// Each copy's item as the bundle holds it, for the cells of older
	// minors that read a field the pinned version dropped.
	raws := make(map[runtime.Object]json.RawMessage, len(inList))
	for i, obj := range inList {
		partial, err := partialOf(obj)
		if err != nil {
			return nil, err
		}
		partials[obj] = detach(partial)
		raws[obj] = rawOf[items[i]]
		if s.printers {
			metadataForMinor(r.minor, strings.TrimSuffix(kindOf(list), "List"), partials[obj], raws[obj])
		}
	}
	dependent := false
	convert := func() (table *metav1.Table, err error) {
		table, dependent, err = r.convertInternal(s, l, list, inList, raws)
		return table, err
	}
	var table *metav1.Table
	if s.absoluteTimes {
		table, err = convert()
	} else {
		err = r.asOfCollection(func(c clock) error {
			c.shiftObject(list)
			var err error
			table, err = convert()
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		partial, ok := partials[row.Object.Object]
		if !ok {
			return nil, fmt.Errorf("row %d has no object of the list", i)
		}
		row.Object.Object = partial
	}
	if dependent {
		l.ranked.add(r.candidates(l, s))
	}
	return table, nil
}

// asOfCollection runs render with a clock whose shifted timestamps stay
// right long enough; a render that took longer (a slow machine, a long
// pause) is run again with the timestamps moved on to a fresh wall clock.
// render must shift the same objects each time: the moves add up.
func (r *Renderer) asOfCollection(render func(clock) error) error {
	c := newClock(r.at)
	for attempt := 0; ; attempt++ {
		if err := render(c); err != nil {
			return err
		}
		if time.Since(c.now) < maxRenderTime {
			return nil
		}
		if attempt == 4 {
			return fmt.Errorf("rendering took over %v five times; ages could be off by a second", maxRenderTime)
		}
		// Already-shifted times sit at the start of their second
		// relative to c.now; moving them from c.now to a new now keeps that.
		c = newClock(c.now)
	}
}

// customTable renders custom resources with the CRD's printer columns for
// the version they are stored at, as the apiextensions server does.
func (r *Renderer) customTable(ctx context.Context, l List, crd *crdInfo) (*metav1.Table, error) {
	vc, err := crd.convertor(l.GVR.Version)
	if err != nil {
		return nil, err
	}
	list, err := unstructuredList(l)
	if err != nil {
		return nil, err
	}
	table, err := r.convertCustom(ctx, l, crd, vc, list, true)
	if err != nil {
		return nil, err
	}
	if len(vc.dates) > 0 {
		// Date cells are ages: render them from a copy whose timestamps
		// are moved, and keep every other cell from the original.
		var shifted *metav1.Table
		moved := list.DeepCopy()
		err := r.asOfCollection(func(c clock) error {
			for i := range moved.Items {
				c.shiftJSON(moved.Items[i].Object)
			}
			var err error
			shifted, err = r.convertCustom(ctx, l, crd, vc, moved, false)
			return err
		})
		if err != nil {
			return nil, err
		}
		for i := range table.Rows {
			for _, col := range vc.dates {
				// A column whose JSONPath did not parse ended the columns.
				if col < len(table.Rows[i].Cells) {
					table.Rows[i].Cells[col] = shifted.Rows[i].Cells[col]
				}
			}
		}
	}
	return table, partialRows(table)
}

// convertCustom is the server's convertor, except that the cell of a
// costly column whose price on an object is over budget (jsonPathCost)
// is left empty, as a path that finds nothing, and reported (when
// report): the server would have spent minutes on it, and bundlectl
// would not stop for Ctrl-C. Objects of such columns are converted one
// at a time, to stop between them when ctx is cancelled.
func (r *Renderer) convertCustom(ctx context.Context, l List, crd *crdInfo, vc versionConvertor, list *unstructured.UnstructuredList, report bool) (*metav1.Table, error) {
	if len(vc.costly) == 0 {
		return vc.conv.ConvertToTable(ctx, list, nil)
	}
	one := &unstructured.UnstructuredList{Object: list.Object}
	table, err := vc.conv.ConvertToTable(ctx, one, nil)
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		item := &list.Items[i]
		tree := newValueTree(item.Object)
		var skip []costlyColumn
		for _, col := range vc.costly {
			cost, _ := jsonPathCost(col.nodes, tree)
			budget := columnBudget(tree)
			if cost <= budget {
				continue
			}
			skip = append(skip, col)
			if report && l.Warn != nil {
				l.Warn(fmt.Errorf("%s %s: printer column %q (jsonPath %s) would take about %.2g steps to evaluate on it, over the %.2g allowed; its cell is left empty, where the server would not have answered in time",
					l.GVR.GroupResource(), storageKey(item), col.def.Name, col.def.JSONPath, cost, budget))
			}
		}
		conv := vc.conv
		if len(skip) > 0 {
			conv = crd.without(l.GVR.Version, skip)
		}
		one.Items = list.Items[i : i+1]
		t, err := conv.ConvertToTable(ctx, one, nil)
		if err != nil {
			return nil, err
		}
		for _, row := range t.Rows {
			for _, col := range skip {
				row.Cells[col.cell] = nil
			}
			table.Rows = append(table.Rows, row)
		}
	}
	return table, nil
}

// defaultTable is the apiserver's default convertor: Name and the
// absolute creation time, for kinds without printers.
func (r *Renderer) defaultTable(l List) (*metav1.Table, error) {
	list, err := unstructuredList(l)
	if err != nil {
		return nil, err
	}
	table, err := rest.NewDefaultTableConvertor(l.GVR.GroupResource()).ConvertToTable(context.Background(), list, nil)
	if err != nil {
		return nil, err
	}
	return table, partialRows(table)
}

func unstructuredList(l List) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Items: make([]unstructured.Unstructured, len(l.Items))}
	apiVersion := l.GVR.GroupVersion().String()
	for i, raw := range l.Items {
		// util/json keeps integers as int64, as the server's storage does,
		// which the CRD convertor's integer and string columns depend on.
		var obj map[string]interface{}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return nil, itemError(i, raw, err)
		}
		u := unstructured.Unstructured{Object: obj}
		// Legacy lists leave the type of their items out.
		if u.GetAPIVersion() == "" {
			u.SetAPIVersion(apiVersion)
		}
		if u.GetKind() == "" && l.Kind != "" {
			u.SetKind(l.Kind)
		}
		list.Items[i] = u
	}
	sort.SliceStable(list.Items, func(i, j int) bool {
		return storageKey(&list.Items[i]) < storageKey(&list.Items[j])
	})
	list.SetResourceVersion(l.ResourceVersion)
	return list, nil
}

// partialRows replaces each row's object by its PartialObjectMetadata, as
// the server's handler does for includeObject=Metadata.
func partialRows(table *metav1.Table) error {
	for i := range table.Rows {
		partial, err := partialOf(table.Rows[i].Object.Object)
		if err != nil {
			return err
		}
		table.Rows[i].Object.Object = partial
	}
	return nil
}

func partialOf(obj runtime.Object) (*metav1.PartialObjectMetadata, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	partial := meta.AsPartialObjectMetadata(m)
	partial.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
	return partial, nil
}

// detach makes a row's metadata, a copy of its object's, safe from the
// clock, which moves the object's times before the table is made
// (shiftObject): it sets new values, which a copy does not see, except
// in the managed fields, whose slice the copy shares and whose times it
// replaces in place. Cloning that slice is all a deep copy would do for
// the rows (TestDetachedMetadataSharesNoTime holds ObjectMeta to it), at
// a fraction of its cost: the deep copy was 2% of an upgrade's CPU.
func detach(p *metav1.PartialObjectMetadata) *metav1.PartialObjectMetadata {
	p.ManagedFields = slices.Clone(p.ManagedFields)
	return p
}

func setListVersion(list runtime.Object, rv string) error {
	m, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	m.SetResourceVersion(rv)
	return nil
}

// sortStorageOrder puts objects in the order the server lists them: etcd
// key order, the bytes of namespace/name.
func sortStorageOrder(objs []runtime.Object) {
	keys := make(map[runtime.Object]string, len(objs))
	for _, o := range objs {
		if m, err := meta.Accessor(o); err == nil {
			keys[o] = storageKey(m)
		}
	}
	sort.SliceStable(objs, func(i, j int) bool { return keys[objs[i]] < keys[objs[j]] })
}

func storageKey(m metav1.Object) string { return storageKeyOf(m.GetNamespace(), m.GetName()) }

func storageKeyOf(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// itemError names the item a decoding error is about. Decoders quote the
// whole object in some errors; a summary line keeps only the start.
func itemError(i int, raw []byte, err error) error {
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	var id struct {
		Metadata struct{ Name, Namespace string }
	}
	if json.Unmarshal(raw, &id) == nil && id.Metadata.Name != "" {
		if id.Metadata.Namespace != "" {
			return fmt.Errorf("item %d (%s/%s): %s", i, id.Metadata.Namespace, id.Metadata.Name, msg)
		}
		return fmt.Errorf("item %d (%s): %s", i, id.Metadata.Name, msg)
	}
	return fmt.Errorf("item %d: %s", i, msg)
}
