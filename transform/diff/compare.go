package diff

import (
	"context"
	"fmt"

	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// objectKey identifies an object in both bundles.
type objectKey struct {
	groupKind
	Namespace, Name string
}

// location is where a side holds an object: its list (an index into
// the side's files) and its item in it.
type location struct{ file, item int32 }

// nowhere is the location of an object on a side that does not have it.
var nowhere = location{-1, -1}

func (l location) held() bool { return l.file >= 0 }

// listFile is a list of a side that holds compared objects.
type listFile struct {
	rel      string
	gvr      schema.GroupVersionResource
	gk       groupKind
	resource string // gvr.Resource, with the group: what kubectl names it
	custom   bool
}

// indexed is what the first pass keeps of an object of A.
type indexed struct {
	uid string
	// raw is the digest of the object as stored, without white space:
	// the same bytes are the same object, whatever their noise.
	raw digest
	loc location
	// match: the object passes the filters on A; seen: B has it.
	match, seen bool
}

// object is an object as the first passes read it.
type object struct {
	key   objectKey
	loc   location
	uid   string
	raw   digest
	match bool
}

// changeType is how an object differs.
type changeType string

const (
	added    changeType = "added"
	removed  changeType = "removed"
	replaced changeType = "replaced"
	changed  changeType = "changed"
	// maybe is an object whose bytes differ on the two sides, which may
	// be noise, key order or white space only: the detail passes decide
	// (decide), from its digests.
	maybe changeType = "maybe"
)

// change is one object that differs, and where each side holds it: the
// small record memory keeps per change; what grows with the report is
// in the spill, at the spans it names.
type change struct {
	key  objectKey
	typ  changeType
	a, b location
	// uids are each side's uid of the object (uidsRecord).
	uids span
	// What the detail passes read (details.go): each side's table row
	// (rowA, rowB: its cells as the table wrote them), A's facts until
	// B's are read (factsA) and the fields that differ (fields). For a
	// maybe, sumA is the digest of A's object as compared (its canonical
	// JSON, normalized unless Options.All) and, until B's is read, that
	// JSON is in differ.heldA, or in the spill at objA (past the held
	// budget).
	rowA, rowB span
	factsA     span
	fields     span
	objA       span
	sumA       digest
}

// uidsRecord is each side's uid of an object, as the spill keeps them.
func uidsRecord(uidA, uidB string) record { return record{}.string(uidA).string(uidB) }

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
			s.collected[gvr.GroupResource()] = true
			s.customCollected = s.customCollected || c.Custom
			if !d.o.wantKind(gvr, kind) || len(l.Items) == 0 {
				return nil
			}
			lf := listFile{rel: rel, gvr: gvr, gk: groupKind{gvr.Group, kind}, resource: gvr.GroupResource().String(), custom: c.Custom}
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

// readObject reads the identity of item i of l and the digest of its
// bytes, without decoding it; nil when the namespace filter leaves it out.
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
	d.buf = rawjson.AppendCompact(d.buf[:0], l.Items[i])
	meta := rawjson.Get(d.buf, "metadata")
	o := &object{key: objectKey{lf.gk, ns, name}, uid: rawjson.String(rawjson.Get(meta, "uid")), raw: sha(d.buf)}
	var labels map[string]string
	if d.o.Selector != nil {
		if l := rawjson.Get(meta, "labels"); len(l) > 0 {
			if err := json.Unmarshal(l, &labels); err != nil {
				return nil, fmt.Errorf("item %d (%s): metadata.labels: %w", i, name, err)
			}
		}
	}
	o.match = d.o.wantObject(ns, labels)
	return o, nil
}

// indexA is the first pass over A.
func (d *differ) indexA(ctx context.Context) error {
	return d.eachObject(ctx, d.a, &d.filesA, func(o *object) error {
		d.index[o.key] = &indexed{uid: o.uid, raw: o.raw, loc: o.loc, match: o.match}
		n := indexRecord + keyBytes(o.key) + int64(len(o.uid))
		d.indexBytes += n
		d.heap.records(n)
		return nil
	})
}

// compareB streams B against A's index, then notes what A alone holds.
func (d *differ) compareB(ctx context.Context) error {
	err := d.eachObject(ctx, d.b, &d.filesB, func(o *object) error {
		a := d.index[o.key]
		if a == nil {
			switch lf := d.filesB.list[o.loc.file]; {
			case !o.match:
			case d.a.holds(lf):
				d.addChange(&change{key: o.key, typ: added, a: nowhere, b: o.loc, uids: d.spill.put(uidsRecord("", o.uid))})
			default:
				d.notHeld("A", d.a, lf)
			}
			return nil
		}
		a.seen = true
		if !a.match && !o.match {
			return nil
		}
		c := &change{key: o.key, a: a.loc, b: o.loc}
		switch {
		case a.uid != o.uid:
			c.typ = replaced
		case a.raw != o.raw:
			c.typ = maybe
		default:
			return nil
		}
		c.uids = d.spill.put(uidsRecord(a.uid, o.uid))
		d.addChange(c)
		return nil
	})
	if err != nil {
		return err
	}
	for k, a := range d.index {
		if a.seen || !a.match {
			continue
		}
		if lf := d.filesA.list[a.loc.file]; d.b.holds(lf) {
			d.addChange(&change{key: k, typ: removed, a: a.loc, b: nowhere, uids: d.spill.put(uidsRecord(a.uid, ""))})
		} else {
			d.notHeld("B", d.b, lf)
		}
	}
	d.index = nil // A's index is no longer needed
	d.heap.records(-d.indexBytes)
	return nil
}

// addChange records a change.
func (d *differ) addChange(c *change) {
	d.changes = append(d.changes, c)
	d.heap.records(changeRecord + keyBytes(c.key))
}

// holds says whether the side would hold the objects of the other side's
// list lf: it collected the resource (a custom resource once it holds any
// custom resource list: troubleshoot writes a file only for a namespace
// that has some) and could read its list of that name. Otherwise an
// object of lf is neither added nor removed: the side does not tell.
func (s *side) holds(lf listFile) bool {
	if s.unreadable[lf.rel] {
		return false
	}
	return s.collected[lf.gvr.GroupResource()] || lf.custom && s.customCollected
}

// notHeld counts an object of the other side's list lf that side s
// (named "A" or "B") does not tell of.
func (d *differ) notHeld(name string, s *side, lf listFile) {
	k := NotCompared{Side: name, Resource: lf.resource, Why: "not collected"}
	if s.unreadable[lf.rel] {
		k.Why = lf.rel + " could not be read"
	}
	d.notCompared[k]++
}
