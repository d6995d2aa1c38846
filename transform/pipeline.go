package transform

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// The pipeline reads the bundle in stream order on the caller's goroutine,
// renders tables on a pool of workers, and writes on one writer goroutine
// in the order entries were read: each raw list is followed by its table.
// The bytes read and not yet written (or, for a list, not yet rendered)
// are bounded by bufferBudget, and an entry too large to buffer is handed
// over as a stream that the reader waits on.

// bufferLimit is the size up to which entries that need no table are read
// into memory, so that reading runs ahead of writing.
const bufferLimit = 1 << 20

// bufferBudget bounds the bytes of entries read ahead of the writer; an
// entry larger than the budget waits until it has the budget to itself.
// With the renderer's chunks, it keeps memory to the largest file plus a
// few tens of megabytes, whatever the bundle's size.
const bufferBudget = 24 << 20

// queueLength bounds the entries between reader and writer. It is not what
// bounds memory (bufferBudget is): it must be long enough that the small
// entries queued behind a list whose table is being rendered do not stop
// the reader from handing the next list to an idle worker.
const queueLength = 4096

type pipeline struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	b      *contract.Bundle
	w      *contract.Writer
	r      *Renderer
	sum    *Summary

	queue  chan *item
	jobs   chan *item
	budget *semaphore.Weighted

	cluster clusterVersion

	mu     sync.Mutex
	stored []stored
	// storedAt is the group version resource of each list decoded in the
	// stream, by its path: writeConverted reads again only the lists
	// that have another version to be converted to.
	storedAt map[string]schema.GroupVersionResource
	groups   []byte
	resource []byte
	made     map[string]bool // tables written in this run
	// ranked gathers, per resource, the objects whose rows depend on the
	// rest of the list (rankedrows.go).
	ranked map[schema.GroupResource]*rankedSet

	progress progress
	heap     *HeapLimit

	// readDefaulted are the resources of which the server's read path
	// changed an object (readDefaults): writeConverted writes their
	// lists as read, at the version they are stored at too.
	readDefaulted map[schema.GroupResource]bool

	// spool keeps the lists writeConverted may read again; multiVersion
	// counts the versions each group resource is served at, by the
	// rendered release's built-in discovery and the bundle's own
	// (mayConvert). Both belong to the reader.
	spool           convertSpool
	multiVersion    map[schema.GroupResource]int
	resourceCounted bool // resources.json is in multiVersion
}

// item is one entry on its way to the writer.
type item struct {
	hdr    *tar.Header
	rel    string
	class  contract.Classification
	body   []byte    // buffered content, or
	stream io.Reader // content read by the writer while the reader waits on done
	done   chan error

	render bool        // make its table
	table  chan result // the worker's answer, for lists that are decoded
	weight int64       // its share of the buffer budget
	// holders of body: the writer, and the worker decoding it (release)
	holders atomic.Int32
}

type result struct {
	hdr   *tar.Header
	table *entryBody
	res   string
	err   error
}

func newPipeline(ctx context.Context, b *contract.Bundle, w *contract.Writer, r *Renderer, sum *Summary, cluster clusterVersion, heap *HeapLimit) *pipeline {
	ctx, cancel := context.WithCancelCause(ctx)
	workers := runtime.GOMAXPROCS(0)
	return &pipeline{ctx: ctx, cancel: cancel, b: b, w: w, r: r, sum: sum, cluster: cluster,
		queue: make(chan *item, queueLength), jobs: make(chan *item, 2*workers+2), made: map[string]bool{},
		ranked:   map[schema.GroupResource]*rankedSet{},
		storedAt: map[string]schema.GroupVersionResource{}, readDefaulted: map[schema.GroupResource]bool{},
		budget:   semaphore.NewWeighted(bufferBudget),
		heap:     heap,
		progress: progress{totalEntries: b.Entries, totalBytes: b.Size}}
}

func (p *pipeline) run() error {
	defer p.cancel(nil)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for it := range p.jobs {
				res := p.decode(it)
				p.release(it)
				it.table <- res
			}
		})
	}
	writeErr := make(chan error, 1)
	go func() { writeErr <- p.write() }()
	err := p.b.Walk(p.read)
	close(p.jobs)
	close(p.queue)
	werr := <-writeErr
	wg.Wait()
	if werr != nil {
		return werr
	}
	if err != nil {
		if cause := context.Cause(p.ctx); cause != nil && errors.Is(err, context.Canceled) {
			return cause
		}
		return err
	}
	return nil
}

// read is the Walk callback: it decides what each entry needs and queues it.
func (p *pipeline) read(e *contract.Entry) error {
	if err := p.ctx.Err(); err != nil {
		return context.Cause(p.ctx)
	}
	p.progress.add(e.Header.Size)
	it := &item{hdr: e.Header, rel: e.Rel, class: e.Class}
	decode := p.wantsDecode(e, it)
	// A header costs its PAX records, up to a megabyte each (archive/tar's
	// limit): queued headers count against the budget like bodies, or
	// hundreds of them would wait for the writer at once.
	hw := headerWeight(e.Header)
	// A link read through (a list stored as a link) is read as the file
	// it names and written as the link it is: its content is read when
	// it is decoded or kept, never streamed.
	size := e.Size()
	readLink := decode || p.isDiscoveryInput(e) || p.b.IsListOfRecord(e) && size <= bufferLimit
	switch {
	case size == 0 || !e.IsRegular() && !readLink:
		if hw > 0 {
			it.weight = min(hw, bufferBudget)
			if err := p.budget.Acquire(p.ctx, it.weight); err != nil {
				return context.Cause(p.ctx)
			}
		}
	case decode || size <= bufferLimit || p.isDiscoveryInput(e):
		it.weight = min(size+hw, bufferBudget)
		if err := p.budget.Acquire(p.ctx, it.weight); err != nil {
			return context.Cause(p.ctx)
		}
		// Sized from the header: growing a buffer by doubling would
		// leave garbage as large as the file.
		if size > bufferBudget {
			// The entry has the budget to itself: what was read before
			// is written and garbage, but until the collector has run
			// it is still counted, and the heap would briefly hold two
			// of the largest files.
			runtime.GC()
		}
		it.body = make([]byte, size)
		if _, err := io.ReadFull(e.Reader(), it.body); err != nil {
			var ee *contract.EntryError
			if !errors.As(err, &ee) {
				err = &contract.EntryError{Bundle: p.b.Path, Entry: e.Name, Err: err}
			}
			return err
		}
	default:
		it.stream = &ctxReader{ctx: p.ctx, r: e.Reader()}
		it.done = make(chan error, 1)
	}
	if p.isDiscoveryInput(e) {
		p.keepDiscoveryInput(e.Class.Class, it.body)
	}
	if p.b.IsListOfRecord(e) && !e.Class.Converted {
		p.spool.add(e, it.body, it.body != nil && p.mayConvert(e.Class.GR, e.Class.Custom))
	}
	it.holders.Store(1)
	if decode {
		it.holders.Add(1)
		it.table = make(chan result, 1)
		select {
		case p.jobs <- it:
		case <-p.ctx.Done():
			return context.Cause(p.ctx)
		}
	}
	select {
	case p.queue <- it:
	case <-p.ctx.Done():
		return context.Cause(p.ctx)
	}
	if it.done != nil {
		// The tar reader moves on when this returns: wait until the
		// writer has copied the stream.
		return <-it.done
	}
	return nil
}

// headerWeight is what a header's PAX records hold, in bytes.
func headerWeight(hdr *tar.Header) int64 {
	var n int64
	for k, v := range hdr.PAXRecords {
		n += int64(len(k) + len(v))
	}
	return n
}

// wantsDecode says whether a raw list must be decoded: to make its table,
// or only to learn what it stores when discovery.json must be made.
func (p *pipeline) wantsDecode(e *contract.Entry, it *item) bool {
	if e.Superseded && e.InRoot && e.Class.Class == contract.ClassResourceList && e.HasContent() {
		p.sum.problem(e.Rel, errors.New("the entry occurs more than once in the archive; the last copy is read, as extracting keeps it"))
	}
	// A converted list is the upgrade's own (writeConverted), made with
	// its table: copied as it is.
	if !p.b.IsListOfRecord(e) || e.Class.Converted {
		return false
	}
	tablePath := contract.TablePathFor(e.Rel)
	hasTable := p.b.Names[tablePath]
	if hasTable {
		p.sum.kept()
	}
	it.render = !hasTable && !p.made[tablePath]
	if !it.render && p.b.DiscoveryJSON != nil && !p.gathersRanked(e.Class) {
		return false
	}
	if limit := p.b.Limits().MaxDecodeSize; e.Size() > limit {
		if it.render {
			p.sum.problem(e.Rel, fmt.Errorf("%d bytes is over the %d-byte decode limit; copied without a table", e.Size(), limit))
		}
		return false
	}
	if it.render {
		p.made[tablePath] = true
	}
	return true
}

// decode runs on a worker: it decodes a raw list, records what it stores
// and renders its table when asked.
func (p *pipeline) decode(it *item) result {
	c := it.class
	l, err := contract.DecodeList(it.body, c.Format)
	if err == nil {
		err = contract.CheckKinds(c, l)
	}
	if err != nil {
		return result{err: fmt.Errorf("no table: %w", err)}
	}
	defer p.heap.Hold(l)()
	if err := l.DuplicateKeys(); err != nil {
		// Tabled all the same, from what every reader reads.
		p.sum.problem(it.rel, err)
	}
	s := p.resolve(c, l)
	if s.gvr.Version != "" {
		p.mu.Lock()
		p.stored = append(p.stored, s)
		p.storedAt[it.rel] = s.gvr
		p.mu.Unlock()
	}
	list := List{GVR: s.gvr, Kind: s.kind, Custom: c.Custom, ResourceVersion: l.ResourceVersion,
		Items: l.Items, Key: l.StorageKey, ItemGVKs: itemGVKs(l, s), ranked: p.rankedSet(c, s)}
	if !it.render {
		if list.ranked != nil {
			if err := p.r.checkRanked(p.ctx, list); err != nil {
				p.sum.problem(it.rel, fmt.Errorf("not searched for rows that depend on the rest of the list: %w", err))
			}
		}
		return result{}
	}
	table, err := newEntryBody(len(it.body))
	if err != nil {
		return result{err: fmt.Errorf("no table: %w", err)}
	}
	list.Warn = func(err error) { p.sum.problem(it.rel, err) }
	list.ReadDefaulted = func() { p.markReadDefaulted(s.gvr.GroupResource()) }
	conv, err := p.r.RenderTo(p.ctx, table, list)
	if err != nil {
		table.discard()
		return result{err: fmt.Errorf("no table (%s convertor): %w", conv, err)}
	}
	hdr := newEntryHeader(entryName(p.b, contract.TablePathFor(it.rel)), table.size, it.hdr, time.Time{})
	return result{hdr: hdr, table: table, res: s.gvr.GroupResource().String()}
}

func (p *pipeline) markReadDefaulted(gr schema.GroupResource) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.readDefaulted[gr] = true
}

func (p *pipeline) isDiscoveryInput(e *contract.Entry) bool {
	return e.InRoot && e.HasContent() && p.b.DiscoveryJSON == nil &&
		(e.Class.Class == contract.ClassLegacyGroups || e.Class.Class == contract.ClassLegacyResources)
}

func (p *pipeline) keepDiscoveryInput(c contract.Class, body []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c == contract.ClassLegacyGroups {
		p.groups = body
	} else {
		p.resource = body
	}
}

// write copies the queue to the writer in order. After a failure it keeps
// draining, so that no reader or worker stays blocked, and cancels the rest.
func (p *pipeline) write() error {
	var err error
	fail := func(e error) {
		if err == nil && e != nil {
			err = e
			p.cancel(e)
		}
	}
	for it := range p.queue {
		if err == nil {
			var body io.Reader = bytes.NewReader(it.body)
			if it.stream != nil {
				body = it.stream
			}
			fail(p.w.WriteEntry(it.hdr, body))
			if err == nil {
				p.sum.copied()
			}
		}
		if it.done != nil {
			it.done <- err
		}
		p.release(it)
		if it.table != nil {
			res := <-it.table
			switch {
			case err != nil:
			case res.err != nil:
				p.sum.problem(it.rel, res.err)
			case res.table != nil:
				body, rerr := res.table.reader()
				if rerr == nil {
					rerr = p.w.WriteEntry(res.hdr, body)
				}
				fail(rerr)
				if err == nil {
					p.sum.made(res.res)
				}
			}
			res.table.discard()
		}
	}
	return err
}

// release is called by each holder of an item's body, the writer once it
// has written the body and the worker once its table is rendered: the
// last gives the item's share of the budget back. The rendered table
// holds nothing of the body, so the reader goes on to the next entries,
// and an idle worker to the next list, while the writer compresses it.
func (p *pipeline) release(it *item) {
	if it.holders.Add(-1) == 0 {
		it.body = nil
		p.budget.Release(it.weight)
	}
}

// writeDiscovery adds _meta/discovery.json, after the stream: it
// describes everything the stream held.
func (p *pipeline) writeDiscovery(at time.Time) (*contract.Discovery, error) {
	version := p.kubernetesVersion()
	d, problems := buildDiscovery(discoveryInput{groups: p.groups, resources: p.resource, stored: p.stored,
		crds: p.r.crds, kubernetesVersion: version, collectedAt: at, minor: p.r.minor, nodeMetrics: hasNodeMetrics(p.b)})
	for _, err := range append(problems, d.DropInvalid()...) {
		p.sum.problem(contract.DiscoveryPath(), err)
	}
	data, err := d.Marshal()
	if err != nil {
		return nil, err
	}
	hdr := newEntryHeader(entryName(p.b, contract.DiscoveryPath()), int64(len(data)), nil, at)
	if err := p.w.WriteEntry(hdr, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	p.sum.Discovery = "synthesized"
	return d, nil
}

// openAPIBuild is the OpenAPI documents being synthesized for a bundle
// that has none.
type openAPIBuild struct {
	kept     bool
	done     chan struct{}
	files    *openAPIFiles
	problems []error
}

// startOpenAPI begins synthesizing the documents a server of the rendered
// release publishes for what discovery advertises (synthesizeOpenAPI), on
// a goroutine of their own: the converted lists are read and written
// meanwhile, by a reader that leaves a core idle. A bundle with any
// OpenAPI file keeps what it has.
func (p *pipeline) startOpenAPI(d *contract.Discovery) *openAPIBuild {
	o := &openAPIBuild{done: make(chan struct{})}
	for rel := range p.b.Names {
		if c := contract.Classify(rel).Class; c == contract.ClassOpenAPIV3 || c == contract.ClassOpenAPIV2 {
			o.kept = true
			close(o.done)
			return o
		}
	}
	go func() {
		defer close(o.done)
		o.files, o.problems = synthesizeOpenAPI(d, p.r.crds, p.r.minor)
	}()
	return o
}

// writeOpenAPI adds _meta/openapi, last, once o is built.
func (p *pipeline) writeOpenAPI(o *openAPIBuild, at time.Time) error {
	<-o.done
	if o.kept {
		p.sum.OpenAPI = "kept"
		return nil
	}
	files := o.files
	for _, err := range o.problems {
		p.sum.problem(path.Join(contract.MetaPath(), contract.OpenAPIDir), err)
	}
	if files == nil {
		return nil
	}
	paths := make([]string, 0, len(files.v3))
	for docPath := range files.v3 {
		paths = append(paths, docPath)
	}
	sort.Strings(paths)
	write := func(rel string, data []byte) error {
		hdr := newEntryHeader(entryName(p.b, rel), int64(len(data)), nil, at)
		return p.w.WriteEntry(hdr, bytes.NewReader(data))
	}
	for _, docPath := range paths {
		if err := write(contract.OpenAPIV3Path(docPath), files.v3[docPath]); err != nil {
			return err
		}
	}
	if files.v2 != nil {
		if err := write(contract.OpenAPIV2Path(), files.v2); err != nil {
			return err
		}
		p.sum.OpenAPIV2 = true
	}
	p.sum.OpenAPI = "synthesized"
	p.sum.OpenAPIDocuments = len(paths)
	return nil
}

// itemGVKs lists the type of every item when some item says it is of
// another version or kind than the list: the server decodes each object
// as what it says it is.
func itemGVKs(l *contract.List, s stored) []schema.GroupVersionKind {
	listGVK := s.gvr.GroupVersion().WithKind(s.kind)
	var out []schema.GroupVersionKind
	for i := range l.Items {
		gvk := listGVK
		apiVersion, kind := l.ItemType(i)
		if apiVersion != "" {
			if gv, err := schema.ParseGroupVersion(apiVersion); err == nil {
				gvk.Group, gvk.Version = gv.Group, gv.Version
			}
		}
		if kind != "" {
			gvk.Kind = kind
		}
		if gvk != listGVK && out == nil {
			out = make([]schema.GroupVersionKind, i, len(l.Items))
			for j := range out {
				out[j] = listGVK
			}
		}
		if out != nil {
			out = append(out, gvk)
		}
	}
	return out
}

var nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// kubernetesVersion is the cluster's version for discovery.json, from
// cluster_version.json, else guessed from the nodes' kubelets, else
// unknown: each fallback is reported.
func (p *pipeline) kubernetesVersion() string {
	switch p.cluster.source {
	case VersionFromKubelets:
		p.sum.problem(contract.ClusterVersionPath, fmt.Errorf("missing; kubernetesVersion %s is the newest kubelet version of the nodes", p.cluster.version))
	case "":
		if p.sum.RenderedForSource == VersionFromFlag {
			// Without the flag, chooseMinor has said so.
			p.sum.problem(contract.ClusterVersionPath, errors.New("missing, and no node tells its version; kubernetesVersion is left empty"))
		}
	}
	return p.cluster.version
}

// ctxReader stops a long copy when the upgrade is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(b)
}
