package index

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// assemble turns the decoded files into the served resources: it decides
// from discovery how each list is served, sorts objects into storage
// order, attaches table rows and chooses the field selectors.
func (l *loader) assemble() {
	x := l.x
	x.groupVersions = map[string]map[string]metav1.APIResource{}
	x.resources = map[schema.GroupResource]*Resource{}
	scopes := map[schema.GroupResource]bool{}
	for gv, list := range x.Discovery.Resources {
		group, _ := splitGroupVersion(gv)
		m := map[string]metav1.APIResource{}
		for _, r := range list {
			m[r.Name] = r
			if !strings.Contains(r.Name, "/") {
				scopes[schema.GroupResource{Group: group, Resource: r.Name}] = r.Namespaced
			}
		}
		x.groupVersions[gv] = m
	}
	// Sort lists by path so that duplicates resolve the same way each run.
	sort.Slice(l.lists, func(i, j int) bool {
		a, b := l.lists[i].key, l.lists[j].key
		return a.Dir < b.Dir || a.Dir == b.Dir && a.Namespace < b.Namespace
	})
	listRes := map[contract.ListKey]*Resource{}
	listObjects := map[contract.ListKey][]*Object{}
	prefixes := map[string][]byte{}
	var maxRV uint64
	add := func(r *Resource, list *loadedList) {
		if r.listedIn == nil {
			r.listedIn = map[string]bool{}
		}
		r.listedIn[list.key.Namespace] = true
		if list.noItems {
			if r.noItems == nil {
				r.noItems = map[string]bool{}
			}
			r.noItems[list.gvr.Version] = true
		}
		listRes[list.key] = r
		if r.versions == nil {
			r.versions = map[string]bool{}
		}
		for i, o := range list.objects {
			t := list.typeOfItem(i)
			gv := list.gvr.GroupVersion()
			if t.apiVersion != "" {
				gv, _ = schema.ParseGroupVersion(t.apiVersion)
			}
			r.versions[gv.Version] = true
			l.place(r, list, o, t, prefixes)
			if rv, err := strconv.ParseUint(o.ResourceVersion, 10, 64); err == nil && rv > maxRV {
				maxRV = rv
			}
			r.objects = append(r.objects, o)
			listObjects[list.key] = append(listObjects[list.key], o)
		}
	}
	var converted []*loadedList
	for _, list := range l.lists {
		if list.converted {
			converted = append(converted, list)
			continue
		}
		gr := list.gvr.GroupResource()
		namespaced, ok := scopes[gr]
		if !ok {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: %s is not in discovery; its %d objects are not served", list.rel, gr, len(list.objects)))
			continue
		}
		r := x.resources[gr]
		if r == nil {
			r = &Resource{GR: gr, Namespaced: namespaced}
			x.resources[gr] = r
		}
		r.Custom = r.Custom || list.custom
		add(r, list)
	}
	crds := l.crds()
	x.customResources = map[schema.GroupResource]bool{}
	for _, crd := range crds {
		x.customResources[schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}] = true
	}
	// A converted list is served at the version it names, which discovery
	// must advertise; whether it is a custom resource, only the CRDs tell.
	x.converted = map[schema.GroupVersionResource]*Resource{}
	for _, list := range converted {
		gr := list.gvr.GroupResource()
		if _, ok := l.x.groupVersions[list.gvr.GroupVersion().String()][gr.Resource]; !ok {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: %s is not in discovery; its %d objects are not served", list.rel, list.gvr, len(list.objects)))
			continue
		}
		r := x.converted[list.gvr]
		if r == nil {
			r = &Resource{GR: gr, Namespaced: scopes[gr], Custom: x.customResources[gr]}
			x.converted[list.gvr] = r
		}
		list.custom = r.Custom
		add(r, list)
	}
	all := l.allResources()
	for _, r := range all {
		sort.SliceStable(r.objects, func(i, j int) bool { return r.objects[i].Key < r.objects[j].Key })
		r.objects = dedupe(r.objects)
		r.byKey = make(map[string]*Object, len(r.objects))
		for i, o := range r.objects {
			o.idx = int32(i)
			r.byKey[o.Key] = o
		}
	}
	l.attachTables(listRes, listObjects)
	l.markNotConverted()
	for _, r := range all {
		fillRows(r)
	}
	l.attachRanked()
	l.chooseFieldSets(crds)
	l.markNotCollected()
	x.deprecations = deprecations(x.Discovery, x.Version, crds)
	x.ResourceVersion = strconv.FormatUint(maxRV, 10)
	sort.Strings(l.warnings)
	x.Warnings = append(x.Warnings, l.warnings...)
}

// markNotConverted gives every version discovery advertises that holds
// none of the resource's stored objects and no converted list (the
// upgrade could not convert them: a CRD converted by webhook, a version
// the pinned release does not know) a Resource without objects, whose
// Warning says so: the objects of another version are not what the
// server would have answered.
func (l *loader) markNotConverted() {
	for gv, list := range l.x.Discovery.Resources {
		group, version := splitGroupVersion(gv)
		for _, api := range list {
			gvr := schema.GroupVersionResource{Group: group, Version: version, Resource: api.Name}
			r := l.x.resources[gvr.GroupResource()]
			if strings.Contains(api.Name, "/") || l.x.converted[gvr] != nil || r == nil || len(r.objects) == 0 || r.versions[version] || r.versions[""] {
				continue
			}
			var held []string
			for v := range r.versions {
				held = append(held, schema.GroupVersion{Group: group, Version: v}.String())
			}
			sort.Strings(held)
			l.x.converted[gvr] = &Resource{GR: r.GR, Namespaced: r.Namespaced, Custom: r.Custom, columns: r.columns,
				notConverted: fmt.Sprintf("this support bundle holds %s at %s, which could not be converted to %s: an empty answer does not mean the cluster had none",
					r.GR, strings.Join(held, ", "), gvr.GroupVersion())}
		}
	}
}

// allResources lists every Resource of the index, stored and converted.
func (l *loader) allResources() []*Resource {
	out := make([]*Resource, 0, len(l.x.resources)+len(l.x.converted))
	for _, r := range l.x.resources {
		out = append(out, r)
	}
	for _, r := range l.x.converted {
		out = append(out, r)
	}
	return out
}

// markNotCollected marks the resources discovery advertises that the
// bundle holds no list of (see Index.NotCollected); a converted list
// counts as one.
func (l *loader) markNotCollected() {
	held, customCollected := map[schema.GroupResource]bool{}, false
	for _, r := range l.allResources() {
		if r.listedIn != nil {
			held[r.GR] = true
			customCollected = customCollected || r.Custom
		}
	}
	for _, gr := range contract.NotCollected(l.x.Discovery, held, l.x.customResources, customCollected) {
		if r := l.x.resources[gr]; r != nil {
			r.notCollected = true
		}
	}
}

// place places a decoded object in its resource: its key follows the
// resource's scope as discovery says, and its type is kept the way the
// server writes it (on custom resource items, added per response for
// built-ins).
func (l *loader) place(r *Resource, list *loadedList, o *Object, t itemType, prefixes map[string][]byte) {
	if !r.Namespaced {
		o.Key, o.nameAt = o.Key[o.nameAt:], 0
	}
	apiVersion := t.apiVersion
	if apiVersion == "" {
		apiVersion = list.gvr.GroupVersion().String()
	}
	kind := t.kind
	if kind == "" {
		kind = list.kind
	}
	if kind == "" {
		kind = l.x.groupVersions[list.gvr.GroupVersion().String()][list.gvr.Resource].Kind
	}
	if list.custom && t.typed {
		return
	}
	if list.custom {
		// Unstructured objects are written with sorted keys: apiVersion, kind, metadata, ...
		prefix := typeMembers(`{"apiVersion":`, apiVersion, `,"kind":`, kind)
		o.Item = append(prefix[:len(prefix):len(prefix)], o.Item[1:]...)
		shift := int32(len(prefix) - 1)
		o.metaStart += shift
		o.metaEnd += shift
		return
	}
	id := kind + "\x00" + apiVersion
	p, ok := prefixes[id]
	if !ok {
		// Typed objects are written kind first: kind, apiVersion, metadata, ...
		p = typeMembers(`{"kind":`, kind, `,"apiVersion":`, apiVersion)
		prefixes[id] = p
	}
	o.typePrefix = p
}

// typeMembers renders `{"k1":"v1","k2":"v2",`, ready to replace the
// opening brace of an object.
func typeMembers(k1, v1, k2, v2 string) []byte {
	q1, _ := json.Marshal(v1)
	q2, _ := json.Marshal(v2)
	out := append([]byte(k1), q1...)
	out = append(out, k2...)
	out = append(out, q2...)
	return append(out, ',')
}

// dedupe drops objects whose key repeats an earlier one: a bundle may hold
// an object twice (a folder and its legacy twin); the first by path wins.
func dedupe(objs []*Object) []*Object {
	out := objs[:0]
	for i, o := range objs {
		if i > 0 && o.Key == objs[i-1].Key {
			continue
		}
		out = append(out, o)
	}
	return out
}

// attachTables gives each object its stored row. Rows name their object in
// row.object.metadata; rows stored without an object (includeObject=None)
// are matched by position in their list, when the table has as many rows
// as the list has objects. A table whose rows do not all find their
// object, or that leaves objects of its list without a row, is reported
// once, naming the files: those objects show "<unknown>" (missingCells),
// which must never pass for what the server printed.
func (l *loader) attachTables(listRes map[contract.ListKey]*Resource, listObjects map[contract.ListKey][]*Object) {
	sort.Slice(l.tables, func(i, j int) bool {
		a, b := l.tables[i].key, l.tables[j].key
		return a.Dir < b.Dir || a.Dir == b.Dir && a.Namespace < b.Namespace
	})
	listRel := map[contract.ListKey]string{}
	for _, list := range l.lists {
		listRel[list.key] = list.rel
	}
	tabled := map[contract.ListKey]bool{}
	for _, t := range l.tables {
		r, ok := listRes[t.key]
		if !ok {
			continue
		}
		tabled[t.key] = true
		if t.columns == nil {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: the table has no column definitions; its rows are not served", t.key.TablePath()))
			continue
		}
		if r.columns == nil {
			r.columns = t.columns
		}
		objs := listObjects[t.key]
		var prev *Object
		unmatched := 0
		for i := range t.rows {
			row := &t.rows[i]
			var o *Object
			switch {
			case row.hasObject:
				ns := row.namespace
				if ns == "" {
					ns = t.key.Namespace
				}
				o = r.Find(ns, row.name)
			case len(t.rows) == len(objs):
				o = objs[i]
			}
			if o == nil {
				unmatched++
				continue
			}
			if o.Row == nil {
				o.Row, o.rowPos = row.row, int32(i)
				if prev != nil && prev.Key > o.Key {
					r.rowOrdered = true
				}
				prev = o
			}
		}
		if missing := rowless(r, objs); unmatched > 0 || missing > 0 {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: %d of its %d rows match no object of %s, and %d of the list's %d objects have no row: the rows that match are served, and the others' columns show <unknown>",
				t.key.TablePath(), unmatched, len(t.rows), listRel[t.key], missing, len(objs)))
		}
	}
	for key, r := range listRes {
		if missing := rowless(r, listObjects[key]); !tabled[key] && r.columns != nil && missing > 0 {
			l.warnings = append(l.warnings, fmt.Sprintf("%s: no table is stored beside it (%s) while other lists of %s have one: its %d objects show <unknown> in every column but the name",
				listRel[key], key.TablePath(), r.GR, missing))
		}
	}
}

// rowless counts the objects of a list served without a stored row; an
// object another list holds too is counted there (dedupe).
func rowless(r *Resource, objs []*Object) int {
	n := 0
	for _, o := range objs {
		if o.Row == nil && r.byKey[o.Key] == o {
			n++
		}
	}
	return n
}

// crds decodes the bundle's CustomResourceDefinitions, which tell what
// the apiextensions server does besides listing custom resources
// (selectable fields, deprecated versions), without their schemas: most
// of a CRD's size, and many times that decoded.
func (l *loader) crds() []apiextensionsv1.CustomResourceDefinition {
	res := l.x.resources[schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}]
	if res == nil {
		return nil
	}
	var out []apiextensionsv1.CustomResourceDefinition
	for _, o := range res.objects {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal(o.Item, &crd); err != nil {
			l.warnings = append(l.warnings, fmt.Sprintf("customresourcedefinition %s: %v", o.Name(), err))
			continue
		}
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Schema = nil
		}
		out = append(out, crd)
	}
	return out
}

// crdSelectableFields reads, from the bundle's CustomResourceDefinitions,
// the selectable fields of every version of every custom resource; a
// version is a custom resource's exactly when it is in the map.
func crdSelectableFields(crds []apiextensionsv1.CustomResourceDefinition) map[schema.GroupVersionResource][]string {
	out := map[schema.GroupVersionResource][]string{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
			paths := []string{}
			for _, f := range v.SelectableFields {
				paths = append(paths, strings.TrimPrefix(f.JSONPath, "."))
			}
			out[gvr] = paths
		}
	}
	return out
}

// chooseFieldSets decides, for every served version of every resource,
// which field selectors the server would accept: the labels the live
// server was seen to accept (_meta/selectable-fields) first, else the
// kind's known set, a CRD's selectable fields, or the default
// metadata.name and metadata.namespace. Then it extracts every object's
// value of every label, so that no request decodes JSON.
func (l *loader) chooseFieldSets(crds []apiextensionsv1.CustomResourceDefinition) {
	crdFields := crdSelectableFields(crds)
	// The built-in sets are the bundle's own release's (the pinned
	// release's where its version is unknown).
	minor := 0
	if m, _, err := contract.TableMinor(l.x.Version.GitVersion); err == nil {
		minor = contract.MinorNumber(m)
	}
	for gv, list := range l.x.Discovery.Resources {
		group, version := splitGroupVersion(gv)
		for _, api := range list {
			if strings.Contains(api.Name, "/") {
				continue
			}
			gr := schema.GroupResource{Group: group, Resource: api.Name}
			r := l.x.resources[gr]
			if r == nil {
				r = &Resource{GR: gr, Namespaced: api.Namespaced}
				l.x.resources[gr] = r
			}
			if r.fields == nil {
				r.fields = newFieldIndex()
			}
			gvr := gr.WithVersion(version)
			var known contract.FieldSet
			if paths, ok := crdFields[gvr]; ok {
				known = contract.CustomResourceFieldSet(api.Namespaced, paths)
			} else if fs, ok := contract.BuiltinFieldSet(gvr, minor); ok {
				known = fs
			} else {
				known = contract.DefaultFieldSet(api.Namespaced)
			}
			if labels, ok := l.selectable[gvr]; ok {
				known = contract.DiscoveredFieldSet(labels, known)
			}
			r.fields.sets[version] = known
		}
	}
	// A converted resource is selected by the field set of its version.
	for gvr, r := range l.x.converted {
		r.fields = newFieldIndex()
		if stored := l.x.resources[gvr.GroupResource()]; stored != nil && stored.fields != nil {
			if fs, ok := stored.fields.sets[gvr.Version]; ok {
				r.fields.sets[gvr.Version] = fs
			}
		}
	}
	for _, r := range l.allResources() {
		if r.fields != nil && len(r.objects) > 0 {
			r.fields.extractValues(r.objects)
		}
	}
}
