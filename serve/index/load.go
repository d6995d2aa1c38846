package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// ErrLegacyBundle is returned by Load for a bundle without
// _meta/discovery.json: it must be upgraded first, and serve cannot do it
// (the upgrade needs k8s.io/kubernetes, which serve never imports).
var ErrLegacyBundle = errors.New("bundle is legacy (it has no " + contract.DiscoveryPath() + ")")

// Load reads a bundle of the contract into an Index. Files that cannot be
// read as what their path says are reported in Index.Warnings, not fatal,
// so that one bad file does not hide a whole bundle.
func Load(ctx context.Context, b *contract.Bundle) (*Index, error) {
	d, err := b.Discovery()
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, ErrLegacyBundle
	}
	x := &Index{Name: b.Path, Discovery: d, CollectedAt: d.CollectedTime()}
	for _, w := range b.Warnings { // what the archive holds besides the bundle
		if w.Path != b.Path {
			w.Message = w.Path + ": " + w.Message
		}
		x.Warnings = append(x.Warnings, w.Message)
	}
	for _, err := range d.Invalid {
		x.Warnings = append(x.Warnings, contract.DiscoveryPath()+": "+err.Error())
	}
	if err := x.setVersion(b); err != nil {
		return nil, err
	}
	l := newLoader(x, b)
	if err := l.walk(ctx); err != nil {
		l.logs.close()
		return nil, err
	}
	x.logs = l.logs
	l.assemble()
	if x.discovery, err = buildDiscovery(d, x.Version, x.customResources); err == nil {
		x.openapi, err = buildOpenAPI(x, l.openapiV3, l.openapiV2)
	}
	if err != nil {
		x.Close()
		return nil, err
	}
	return x, nil
}

// unknownVersion is what /version says of a bundle that does not tell.
const unknownVersion = "v0.0.0-unknown"

// setVersion answers /version from cluster-info/cluster_version.json when
// the bundle has it (it holds the build details), else from discovery.
func (x *Index) setVersion(b *contract.Bundle) error {
	v, err := b.ServerVersion()
	if err != nil {
		x.Warnings = append(x.Warnings, err.Error())
	}
	if v != nil {
		x.Version = *v
		return nil
	}
	if x.Discovery.KubernetesVersion == "" {
		// Nothing in the bundle tells; say so rather than refuse to serve.
		x.Warnings = append(x.Warnings, fmt.Sprintf("the bundle does not tell its Kubernetes version (no %s, empty kubernetesVersion); /version answers %s", contract.ClusterVersionPath, unknownVersion))
		x.Version.GitVersion, x.Version.Major, x.Version.Minor = unknownVersion, "0", "0"
		return nil
	}
	x.Version.GitVersion = x.Discovery.KubernetesVersion
	major, minor, _ := strings.Cut(strings.TrimPrefix(x.Discovery.KubernetesVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	x.Version.Major, x.Version.Minor = major, minor
	return nil
}

// loadedList is one raw list file, decoded.
type loadedList struct {
	rel    string
	key    contract.ListKey
	gvr    schema.GroupVersionResource
	kind   string
	custom bool
	// converted is set for a list the upgrade converted to another
	// group version (contract.Classification.Converted).
	converted bool
	// noItems: the file was an empty list without items (contract.List.NoItems).
	noItems bool
	objects []*Object
	// types are the distinct types the items state, the first none;
	// typeOf is each item's index in types, nil when no item states one
	// (built-in lists, as the server writes them).
	types  []itemType
	typeOf []int32
}

// typeOf is the type item i states.
func (l *loadedList) typeOfItem(i int) itemType {
	if l.typeOf == nil {
		return itemType{}
	}
	return l.types[l.typeOf[i]]
}

// itemType is the type an item states, possibly "", kept while loading:
// discovery says how it is served. typed: the item starts with the type a
// custom resource is served with.
type itemType struct {
	apiVersion, kind string
	typed            bool
}

// loadedTable is one stored Table file, decoded.
type loadedTable struct {
	key     contract.ListKey
	columns []byte
	rows    []loadedRow
}

// loadedRow is a row and the identity of its object, which pairs them at
// load; only the row, kept in its table's array of rows, is served.
type loadedRow struct {
	name, namespace string
	hasObject       bool
	row             *TableRow
}

type loader struct {
	x    *Index
	b    *contract.Bundle
	logs *logStore

	mu         sync.Mutex
	lists      []*loadedList
	tables     []*loadedTable
	selectable map[schema.GroupVersionResource][]string
	ranked     map[schema.GroupResource]loadedRanked
	// openapiV3 are the OpenAPI v3 documents by path under /openapi/v3/,
	// openapiV2 the v2 document; both as stored.
	openapiV3 map[string][]byte
	openapiV2 []byte
	warnings  []string
	// logPods are the names of the pods a log of the bundle can belong
	// to (contract.LogPodNames): the others' containers are not read.
	logPods map[string]bool
}

func newLoader(x *Index, b *contract.Bundle) *loader {
	return &loader{x: x, b: b, logs: newLogStore(), selectable: map[schema.GroupVersionResource][]string{}, openapiV3: map[string][]byte{},
		ranked:  map[schema.GroupResource]loadedRanked{},
		logPods: contract.LogPodNames(b.Names)}
}

func (l *loader) warn(rel string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.warnings = append(l.warnings, fmt.Sprintf("%s: %v", rel, err))
}

// job is a file read by the walker and decoded by a worker: the archive is
// a stream, so reading is sequential, but decoding JSON is the expensive
// part and runs on every core.
type job struct {
	rel   string
	class contract.Classification
	data  []byte
}

func (l *loader) walk(ctx context.Context) error {
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				l.decode(j)
			}
		}()
	}
	err := l.b.Walk(func(e *contract.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.InRoot {
			return nil
		}
		if e.Superseded {
			// An extracted bundle holds the last copy; so does the index.
			if e.HasContent() {
				l.warn(e.Rel, errors.New("the entry occurs more than once in the archive; the last copy is served"))
			}
			return nil
		}
		if f, ok := contract.LogFileOf(e); ok {
			return l.logs.add(e, f)
		}
		c := e.Class
		switch c.Class {
		case contract.ClassResourceList:
			if !l.b.IsListOfRecord(e) {
				return nil
			}
		case contract.ClassTable:
			if !e.HasContent() {
				return nil
			}
			return l.readTable(e)
		case contract.ClassSelectableFields, contract.ClassOpenAPIV3, contract.ClassOpenAPIV2, contract.ClassRankedRows:
			if !e.HasContent() {
				return nil
			}
		default:
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			// A file over the decode limit is skipped; a broken archive
			// stream ends the load, as in contract.Inspect.
			if local := e.LocalError(err); local != nil {
				l.warn(e.Rel, local)
				return nil
			}
			return err
		}
		jobs <- job{rel: e.Rel, class: c, data: data}
		return nil
	})
	close(jobs)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("loading %s: %w", l.b.Path, err)
	}
	return l.logs.mapLogs()
}

// readTable decodes a stored table as it is read (decodeTableFile),
// while the workers decode lists: a file that is not a table is
// reported, one that the archive cuts short ends the load.
func (l *loader) readTable(e *contract.Entry) error {
	r, err := e.Open()
	var t *loadedTable
	if err == nil {
		t, err = decodeTableFile(r)
	}
	var ee *contract.EntryError
	if errors.As(err, &ee) {
		if local := e.LocalError(err); local != nil {
			l.warn(e.Rel, local)
			return nil
		}
		return err
	}
	if err != nil {
		l.warn(e.Rel, err)
		return nil
	}
	t.key = e.Class.Key
	l.mu.Lock()
	l.tables = append(l.tables, t)
	l.mu.Unlock()
	return nil
}

func (l *loader) decode(j job) {
	switch j.class.Class {
	case contract.ClassResourceList:
		list, err := l.decodeListFile(j.rel, j.data, j.class)
		if err != nil {
			l.warn(j.rel, err)
			return
		}
		l.mu.Lock()
		l.lists = append(l.lists, list)
		l.mu.Unlock()
	case contract.ClassSelectableFields:
		gvr, ok := contract.ParseSelectableFieldsName(j.rel)
		if !ok {
			l.warn(j.rel, errors.New("file name is not {group}.{version}.{resource}.json"))
			return
		}
		labels, err := contract.ParseSelectableFieldsFile(j.data)
		if err != nil {
			l.warn(j.rel, err)
			return
		}
		l.mu.Lock()
		l.selectable[gvr] = labels
		l.mu.Unlock()
	case contract.ClassOpenAPIV3, contract.ClassOpenAPIV2:
		l.addOpenAPI(j)
	case contract.ClassRankedRows:
		l.addRanked(j)
	}
}

// addOpenAPI keeps an OpenAPI document as stored, so that its hash is the
// one the live server published; a file that is not a JSON object is not
// served.
func (l *loader) addOpenAPI(j job) {
	data := bytes.TrimSpace(j.data)
	if len(data) == 0 || data[0] != '{' || !rawjson.Valid(data) {
		l.warn(j.rel, errors.New("not a JSON object; not served"))
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if j.class.Class == contract.ClassOpenAPIV2 {
		l.openapiV2 = j.data
		return
	}
	p, _ := contract.OpenAPIV3DocPath(j.rel)
	l.openapiV3[p] = j.data
}

// decodeListFile reads every legacy shape (through the contract) and
// keeps each item as compact JSON without its kind and apiVersion, which
// are added back per response as the real server does. Duplicate keys
// are read as the contract reads them, the last one, so that what is
// served is what the tables were made from; the file is reported.
func (l *loader) decodeListFile(rel string, data []byte, c contract.Classification) (*loadedList, error) {
	list, err := contract.DecodeList(data, c.Format)
	if err != nil {
		return nil, err
	}
	kinds, err := contract.NewKindCheck(c, list.Kind)
	if err != nil {
		return nil, err
	}
	if err := list.DuplicateKeys(); err != nil {
		l.warn(rel, err)
	}
	out := &loadedList{rel: rel, key: c.Key, gvr: contract.ListGVR(c, list), kind: contract.ListKind(c, list), custom: c.Custom, converted: c.Converted, noItems: list.NoItems}
	if out.gvr.Group == "" && out.gvr.Resource == "pods" && !c.Converted {
		l.logs.addPods(contract.PodsOf(list, l.logPods))
	}
	out.objects = make([]*Object, 0, len(list.Items))
	out.types = []itemType{{}}
	typeIndex := map[itemType]int32{{}: 0}
	for i, it := range list.Items {
		// Each item is compacted in place, in the file's own buffer: the
		// objects are slices of it, so a file costs its size once, one
		// large object included, and one allocation.
		o, t, err := decodeObject(rawjson.AppendCompact(it[:0:len(it)], it), c.Custom, c.Key.Namespace)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		if err := kinds.Item(i, t.kind); err != nil {
			return nil, err
		}
		meta, problems := serverMeta(o.Metadata(), c.Custom)
		if len(problems) > 0 {
			l.warn(rel, fmt.Errorf("item %d (%s): %s: left out of its metadata", i, o.Name(), strings.Join(problems, "; ")))
		}
		if meta != nil {
			o.setMetadata(meta)
		}
		out.objects = append(out.objects, o)
		if t != (itemType{}) || out.typeOf != nil {
			k, ok := typeIndex[t]
			if !ok {
				k = int32(len(out.types))
				out.types = append(out.types, t)
				typeIndex[t] = k
			}
			if out.typeOf == nil {
				out.typeOf = make([]int32, i, len(list.Items))
			}
			out.typeOf = append(out.typeOf, k)
		}
	}
	return out, nil
}

// decodeObject splits a compact object into its type, which is removed
// (in place), and its metadata, from which its identity and the span of
// its labels are read. A custom resource that starts with its type as the
// server writes it (apiVersion, then kind) keeps it: typed says so. The
// key is namespace/name, of ns when the object names no namespace; the
// loader drops the namespace of cluster-scoped objects.
func decodeObject(item []byte, custom bool, ns string) (*Object, itemType, error) {
	var t itemType
	var types []rawjson.Member
	metaStart, metaEnd := -1, -1
	rawjson.EachMember(item, func(m rawjson.Member) bool {
		switch m.Name() {
		case "kind":
			t.kind = rawjson.String(item[m.Start:m.End])
			types = append(types, m)
		case "apiVersion":
			t.apiVersion = rawjson.String(item[m.Start:m.End])
			types = append(types, m)
		case "metadata":
			metaStart, metaEnd = m.Start, m.End
		}
		return true
	})
	if metaStart < 0 || item[metaStart] != '{' {
		return nil, t, errors.New("no metadata object")
	}
	o := &Object{Item: item}
	switch {
	case len(types) == 0:
	case custom && len(types) == 2 && t.apiVersion != "" && t.kind != "" && bytes.HasPrefix(item, typeMembers(`{"apiVersion":`, t.apiVersion, `,"kind":`, t.kind)):
		t.typed = true
	default:
		o.Item, metaStart, metaEnd = withoutMembers(item, types, metaStart, metaEnd)
	}
	o.metaStart, o.metaEnd = int32(metaStart), int32(metaEnd)
	var name, namespace string
	meta := o.Metadata()
	rawjson.EachMember(meta, func(m rawjson.Member) bool {
		v := meta[m.Start:m.End]
		switch m.Name() {
		case "name":
			name = rawjson.String(v)
		case "namespace":
			namespace = rawjson.String(v)
		case "resourceVersion":
			o.ResourceVersion = rawjson.String(v)
		}
		return true
	})
	if name == "" {
		return nil, t, errors.New("no metadata.name")
	}
	if namespace != "" {
		ns = namespace
	}
	o.Key, o.nameAt = ns+"/"+name, int32(len(ns)+1)
	if err := o.findLabels(); err != nil {
		return nil, t, err
	}
	return o, t, nil
}

// findLabels sets the span of the labels inside the metadata, checking
// that they decode as the server's decoder would.
func (o *Object) findLabels() error {
	o.labelsAt, o.labelsLen = 0, 0
	meta := o.Metadata()
	var labels rawjson.Member
	rawjson.EachMember(meta, func(m rawjson.Member) bool {
		if m.Name() == "labels" {
			labels = m
		}
		return true
	})
	if labels.End == 0 {
		return nil
	}
	if err := checkLabels(meta[labels.Start:labels.End]); err != nil {
		return err
	}
	if meta[labels.Start] == '{' {
		o.labelsAt, o.labelsLen = int32(labels.Start), int32(labels.End-labels.Start)
	}
	return nil
}

// setMetadata replaces the object's metadata.
func (o *Object) setMetadata(meta []byte) {
	body := make([]byte, 0, len(o.Item)-int(o.metaEnd-o.metaStart)+len(meta))
	body = append(append(append(body, o.Item[:o.metaStart]...), meta...), o.Item[o.metaEnd:]...)
	o.Item, o.metaEnd = body, o.metaStart+int32(len(meta))
	o.findLabels() // checked before; the server's metadata keeps them
}

// withoutMembers rewrites the compact object obj without the members drop
// (in order), in place (what is written never passes what is still to
// be read), and returns it and the metadata span moved accordingly.
func withoutMembers(obj []byte, drop []rawjson.Member, metaStart, metaEnd int) ([]byte, int, int) {
	var keep []rawjson.Member
	rawjson.EachMember(obj, func(m rawjson.Member) bool {
		for _, d := range drop {
			if d.Start == m.Start {
				return true
			}
		}
		keep = append(keep, m)
		return true
	})
	out := append(obj[:0], '{')
	newMetaStart := -1
	for _, m := range keep {
		if len(out) > 1 {
			out = append(out, ',')
		}
		if m.Start == metaStart {
			newMetaStart = len(out) + (m.Start - m.KeyStart)
		}
		out = append(out, obj[m.KeyStart:m.End]...)
	}
	out = append(out, '}')
	return out[:len(out):len(out)], newMetaStart, newMetaStart + (metaEnd - metaStart)
}
