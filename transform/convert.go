package transform

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// A live server answers a resource at every group version it serves it
// at, converting the one stored copy of each object to the version asked
// for; a bundle holds each list at one version. So the upgrade writes,
// for every other version discovery serves, the list that version would
// have returned, and its table, under _meta/converted/ (see
// contract.ConvertedListDir), where legacy readers do not look and serve
// answers that version from them. It does so for the stored version too
// when the server's read path changes what the bundle stored (a Service
// of a 1.19 cluster has no clusterIPs; see readdefaults.go).

// conversionTarget is a group version resource discovery serves that a
// stored list is to be converted to, with the kind served there.
type conversionTarget struct {
	gvr  schema.GroupVersionResource
	kind string
}

// conversionTargets lists, for every group resource the bundle stores
// lists of, the other group versions discovery serves its objects at:
// its own group's other versions, and every version of a cohabitant
// (contract.Cohabitants: the group resources kube-apiserver stores as
// one) the bundle holds no list of (a bundle that collected events.k8s.io events
// itself answers from them).
func conversionTargets(d *contract.Discovery, held map[schema.GroupResource]bool) map[schema.GroupResource][]conversionTarget {
	served := map[schema.GroupResource][]conversionTarget{}
	gvs := make([]string, 0, len(d.Resources))
	for gv := range d.Resources {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs)
	for _, gvString := range gvs {
		gv, err := schema.ParseGroupVersion(gvString)
		if err != nil {
			continue
		}
		for _, r := range d.Resources[gvString] {
			if strings.Contains(r.Name, "/") || !hasVerb(r.Verbs, "list") {
				continue
			}
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			served[gr] = append(served[gr], conversionTarget{gvr: gv.WithResource(r.Name), kind: r.Kind})
		}
	}
	out := map[schema.GroupResource][]conversionTarget{}
	for gr := range held {
		targets := append([]conversionTarget(nil), served[gr]...)
		for _, other := range contract.Cohabitants(gr) {
			if !held[other] {
				targets = append(targets, served[other]...)
			}
		}
		if len(targets) > 0 {
			out[gr] = targets
		}
	}
	return out
}

func hasVerb(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

// writeConverted reads the bundle a second time, now that discovery is
// known, and writes the converted lists and their tables after the rest.
// A list that cannot be converted to a version is a problem in the
// summary, and serve answers that version from the stored objects. As in
// the stream, lists are read in order, converted and rendered on a worker
// each, and written in the order they were read, within bufferBudget.
func (p *pipeline) writeConverted(ctx context.Context, d *contract.Discovery) error {
	held := map[schema.GroupResource]bool{}
	for rel := range p.b.Names {
		if c := contract.Classify(rel); c.Class == contract.ClassResourceList && !c.Converted {
			held[c.GR] = true
		}
	}
	targets := conversionTargets(d, held)
	if len(targets) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	workers := runtime.GOMAXPROCS(0)
	queue := make(chan *convertedEntry, queueLength)
	slots := make(chan struct{}, workers)
	writeErr := make(chan error, 1)
	go func() { writeErr <- p.writeConvertedQueue(queue, cancel) }()
	written := map[string]bool{}
	wanted := func(rel string, c contract.Classification) bool {
		return !c.Converted && (p.readDefaulted[c.GR] || convertsFrom(targets[c.GR], p.storedAt, rel))
	}
	convert := func(hdr *tar.Header, rel string, c contract.Classification, data []byte) error {
		l, err := contract.DecodeList(data, c.Format)
		if err == nil {
			err = contract.CheckKinds(c, l)
		}
		if err != nil {
			return nil // the first pass reported it
		}
		ce := &convertedEntry{hdr: hdr, rel: rel, l: l, s: p.resolve(c, l), done: make(chan []convertedList, 1)}
		for _, t := range targets[c.GR] {
			if t.gvr == ce.s.gvr && !p.readDefaulted[c.GR] {
				continue
			}
			rel := contract.ResourcePath(contract.ConvertedListDir(t.gvr), c.Key.Namespace)
			if written[rel] || p.b.Names[rel] {
				continue
			}
			written[rel] = true
			ce.targets = append(ce.targets, convertedList{rel: rel, target: t})
		}
		if len(ce.targets) == 0 {
			return nil
		}
		ce.weight = min(int64(len(data)), bufferBudget)
		if err := p.budget.Acquire(ctx, ce.weight); err != nil {
			return context.Cause(ctx)
		}
		ce.release = p.heap.Hold(l)
		select {
		case queue <- ce:
		case <-ctx.Done():
			ce.release()
			p.budget.Release(ce.weight)
			return context.Cause(ctx)
		}
		go func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			ce.done <- p.convertEntry(ctx, ce)
		}()
		return nil
	}
	var err error
	if p.spool.covers(func(in convertInput) bool { return wanted(in.rel, in.class) }) {
		p.sum.convertedFrom = "spool"
		err = p.convertFromSpool(ctx, wanted, convert)
	} else {
		p.sum.convertedFrom = "bundle"
		err = p.b.Walk(func(e *contract.Entry) error {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
			if !p.b.IsListOfRecord(e) || !wanted(e.Rel, e.Class) {
				return nil
			}
			data, err := e.ReadAll()
			if err != nil {
				if local := e.LocalError(err); local != nil {
					// Reported by the first pass, which copied it without a table.
					return nil
				}
				return err
			}
			return convert(e.Header, e.Rel, e.Class, data)
		})
	}
	close(queue)
	if werr := <-writeErr; werr != nil {
		return werr
	}
	return err
}

// convertFromSpool gives convert every list wanted, from the spool the
// stream kept them in, in stream order.
func (p *pipeline) convertFromSpool(ctx context.Context, wanted func(string, contract.Classification) bool,
	convert func(*tar.Header, string, contract.Classification, []byte) error) error {
	for _, in := range p.spool.inputs {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		if !wanted(in.rel, in.class) {
			continue
		}
		data, err := p.spool.read(in)
		if err != nil {
			return err
		}
		if err := convert(in.hdr, in.rel, in.class, data); err != nil {
			return err
		}
	}
	return nil
}

// convertsFrom says whether a list at rel has a target other than its
// own version. The version of a list the stream decoded is known
// (storedAt) and one served nowhere else is not read again: most lists.
func convertsFrom(targets []conversionTarget, storedAt map[string]schema.GroupVersionResource, rel string) bool {
	gvr, known := storedAt[rel]
	for _, t := range targets {
		if !known || t.gvr != gvr {
			return true
		}
	}
	return false
}

// convertedEntry is a stored list and the lists it is converted to.
type convertedEntry struct {
	hdr     *tar.Header
	rel     string
	l       *contract.List
	s       stored
	targets []convertedList
	weight  int64  // its share of the buffer budget
	release func() // of its share of the heap's limit (HeapLimit)
	done    chan []convertedList
}

// convertedList is one list converted from a stored one, ready to write.
type convertedList struct {
	rel    string
	target conversionTarget
	body   *entryBody
	table  *entryBody
	// err is a conversionError, reported, or a failure, which ends the
	// upgrade; tableErr is a table that could not be rendered, reported.
	err, tableErr error
}

// writeConvertedQueue writes the converted lists in the order they were
// queued. After a failure it keeps draining, so that no worker stays
// blocked, and cancels the rest.
func (p *pipeline) writeConvertedQueue(queue <-chan *convertedEntry, cancel context.CancelCauseFunc) error {
	var err error
	fail := func(e error) {
		if err == nil && e != nil {
			err = e
			cancel(e)
		}
	}
	reported := map[schema.GroupVersionResource]bool{}
	for ce := range queue {
		for _, out := range <-ce.done {
			var conv *conversionError
			switch {
			case err != nil:
			case errors.As(out.err, &conv):
				if !reported[out.target.gvr] {
					reported[out.target.gvr] = true
					p.sum.notConverted(ce.rel, fmt.Errorf("not converted to %s: %w; serve answers that version empty, with a warning", out.target.gvr.GroupVersion(), conv.err))
				}
			case out.err != nil:
				fail(out.err)
			default:
				fail(p.writeConvertedList(ce, out))
			}
			out.body.discard()
			out.table.discard()
		}
		ce.release()
		p.budget.Release(ce.weight)
	}
	return err
}

// writeConvertedList writes a converted list, then its table.
func (p *pipeline) writeConvertedList(ce *convertedEntry, out convertedList) error {
	body, err := out.body.reader()
	if err != nil {
		return err
	}
	hdr := newEntryHeader(entryName(p.b, out.rel), out.body.size, ce.hdr, time.Time{})
	if err := p.w.WriteEntry(hdr, body); err != nil {
		return err
	}
	p.sum.converted(out.target.gvr)
	if out.tableErr != nil {
		p.sum.problem(out.rel, out.tableErr)
		return nil
	}
	r, err := out.table.reader()
	if err != nil {
		return err
	}
	thdr := newEntryHeader(entryName(p.b, contract.TablePathFor(out.rel)), out.table.size, ce.hdr, time.Time{})
	return p.w.WriteEntry(thdr, r)
}

// conversionError is a list that cannot be converted, which is reported,
// unlike a failure to write, which ends the upgrade.
type conversionError struct{ err error }

func (e *conversionError) Error() string { return e.err.Error() }

// convertEntry runs on a worker: it converts the stored list of ce to each
// of its targets and renders their tables.
func (p *pipeline) convertEntry(ctx context.Context, ce *convertedEntry) []convertedList {
	outs := ce.targets
	for i := range outs {
		if err := ctx.Err(); err != nil {
			outs[i].err = context.Cause(ctx)
			continue
		}
		p.convertList(ctx, ce, &outs[i])
	}
	return outs
}

// convertList converts the stored list of ce to out's target and renders
// its table.
func (p *pipeline) convertList(ctx context.Context, ce *convertedEntry, out *convertedList) {
	l, s, t := ce.l, ce.s, out.target
	kind := t.kind
	if kind == "" {
		kind = s.kind
	}
	target := t.gvr.GroupVersion().WithKind(kind)
	var items []json.RawMessage
	var err error
	if s.custom {
		// The table is made from the converted items: kept, and encoded
		// after.
		if items, err = p.convertCustomItems(l, s, target); err == nil {
			var data []byte
			if data, err = encodeList(target, l.ResourceVersion, items); err == nil {
				out.body = bodyOf(data)
			}
		}
	} else {
		// Encoded as they are converted: a list of a million small
		// events is several times its stored size converted.
		out.body, err = convertBuiltin(l, s, target, p.r.minor, int(ce.hdr.Size))
	}
	if err != nil {
		out.body.discard()
		out.body = nil
		out.err = &conversionError{err}
		return
	}
	if out.table, err = newEntryBody(int(out.body.size)); err != nil {
		out.err = err
		return
	}
	// A built-in storage renders the internal object it read, whatever
	// version was asked for: the stored list's own objects, not their
	// conversion, which a round trip through another version could
	// change (autoscaling/v1 keeps v2's metrics in annotations). A CRD's
	// table is of the version's own columns over the converted object.
	tl := List{GVR: s.gvr, Kind: s.kind, ResourceVersion: l.ResourceVersion, Items: l.Items, Key: l.StorageKey, ItemGVKs: itemGVKs(l, s)}
	if s.custom {
		tl = List{GVR: t.gvr, Kind: kind, Custom: true, ResourceVersion: l.ResourceVersion, Items: items, Key: l.StorageKey}
	}
	rel := out.rel
	tl.Warn = func(err error) { p.sum.problem(rel, err) }
	if conv, err := p.r.RenderTo(ctx, out.table, tl); err != nil {
		if cause := context.Cause(ctx); cause != nil {
			out.err = cause
			return
		}
		out.tableErr = fmt.Errorf("no table (%s convertor): %w", conv, err)
	}
}

// convertItems does what the server does with each stored object asked
// for at target: decode it at its own version (defaults applied), convert
// it to the internal version and from there to target, with the
// conversions of the scheme of the resource's storage (the legacy scheme,
// apiextensions' or kube-aggregator's). Items are encoded as the server
// of minor encodes a typed list's items, without kind and apiVersion,
// and given to emit one at a time.
func convertItems(l *contract.List, s stored, target schema.GroupVersionKind, minor int, emit func(json.RawMessage) error) error {
	st := conversionStorage(s.gvr.GroupResource())
	if !st.scheme.Recognizes(target) {
		return fmt.Errorf("Kubernetes %s does not know %s", contract.PinnedVersion, target)
	}
	gvks := itemGVKs(l, s)
	for i, raw := range l.Items {
		gvk := s.gvr.GroupVersion().WithKind(s.kind)
		if gvks != nil {
			gvk = gvks[i]
		}
		if !st.scheme.Recognizes(gvk) {
			return fmt.Errorf("Kubernetes %s does not know %s", contract.PinnedVersion, gvk)
		}
		internal, err := st.decode(raw, gvk)
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		readDefaults(internal, minor)
		obj, err := st.scheme.ConvertToVersion(internal, target.GroupVersion())
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
		if got := obj.GetObjectKind().GroupVersionKind(); got != target {
			return fmt.Errorf("item %d: converted to %s, not %s", i, got, target)
		}
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		data, err := marshalForMinor(obj, minor)
		if err == nil {
			err = emit(data)
		}
		if err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	return nil
}

// convertBuiltin converts the items of a built-in list (convertItems)
// and encodes the list they make, in a body spooled to a file when the
// stored list, of storedSize, is spooled (newEntryBody).
func convertBuiltin(l *contract.List, s stored, target schema.GroupVersionKind, minor, storedSize int) (*entryBody, error) {
	body, err := newEntryBody(storedSize)
	if err != nil {
		return nil, err
	}
	enc, err := newListEncoder(body, target, l.ResourceVersion)
	if err == nil {
		err = convertItems(l, s, target, minor, enc.item)
	}
	if err == nil {
		err = enc.close()
	}
	if err != nil {
		body.discard()
		return nil, err
	}
	return body, nil
}

// convertCustomItems does what the apiextensions server does for a CRD
// whose conversion strategy is None: the same object with apiVersion
// changed (pkg/apiserver/conversion's nopConverter), encoded as
// unstructured objects are, keys sorted. A CRD converted by webhook
// cannot be: the webhook is the cluster's.
func (p *pipeline) convertCustomItems(l *contract.List, s stored, target schema.GroupVersionKind) ([]json.RawMessage, error) {
	crd, ok := p.r.crds.lookup(s.gvr.GroupResource())
	if !ok {
		return nil, fmt.Errorf("the bundle has no CustomResourceDefinition of %s", s.gvr.GroupResource())
	}
	if c := crd.crd.Spec.Conversion; c != nil && c.Strategy != apiextensions.NoneConverter {
		return nil, fmt.Errorf("its CustomResourceDefinition converts by %s, which the cluster ran and a bundle cannot", c.Strategy)
	}
	out := make([]json.RawMessage, len(l.Items))
	for i, raw := range l.Items {
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		obj["apiVersion"] = target.GroupVersion().String()
		if _, ok := obj["kind"]; !ok {
			obj["kind"] = target.Kind
		}
		var err error
		if out[i], err = json.Marshal(obj); err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
	}
	return out, nil
}

// conversionStorage is the storage whose scheme converts gr's objects.
func conversionStorage(gr schema.GroupResource) internalStorage {
	switch storageConvertors[gr] {
	case ConvertorAggregator:
		return aggregatorStorage
	case ConvertorDefinitions:
		return definitionStorage
	}
	return printerStorage
}

// encodeList writes a typed list as the server does (kind, apiVersion,
// metadata, items), one item a line.
func encodeList(target schema.GroupVersionKind, resourceVersion string, items []json.RawMessage) ([]byte, error) {
	size := len(`,"items":[`) + len("\n]}\n") + 200 // the head's
	for _, it := range items {
		size += len(it) + 2
	}
	var b bytes.Buffer
	b.Grow(size) // one allocation, not a doubling's garbage
	enc, err := newListEncoder(&b, target, resourceVersion)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if err := enc.item(it); err != nil {
			return nil, err
		}
	}
	if err := enc.close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// listEncoder writes a typed list as encodeList does, an item at a time.
type listEncoder struct {
	w     io.Writer
	items int
}

func newListEncoder(w io.Writer, target schema.GroupVersionKind, resourceVersion string) (*listEncoder, error) {
	head, err := json.Marshal(struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			ResourceVersion string `json:"resourceVersion,omitempty"`
		} `json:"metadata"`
	}{Kind: target.Kind + "List", APIVersion: target.GroupVersion().String(), Metadata: struct {
		ResourceVersion string `json:"resourceVersion,omitempty"`
	}{resourceVersion}})
	if err != nil {
		return nil, err
	}
	_, err = w.Write(append(head[:len(head)-1], `,"items":[`...))
	return &listEncoder{w: w}, err
}

func (e *listEncoder) item(it json.RawMessage) error {
	sep := ",\n"
	if e.items == 0 {
		sep = "\n"
	}
	e.items++
	if _, err := io.WriteString(e.w, sep); err != nil {
		return err
	}
	_, err := e.w.Write(it)
	return err
}

func (e *listEncoder) close() error {
	_, err := io.WriteString(e.w, "\n]}\n")
	return err
}
