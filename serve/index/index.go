package index

import (
	"fmt"
	"sort"
	"strings"
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

	resources map[schema.GroupResource]*Resource
	// converted holds the objects of the bundle's converted lists
	// (contract.ConvertedListDir) by the group version resource they
	// were converted to: a request at that version is answered from them,
	// as the live server converted its stored objects to the version
	// asked for. Other versions are answered from resources.
	converted map[schema.GroupVersionResource]*Resource
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
	openapi      *OpenAPIDocs
}

// Resource holds the objects of one group resource, whatever version each
// was stored at: a bundle keeps one copy of each object, and every version
// discovery advertises serves it, but for the versions the bundle holds
// converted lists of (Index.converted), which have a Resource each.
type Resource struct {
	GR         schema.GroupResource
	Namespaced bool
	// Custom is set for Custom resources, whose lists the server encodes
	// as unstructured JSON.
	Custom bool
	// objects are in etcd key order (namespace/name, byte-wise), which is
	// the order the real server lists them in.
	objects []*Object
	// byKey finds an object by its Key. A single GET looks up one object
	// among thousands: a binary search over objects reads a dozen objects
	// and their keys spread over the heap, each a cache miss in a server
	// that sits idle between requests; a map reads about three.
	byKey map[string]*Object
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
	// ranked are the rows that a table shows by what else it lists
	// (ranked.go); nil for most resources.
	ranked rankedRows
	// notCollected is set when the bundle holds no list of the resource
	// at any version (contract.NotCollected); listedIn are the namespaces
	// of its list files ("" for a file of every namespace).
	notCollected bool
	listedIn     map[string]bool
	// versions are the versions of the group its objects are stored at
	// ("" for objects of a list that does not say).
	versions map[string]bool
	// noItems are the versions whose empty lists the bundle holds without
	// items (contract.List.NoItems): their list type's items are
	// omitempty, so the server wrote every empty list of them so.
	noItems map[string]bool
	// notConverted is set on the Resource of a version discovery
	// advertises that no object is stored at and no converted list
	// holds: it has no objects, and this is its Warning.
	notConverted string
}

// Object is one stored object, ready to be written in every form a client
// can ask for without decoding it again.
//
// A bundle can hold a million small objects, so an Object is 128 bytes
// besides its item: its namespace and name are parts of Key, its labels a
// span of its metadata (rawLabels), offsets are 32 bits (an object is at
// most the decode limit, 1 GiB), and what only loading needs is not kept
// (the creation time of the default convertor's cells is read from the
// metadata).
type Object struct {
	Key             string // namespace/name, or name for cluster-scoped objects
	ResourceVersion string
	// Item is the object as a list Item: built-in items carry no kind or
	// apiVersion (the server encodes typed lists that way), custom
	// resource items do.
	Item []byte
	// typePrefix turns a built-in item into a standalone object:
	// `{"kind":"Pod","apiVersion":"v1",` replaces item's opening brace.
	// It is nil when item carries its type already.
	typePrefix []byte
	Row        *TableRow
	// nameAt is where the name starts in Key.
	nameAt int32
	// metaStart and metaEnd delimit the metadata value inside item.
	metaStart, metaEnd int32
	// mfStart and mfEnd delimit, inside the metadata, the managedFields
	// member with the comma that separates it, which kubectl's rows leave
	// out (rowPolicy); mfEnd is 0 when the metadata has none.
	mfStart, mfEnd int32
	// labelsAt and labelsLen delimit the labels object inside the
	// metadata; labelsLen is 0 when it has none.
	labelsAt, labelsLen int32
	// rowPos is the row's position in its stored table.
	rowPos int32
	// idx is the object's position in its resource, where its field
	// selector values are kept.
	idx int32
}

// Name is the object's metadata.name.
func (o *Object) Name() string { return o.Key[o.nameAt:] }

// Namespace is the object's namespace, "" for cluster-scoped objects.
func (o *Object) Namespace() string {
	if o.nameAt == 0 {
		return ""
	}
	return o.Key[:o.nameAt-1]
}

// labels are the object's metadata.labels.
func (o *Object) labels() rawLabels {
	if o.labelsLen == 0 {
		return nil
	}
	at := o.metaStart + o.labelsAt
	return rawLabels(o.Item[at : at+o.labelsLen])
}

// Metadata is the object's ObjectMeta JSON.
func (o *Object) Metadata() []byte { return o.Item[o.metaStart:o.metaEnd] }

// TableRow is a stored table row: its cells and conditions as compact JSON.
type TableRow struct {
	Cells      []byte
	Conditions []byte // nil when the row has none
}

// NamespaceRange returns the objects of one namespace ("" for all): keys
// are sorted, so a namespace is one contiguous run.
func (r *Resource) NamespaceRange(ns string) []*Object {
	if ns == "" || !r.Namespaced {
		return r.objects
	}
	lo := sort.Search(len(r.objects), func(i int) bool { return r.objects[i].Key >= ns+"/" })
	// '0' is the byte after '/', so this finds the end of the "ns/" run.
	hi := sort.Search(len(r.objects), func(i int) bool { return r.objects[i].Key >= ns+"0" })
	return r.objects[lo:hi]
}

// Find returns the object with the given namespace and name.
func (r *Resource) Find(ns, name string) *Object {
	if !r.Namespaced {
		return r.byKey[name]
	}
	// The key is put together on the stack, when it fits, and looked up
	// without a copy: ns+"/"+name allocates the keys of more than 32
	// bytes, as most pods' are ("kube-system/coredns-5dd5756b68-7xk2p").
	var buf [128]byte
	key := append(append(append(buf[:0], ns...), '/'), name...)
	return r.byKey[string(key)]
}

// Lookup finds what discovery advertises for a group version and resource
// name; sub is the subresource or "".
func (x *Index) Lookup(group, version, res, sub string) (metav1.APIResource, *Resource, bool) {
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
	if r, ok := x.converted[schema.GroupVersionResource{Group: group, Version: version, Resource: res}]; ok {
		return api, r, true
	}
	// Every resource discovery advertises has a *resource (chooseFieldSets).
	return api, x.resources[schema.GroupResource{Group: group, Resource: res}], true
}

// HasGroup says whether discovery lists the group ("" is the core group).
func (x *Index) HasGroup(group string) bool {
	if group == "" {
		return true
	}
	_, ok := x.discovery.groupByName[group]
	return ok
}

// HasGroupVersion says whether discovery advertises gv.
func (x *Index) HasGroupVersion(gv string) bool {
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

// Close releases the spool of the logs (see logStore).
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

// Typed is the object with its kind and apiVersion, in two parts: a
// built-in object's item carries no type (the server encodes typed lists
// so), so its head is `{"kind":"Pod","apiVersion":"v1",` and its tail
// the item without its opening brace; a custom resource's item carries
// its type, and is the tail alone.
func (o *Object) Typed() (head, tail []byte) {
	if o.typePrefix == nil {
		return nil, o.Item
	}
	return o.typePrefix, o.Item[1:]
}

// LeanMetadata is the object's metadata without its managedFields member,
// in two parts (tail is nil when it has none): what kubectl's table rows
// carry (see serve's rowPolicy).
func (o *Object) LeanMetadata() (head, tail []byte) {
	if o.mfEnd == 0 {
		return o.Metadata(), nil
	}
	return o.Item[o.metaStart:o.mfStart], o.Item[o.mfEnd:o.metaEnd]
}

// OmitsEmptyItems says whether the server wrote an empty list of the
// resource at version without items, as the bundle shows it did.
func (r *Resource) OmitsEmptyItems(version string) bool {
	return r.noItems[version]
}

// Columns is the compact JSON array of the column definitions of the
// resource's tables: the stored tables', or the default convertor's
// (Name and Created At) when the bundle stored none, as the server
// serves kinds without printers.
func (r *Resource) Columns() []byte {
	if r.columns != nil {
		return r.columns
	}
	return defaultColumns
}

// OpenAPI is the OpenAPI documents served.
func (x *Index) OpenAPI() *OpenAPIDocs { return x.openapi }

// ContainerLog is a container's collected log (in whichever layout the
// bundle holds it, see contract.MapPodLogs), else the file that says why
// it could not be collected, and whether the bundle has either.
func (x *Index) ContainerLog(namespace, pod, container string, previous bool) (ContainerLog, bool) {
	return x.logs.find(namespace, pod, container, previous)
}

// NotCollected is the Warning text of a list, watch or get of the
// resource in namespace ("" for all) that finds nothing for want of
// collection rather than of objects; "" when the bundle collected what
// is asked for. A resource is not collected when discovery advertises it
// and the bundle holds no list of it (contract.NotCollected); a
// namespace, when the bundle holds the resource's lists one file per
// namespace (as troubleshoot writes built-in kinds: a file for every
// namespace it collected, empty or not) and none for a namespace of the
// bundle's. A custom resource's files name only the namespaces that have
// some, so its namespaces are never reported; a namespace the bundle
// does not list did not exist, and holds nothing, as on the live server.
func (x *Index) NotCollected(r *Resource, namespace string) string {
	what := r.GR.String()
	if r.notConverted != "" {
		return r.notConverted
	}
	if r.notCollected {
		return fmt.Sprintf("this support bundle did not collect %s: an empty answer does not mean the cluster had none", what)
	}
	if !r.Namespaced || r.Custom || len(r.listedIn) == 0 || r.listedIn[""] {
		return ""
	}
	var missing []string
	if namespace != "" {
		if !r.listedIn[namespace] && x.namespaceExists(namespace) {
			missing = []string{namespace}
		}
	} else if ns := x.resources[namespacesResource]; ns != nil && !ns.notCollected {
		for _, o := range ns.objects {
			if !r.listedIn[o.Name()] {
				missing = append(missing, o.Name())
			}
		}
	}
	switch len(missing) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("this support bundle did not collect %s in namespace %s: an empty answer there does not mean it had none", what, missing[0])
	}
	return fmt.Sprintf("this support bundle did not collect %s in namespaces %s: an empty answer there does not mean they had none", what, strings.Join(missing, ", "))
}

var namespacesResource = schema.GroupResource{Resource: "namespaces"}

// namespaceExists says whether the bundle lists the namespace, or did not
// collect namespaces at all.
func (x *Index) namespaceExists(name string) bool {
	ns := x.resources[namespacesResource]
	return ns == nil || ns.notCollected || ns.Find("", name) != nil
}

// Deprecations are the Warning texts of a request to resource (with its
// subresource, "pods/status") at gv; nil when it is not deprecated.
func (x *Index) Deprecations(gv schema.GroupVersion, resource string) []string {
	return x.deprecations[deprecationKey(gv, resource)]
}

// CoreVersions are the versions of the core group, for /api.
func (x *Index) CoreVersions() []string { return x.discovery.coreVersions }

// Groups are the API groups but the core group, in priority order, for
// /apis.
func (x *Index) Groups() []metav1.APIGroup { return x.discovery.groups }

// Group is the APIGroup document of /apis/<group>.
func (x *Index) Group(name string) (metav1.APIGroup, bool) {
	g, ok := x.discovery.groupByName[name]
	return g, ok
}

// ResourceList is the APIResourceList document of a group version ("v1",
// "apps/v1").
func (x *Index) ResourceList(gv string) ([]byte, bool) {
	data, ok := x.discovery.resourceLists[gv]
	return data, ok
}

// Aggregated is the aggregated discovery document of /api or /apis.
func (x *Index) Aggregated(path string) AggregatedDoc { return x.discovery.aggregated[path] }

// AggregatedFormats are the versions of aggregated discovery ("v2",
// "v2beta1") the bundle's server offered.
func (x *Index) AggregatedFormats() map[string]bool { return x.discovery.formats }
