package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
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
	rel     string
	key     contract.ListKey
	gvr     schema.GroupVersionResource
	kind    string
	custom  bool
	objects []*loadedObject
}

// loadedObject is an object as decoded from its file, before discovery
// says how it is served.
type loadedObject struct {
	body               []byte // compact JSON without kind and apiVersion
	apiVersion, kind   string // as the object says, possibly ""
	metaStart, metaEnd int
	name, namespace    string
	resourceVersion    string
	created            string
	labels             map[string]string
}

// loadedTable is one stored Table file, decoded.
type loadedTable struct {
	key     contract.ListKey
	columns []byte
	rows    []loadedRow
}

type loadedRow struct {
	name, namespace string
	hasObject       bool
	row             tableRow
}

type loader struct {
	x    *Index
	b    *contract.Bundle
	logs *logStore

	mu         sync.Mutex
	lists      []*loadedList
	tables     []*loadedTable
	selectable map[schema.GroupVersionResource][]string
	// openapiV3 are the OpenAPI v3 documents by path under /openapi/v3/,
	// openapiV2 the v2 document; both as stored.
	openapiV3 map[string][]byte
	openapiV2 []byte
	warnings  []string
}

func newLoader(x *Index, b *contract.Bundle) *loader {
	return &loader{x: x, b: b, logs: newLogStore(b), selectable: map[schema.GroupVersionResource][]string{}, openapiV3: map[string][]byte{}}
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
			if e.IsRegular() {
				l.warn(e.Rel, errors.New("the entry occurs more than once in the archive; the last copy is served"))
			}
			return nil
		}
		c := e.Class
		switch c.Class {
		case contract.ClassPodLog:
			return l.logs.add(e)
		case contract.ClassResourceList, contract.ClassTable, contract.ClassSelectableFields, contract.ClassOpenAPIV3, contract.ClassOpenAPIV2:
		default:
			return nil
		}
		if !e.IsRegular() || contract.ShadowedYAML(l.b, e.Rel, c) {
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			// A file over the decode limit is skipped; a broken archive
			// stream ends the load, as in contract.Inspect.
			var ee *contract.EntryError
			if errors.As(err, &ee) && ee.Entry == e.Name && !isStreamError(err) {
				l.warn(e.Rel, ee.Err)
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
	l.logs.resolveLinks()
	return nil
}

// isStreamError tells a truncated or corrupt archive from a problem with
// one entry, by the contract reader's wording.
func isStreamError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "truncated") || strings.Contains(msg, "corrupt")
}

func (l *loader) decode(j job) {
	switch j.class.Class {
	case contract.ClassResourceList:
		list, err := decodeListFile(j.rel, j.data, j.class)
		if err != nil {
			l.warn(j.rel, err)
			return
		}
		l.mu.Lock()
		l.lists = append(l.lists, list)
		l.mu.Unlock()
	case contract.ClassTable:
		t, err := decodeTableFile(j.data)
		if err != nil {
			l.warn(j.rel, err)
			return
		}
		t.key = j.class.Key
		l.mu.Lock()
		l.tables = append(l.tables, t)
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
	}
}

// addOpenAPI keeps an OpenAPI document as stored, so that its hash is the
// one the live server published; a file that is not a JSON object is not
// served.
func (l *loader) addOpenAPI(j job) {
	data := bytes.TrimSpace(j.data)
	if len(data) == 0 || data[0] != '{' || !contract.ValidJSON(data) {
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

// decodeListFile reads every legacy list shape (through the contract) and
// keeps each item as compact JSON without its kind and apiVersion, which
// are added back per response as the real server does.
func decodeListFile(rel string, data []byte, c contract.Classification) (*loadedList, error) {
	l, compacted := decodeTypedList(data, c)
	if l == nil {
		var err error
		if l, err = contract.DecodeList(data, c.Format); err != nil {
			return nil, err
		}
	}
	kinds, err := contract.NewKindCheck(c, l.Kind)
	if err != nil {
		return nil, err
	}
	out := &loadedList{rel: rel, key: c.Key, gvr: contract.ListGVR(c, l), kind: contract.ListKind(c, l), custom: c.Custom}
	var buf *bytes.Buffer
	if !compacted {
		size := 0
		for _, it := range l.Items {
			size += len(it)
		}
		// One buffer for the whole file, sized so it never grows: the
		// objects are slices of it, which keeps allocations per object to
		// a minimum.
		buf = bytes.NewBuffer(make([]byte, 0, size))
	}
	for i, it := range l.Items {
		item := []byte(it)
		if !compacted {
			start := buf.Len()
			if err := json.Compact(buf, it); err != nil {
				return nil, fmt.Errorf("item %d: invalid JSON: %w", i, err)
			}
			item = buf.Bytes()[start:buf.Len():buf.Len()]
		}
		o, err := newLoadedObject(item)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		if err := kinds.Item(i, o.kind); err != nil {
			return nil, err
		}
		out.objects = append(out.objects, o)
	}
	return out, nil
}

// decodeTypedList is the fast path for the shape upgraded bundles hold, a
// JSON object with an items array: the file is compacted (and so checked)
// once and its items are slices of it, instead of being decoded twice by
// encoding/json. It returns nil for any other shape, and for invalid JSON,
// which contract.DecodeList then reports.
func decodeTypedList(data []byte, c contract.Classification) (*contract.List, bool) {
	data = bytes.TrimSpace(data)
	if c.Format != contract.FormatJSON || len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	compacted, err := compact(data)
	if err != nil {
		return nil, false
	}
	items := member(compacted, "items")
	if len(items) == 0 || items[0] != '[' {
		return nil, false
	}
	l := &contract.List{
		Shape:      contract.ShapeTypedList,
		APIVersion: stringValue(member(compacted, "apiVersion")),
		Kind:       stringValue(member(compacted, "kind")),
	}
	if l.Kind == "" {
		l.Shape = contract.ShapeUntypedList
	}
	eachElement(items, func(it []byte) { l.Items = append(l.Items, it[:len(it):len(it)]) })
	return l, true
}

// newLoadedObject splits a compact object into its type, which is removed,
// and its metadata, from which the identity and labels are read.
func newLoadedObject(item []byte) (*loadedObject, error) {
	o := &loadedObject{}
	var typeSpans [][2]int
	metaStart, metaEnd := -1, -1
	eachField(item, func(key []byte, start, end int) bool {
		switch string(key) {
		case "kind":
			o.kind = stringValue(item[start:end])
			typeSpans = append(typeSpans, [2]int{start, end})
		case "apiVersion":
			o.apiVersion = stringValue(item[start:end])
			typeSpans = append(typeSpans, [2]int{start, end})
		case "metadata":
			metaStart, metaEnd = start, end
		}
		return true
	})
	if metaStart < 0 || item[metaStart] != '{' {
		return nil, errors.New("no metadata object")
	}
	if len(typeSpans) == 0 {
		o.body, o.metaStart, o.metaEnd = item, metaStart, metaEnd
	} else {
		o.body, o.metaStart, o.metaEnd = withoutMembers(item, typeSpans, metaStart, metaEnd)
	}
	meta := o.body[o.metaStart:o.metaEnd]
	var labels []byte
	eachField(meta, func(key []byte, start, end int) bool {
		v := meta[start:end]
		switch string(key) {
		case "name":
			o.name = stringValue(v)
		case "namespace":
			o.namespace = stringValue(v)
		case "resourceVersion":
			o.resourceVersion = stringValue(v)
		case "creationTimestamp":
			o.created = stringValue(v)
		case "labels":
			labels = v
		}
		return true
	})
	if o.name == "" {
		return nil, errors.New("no metadata.name")
	}
	if len(labels) > 2 {
		if err := json.Unmarshal(labels, &o.labels); err != nil {
			return nil, fmt.Errorf("metadata.labels: %w", err)
		}
	}
	return o, nil
}

// withoutMembers copies obj without the members whose values are at spans
// (in order), and returns the metadata span moved accordingly.
func withoutMembers(obj []byte, spans [][2]int, metaStart, metaEnd int) ([]byte, int, int) {
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	newMetaStart := -1
	eachField(obj, func(key []byte, start, end int) bool {
		for _, s := range spans {
			if s[0] == start {
				return true
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		keyStart := start - len(key) - 3 // `"key":`
		if start == metaStart {
			newMetaStart = len(out) + (start - keyStart)
		}
		out = append(out, obj[keyStart:end]...)
		return true
	})
	out = append(out, '}')
	return out, newMetaStart, newMetaStart + (metaEnd - metaStart)
}

// decodeTableFile keeps the column definitions and, for every row, its
// cells and conditions and the identity of its object. Rows are matched
// to objects by that identity, so the row's own copy of the metadata is
// not kept.
func decodeTableFile(data []byte) (*loadedTable, error) {
	c, err := compact(data)
	if err != nil {
		return nil, err
	}
	if kind := stringValue(member(c, "kind")); kind != "Table" {
		return nil, fmt.Errorf("kind is %q, not Table", kind)
	}
	t := &loadedTable{}
	if cols := member(c, "columnDefinitions"); len(cols) > 0 && cols[0] == '[' {
		t.columns = bytes.Clone(cols)
	}
	rows := member(c, "rows")
	size := 0
	eachElement(rows, func(row []byte) {
		size += len(member(row, "cells")) + len(member(row, "conditions"))
	})
	arena := make([]byte, 0, size)
	keep := func(v []byte) []byte {
		if len(v) == 0 || string(v) == "null" {
			return nil
		}
		start := len(arena)
		arena = append(arena, v...)
		return arena[start:len(arena):len(arena)]
	}
	eachElement(rows, func(row []byte) {
		r := loadedRow{row: tableRow{cells: keep(member(row, "cells")), conditions: keep(member(row, "conditions"))}}
		if r.row.cells == nil {
			r.row.cells = []byte("[]")
		}
		if obj := member(row, "object"); len(obj) > 0 && obj[0] == '{' {
			meta := member(obj, "metadata")
			r.name, r.namespace = stringValue(member(meta, "name")), stringValue(member(meta, "namespace"))
			r.hasObject = r.name != ""
		}
		t.rows = append(t.rows, r)
	})
	return t, nil
}
