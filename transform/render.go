package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Convertor names the upstream code that renders a table, as reported in
// the upgrade summary.
type Convertor string

const (
	ConvertorPrinters   Convertor = "printers"
	ConvertorCRD        Convertor = "crd"
	ConvertorDefault    Convertor = "default"
	ConvertorAggregator Convertor = "aggregator"
)

// List is one raw list of a bundle, decoded far enough to render it.
type List struct {
	GVR             schema.GroupVersionResource
	Kind            string
	Custom          bool
	ResourceVersion string
	Items           []json.RawMessage
}

// Renderer renders the Table a kube-apiserver of the pinned release would
// have returned for a list, as of the collection time.
type Renderer struct {
	at   time.Time
	crds *crdIndex
}

// NewRenderer renders tables as of collectedAt, with the CRDs of the bundle.
func NewRenderer(collectedAt time.Time, crds *crdIndex) *Renderer {
	return &Renderer{at: collectedAt.Truncate(time.Second), crds: crds}
}

// Render returns the table's JSON as the server writes it (encoding/json,
// HTML escaping on, a trailing newline), with row objects as the server's
// default includeObject=Metadata makes them.
func (r *Renderer) Render(l List) ([]byte, Convertor, error) {
	table, conv, err := r.table(l)
	if err != nil {
		return nil, conv, err
	}
	// The server's codec sets the type when it encodes.
	table.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("Table"))
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(table); err != nil {
		return nil, conv, fmt.Errorf("encoding the table: %w", err)
	}
	return buf.Bytes(), conv, nil
}

func (r *Renderer) table(l List) (*metav1.Table, Convertor, error) {
	gr := l.GVR.GroupResource()
	switch {
	case l.Custom:
		if crd, ok := r.crds.lookup(gr); ok {
			t, err := r.customTable(l, crd)
			return t, ConvertorCRD, err
		}
	case storageConvertors[gr] == ConvertorAggregator:
		t, err := r.internalTable(l, aggregatorStorage)
		return t, ConvertorAggregator, err
	case storageConvertors[gr] == "":
		gvk := l.GVR.GroupVersion().WithKind(l.Kind)
		if _, withPrinter, ok := newInternalList(gvk); ok && withPrinter {
			t, err := r.internalTable(l, printerStorage)
			return t, ConvertorPrinters, err
		}
	}
	t, err := r.defaultTable(l)
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
	for i, raw := range l.Items {
		obj, _, err := s.decoder.Decode(raw, &gvk, nil)
		if err != nil {
			return nil, itemError(i, raw, err)
		}
		items = append(items, obj)
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
	for _, obj := range inList {
		partial, err := partialOf(obj)
		if err != nil {
			return nil, err
		}
		partials[obj] = partial.DeepCopy()
	}
	var table *metav1.Table
	err = r.asOfCollection(func(c clock) error {
		c.shiftObject(list)
		var err error
		table, err = s.convert(list)
		return err
	})
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
		c = clock{at: c.now, now: time.Now()}
	}
}

// customTable renders custom resources with the CRD's printer columns for
// the version they are stored at, as the apiextensions server does.
func (r *Renderer) customTable(l List, crd *crdInfo) (*metav1.Table, error) {
	conv, dateColumns, err := crd.convertor(l.GVR.Version)
	if err != nil {
		return nil, err
	}
	list, err := unstructuredList(l)
	if err != nil {
		return nil, err
	}
	table, err := conv.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		return nil, err
	}
	if len(dateColumns) > 0 {
		// Date cells are ages: render them from a copy whose timestamps
		// are moved, and keep every other cell from the original.
		var shifted *metav1.Table
		moved := list.DeepCopy()
		err := r.asOfCollection(func(c clock) error {
			for i := range moved.Items {
				c.shiftJSON(moved.Items[i].Object)
			}
			var err error
			shifted, err = conv.ConvertToTable(context.Background(), moved, nil)
			return err
		})
		if err != nil {
			return nil, err
		}
		for i := range table.Rows {
			for _, col := range dateColumns {
				// A column whose JSONPath did not parse ended the columns.
				if col < len(table.Rows[i].Cells) {
					table.Rows[i].Cells[col] = shifted.Rows[i].Cells[col]
				}
			}
		}
	}
	return table, partialRows(table)
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

func storageKey(m metav1.Object) string {
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
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
