package diff

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/bundlectl/bundlectl/contract"
)

// objectKey identifies an object in both bundles.
type objectKey struct {
	groupKind
	Namespace, Name string
}

// location is where a side holds an object: its list (an index into
// the side's files) and its item in it.
type location struct{ file, item int32 }

// listFile is a list of a side that holds compared objects.
type listFile struct {
	rel      string
	gvr      schema.GroupVersionResource
	gk       groupKind
	resource string // gvr.Resource, with the group: what kubectl names it
}

// indexed is what the first pass keeps of an object of A.
type indexed struct {
	uid string
	// full is the digest of the object as stored, norm with the noise
	// left out (normalize).
	full, norm digest
	loc        location
	// match: the object passes the filters on A; seen: B has it.
	match, seen bool
}

// object is an object as a pass reads it.
type object struct {
	key        objectKey
	loc        location
	uid        string
	obj        map[string]any
	match      bool
	full, norm digest
}

// changeType is how an object differs.
type changeType string

const (
	added    changeType = "added"
	removed  changeType = "removed"
	replaced changeType = "replaced"
	changed  changeType = "changed"
)

// change is one object that differs, and where each side holds it.
type change struct {
	key        objectKey
	typ        changeType
	a, b       *location
	uidA, uidB string
	// noise: the object differs only in what normalize leaves out
	// (kept with Options.All).
	noise bool
	// What the detail passes read (details.go).
	rowA, rowB     []any
	factsA, factsB *facts
	objA           map[string]any
	fields         []FieldChange
	moreFields     int
}

// files notes the lists of one side and their table paths.
type files struct {
	list    []listFile
	byRel   map[string]int32
	byTable map[string]int32
}

func (f *files) add(lf listFile) int32 {
	if f.byRel == nil {
		f.byRel, f.byTable = map[string]int32{}, map[string]int32{}
	}
	i := int32(len(f.list))
	f.list = append(f.list, lf)
	f.byRel[lf.rel] = i
	f.byTable[contract.TablePathFor(lf.rel)] = i
	return i
}

// eachObject reads every compared object of s (the kinds and namespace
// the options keep) and calls fn with it, its digests computed.
func (d *differ) eachObject(ctx context.Context, s *side, fs *files, fn func(o *object) error) error {
	return s.walk(ctx, visitor{
		list: func(rel string, c contract.Classification, l *contract.List) error {
			gvr, kind := contract.ListGVR(c, l), contract.ListKind(c, l)
			if !d.o.wantKind(gvr, kind) || len(l.Items) == 0 {
				return nil
			}
			lf := listFile{rel: rel, gvr: gvr, gk: groupKind{gvr.Group, kind}, resource: gvr.GroupResource().String()}
			file := fs.add(lf)
			if _, ok := d.resources[lf.gk]; !ok {
				d.resources[lf.gk] = lf.resource
			}
			for i := range l.Items {
				o, err := d.readObject(lf, c, l, i)
				if err != nil {
					s.warn(rel, err)
					continue
				}
				if o == nil {
					continue
				}
				o.loc = location{file, int32(i)}
				if err := fn(o); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// readObject decodes item i of l, or nil when the namespace filter
// leaves it out.
func (d *differ) readObject(lf listFile, c contract.Classification, l *contract.List, i int) (*object, error) {
	ns, name := l.ItemKey(i)
	if ns == "" && c.Namespaced {
		ns = c.Key.Namespace
	}
	if d.o.Namespace != "" && ns != d.o.Namespace {
		return nil, nil
	}
	if name == "" {
		return nil, fmt.Errorf("item %d has no metadata.name", i)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(l.Items[i], &obj); err != nil {
		return nil, fmt.Errorf("item %d (%s): %w", i, name, err)
	}
	o := &object{key: objectKey{lf.gk, ns, name}, obj: obj}
	o.uid, _, _ = unstructured.NestedString(obj, "metadata", "uid")
	labels, _, _ := unstructured.NestedStringMap(obj, "metadata", "labels")
	o.match = d.o.wantObject(ns, labels)
	var err error
	if o.full, err = sum(obj); err != nil {
		return nil, fmt.Errorf("item %d (%s): %w", i, name, err)
	}
	normalize(lf.gk, obj)
	if o.norm, err = sum(obj); err != nil {
		return nil, fmt.Errorf("item %d (%s): %w", i, name, err)
	}
	return o, nil
}

// indexA is the first pass over A.
func (d *differ) indexA(ctx context.Context) error {
	return d.eachObject(ctx, d.a, &d.filesA, func(o *object) error {
		d.index[o.key] = &indexed{uid: o.uid, full: o.full, norm: o.norm, loc: o.loc, match: o.match}
		return nil
	})
}

// compareB streams B against A's index, then notes what A alone holds.
func (d *differ) compareB(ctx context.Context) error {
	err := d.eachObject(ctx, d.b, &d.filesB, func(o *object) error {
		a := d.index[o.key]
		if a == nil {
			if o.match {
				d.add(&change{key: o.key, typ: added, b: &o.loc, uidB: o.uid})
			}
			return nil
		}
		a.seen = true
		if !a.match && !o.match {
			return nil
		}
		c := &change{key: o.key, a: &a.loc, b: &o.loc, uidA: a.uid, uidB: o.uid}
		switch {
		case a.uid != o.uid:
			c.typ = replaced
		case a.norm != o.norm:
			c.typ = changed
		case a.full != o.full && d.o.All:
			c.typ, c.noise = changed, true
		case a.full != o.full:
			d.noise[o.key.groupKind]++
			return nil
		default:
			return nil
		}
		d.add(c)
		return nil
	})
	if err != nil {
		return err
	}
	for k, a := range d.index {
		if !a.seen && a.match {
			d.add(&change{key: k, typ: removed, a: &a.loc, uidA: a.uid})
		}
	}
	d.index = nil // A's index is no longer needed
	return nil
}
