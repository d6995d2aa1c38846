package serve

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/bundlectl/bundlectl/contract"
)

// Index is a bundle loaded for serving. Everything a request needs is
// computed here once: objects as compact JSON bytes in storage order, their
// labels, their stored table rows, and the discovery documents. Requests
// only select and concatenate bytes.
type Index struct {
	// Name is the bundle's path as given; Context is its kubeconfig context.
	Name        string
	Discovery   *contract.Discovery
	Version     version.Info
	CollectedAt time.Time
	// ResourceVersion is the highest resourceVersion of any object: the
	// revision of the snapshot, reported by every list and watch.
	ResourceVersion string
	// Warnings are files that could not be served, reported at startup.
	Warnings []string

	resources map[schema.GroupResource]*resource
	// groupVersions maps "v1" and "apps/v1" to the resources discovery
	// advertises there, subresources included ("pods/log").
	groupVersions map[string]map[string]metav1.APIResource
	logs          *logStore
	discovery     *discoveryDocs
	// customResources are the resources the bundle's CRDs define.
	customResources map[schema.GroupResource]bool
	// deprecations holds the Warning headers of every request to a
	// deprecated API, by "group/version/resource[/subresource]".
	deprecations map[string][]string
	openapi      *openAPIDocs
}

// resource holds the objects of one group resource, whatever version each
// was stored at: a bundle keeps one copy of each object, and every version
// discovery advertises serves it.
type resource struct {
	gr         schema.GroupResource
	namespaced bool
	// custom is set for custom resources, whose lists the server encodes
	// as unstructured JSON.
	custom bool
	// objects are in etcd key order (namespace/name, byte-wise), which is
	// the order the real server lists them in.
	objects []*object
	// columns is the compact JSON array of the stored tables' column
	// definitions; nil when no table was stored (the default convertor's
	// Name and Created At are served then, as the server does for kinds
	// without printers).
	columns []byte
	// rowOrdered is set when a stored table lists its rows in an order of
	// its own rather than the objects' (the printers sort FlowSchemas by
	// precedence): tables then list their rows in that order.
	rowOrdered bool
	fields     *fieldIndex
	gzipped    gzipCache
}

// object is one stored object, ready to be written in every form a client
// can ask for without decoding it again.
type object struct {
	key             string // namespace/name, or name for cluster-scoped objects
	namespace, name string
	resourceVersion string
	created         string // metadata.creationTimestamp as stored
	// item is the object as a list item: built-in items carry no kind or
	// apiVersion (the server encodes typed lists that way), custom
	// resource items do.
	item []byte
	// typePrefix turns a built-in item into a standalone object:
	// `{"kind":"Pod","apiVersion":"v1",` replaces item's opening brace.
	// It is nil when item carries its type already.
	typePrefix []byte
	// metaStart and metaEnd delimit the metadata value inside item.
	metaStart, metaEnd int
	// mfStart and mfEnd delimit, inside the metadata, the managedFields
	// member with the comma that separates it, which kubectl's rows leave
	// out (rowPolicy); mfEnd is 0 when the metadata has none.
	mfStart, mfEnd int
	labels         map[string]string
	row            *tableRow
	// rowPos is the row's position in its stored table.
	rowPos int
	// idx is the object's position in its resource, where its field
	// selector values are kept.
	idx int
}

// metadata is the object's ObjectMeta JSON.
func (o *object) metadata() []byte { return o.item[o.metaStart:o.metaEnd] }

// appendTyped appends the parts of the object with its kind and apiVersion.
func (o *object) appendTyped(b *body) {
	if o.typePrefix == nil {
		b.add(o.item)
		return
	}
	b.add(o.typePrefix)
	b.add(o.item[1:])
}

// tableRow is a stored table row: its cells and conditions as compact JSON.
type tableRow struct {
	cells      []byte
	conditions []byte // nil when the row has none
}

// gzipCache keeps the compressed bodies of whole, unfiltered lists: they
// are asked for again and again (every informer resync, every kubectl get
// -A) and compressing them costs more than sending them.
type gzipCache struct {
	mu     sync.Mutex
	bodies map[string]*gzipEntry
}

type gzipEntry struct {
	once sync.Once
	done atomic.Bool
	body []byte
}

// lookup returns the body cached under key once it is made.
func (c *gzipCache) lookup(key string) ([]byte, bool) {
	c.mu.Lock()
	e := c.bodies[key]
	c.mu.Unlock()
	if e == nil || !e.done.Load() {
		return nil, false
	}
	return e.body, true
}

// get returns the body cached under key, made by compress the first time:
// concurrent first requests wait for one compression rather than each
// making its own.
func (c *gzipCache) get(key string, compress func() []byte) []byte {
	c.mu.Lock()
	e := c.bodies[key]
	if e == nil {
		if c.bodies == nil {
			c.bodies = map[string]*gzipEntry{}
		}
		e = &gzipEntry{}
		c.bodies[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.body = compress()
		e.done.Store(true)
	})
	return e.body
}

// namespaceRange returns the objects of one namespace ("" for all): keys
// are sorted, so a namespace is one contiguous run.
func (r *resource) namespaceRange(ns string) []*object {
	if ns == "" || !r.namespaced {
		return r.objects
	}
	lo := sort.Search(len(r.objects), func(i int) bool { return r.objects[i].key >= ns+"/" })
	// '0' is the byte after '/', so this finds the end of the "ns/" run.
	hi := sort.Search(len(r.objects), func(i int) bool { return r.objects[i].key >= ns+"0" })
	return r.objects[lo:hi]
}

// find returns the object with the given namespace and name.
func (r *resource) find(ns, name string) *object {
	key := name
	if r.namespaced {
		key = ns + "/" + name
	}
	i := sort.Search(len(r.objects), func(i int) bool { return r.objects[i].key >= key })
	if i < len(r.objects) && r.objects[i].key == key {
		return r.objects[i]
	}
	return nil
}

// lookup finds what discovery advertises for a group version and resource
// name; sub is the subresource or "".
func (x *Index) lookup(group, version, res, sub string) (metav1.APIResource, *resource, bool) {
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	rs, ok := x.groupVersions[gv]
	if !ok {
		return metav1.APIResource{}, nil, false
	}
	name := res
	if sub != "" {
		name = res + "/" + sub
	}
	api, ok := rs[name]
	if !ok {
		return metav1.APIResource{}, nil, false
	}
	// Every resource discovery advertises has a *resource (chooseFieldSets).
	return api, x.resources[schema.GroupResource{Group: group, Resource: res}], true
}

// hasGroup says whether discovery lists the group ("" is the core group).
func (x *Index) hasGroup(group string) bool {
	if group == "" {
		return true
	}
	_, ok := x.discovery.groupByName[group]
	return ok
}

// hasGroupVersion says whether discovery advertises gv.
func (x *Index) hasGroupVersion(gv string) bool {
	_, ok := x.groupVersions[gv]
	return ok
}

// ResourceCount is the number of objects served for one group resource.
type ResourceCount struct {
	Resource schema.GroupResource
	Objects  int
}

// Counts lists the group resources that hold objects, by resource name.
func (x *Index) Counts() []ResourceCount {
	var out []ResourceCount
	for gr, r := range x.resources {
		if len(r.objects) > 0 {
			out = append(out, ResourceCount{Resource: gr, Objects: len(r.objects)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Resource, out[j].Resource
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Group < b.Group
	})
	return out
}

// Close removes what loading wrote to disk (logs extracted from archives).
func (x *Index) Close() error {
	if x.logs == nil {
		return nil
	}
	return x.logs.close()
}

func splitGroupVersion(gv string) (group, version string) {
	if g, v, ok := strings.Cut(gv, "/"); ok {
		return g, v
	}
	return "", gv
}
