package diff

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

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

// object is an object as the first passes read it: its identity, where
// it is, and the digest of its bytes without white space (the same
// bytes are the same object, whatever their noise).
type object struct {
	key   objectKey
	loc   location
	uid   string
	raw   digest
	match bool
}

// record is the object as the first passes sort it, by key.
func (o *object) record(k []byte) record {
	return keyed(k).string(o.key.Group).string(o.key.Kind).string(o.key.Namespace).string(o.key.Name).
		string(o.uid).bytes(o.raw[:]).int(int64(o.loc.file)).int(int64(o.loc.item)).uint(boolBit(o.match))
}

func readObject(rec []byte) (*object, error) {
	r := payload(rec)
	o := &object{key: objectKey{groupKind{r.string(), r.string()}, r.string(), r.string()}, uid: r.string()}
	copy(o.raw[:], r.bytes())
	o.loc = location{int32(r.int()), int32(r.int())}
	o.match = r.uint() == 1
	return o, r.err
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
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
	// (decide), from each side's object as compared.
	maybe changeType = "maybe"
)

// change is one object that differs, and where each side holds it, as
// a record of the passes carries it. Its id is its place in the report.
type change struct {
	id         uint32
	key        objectKey
	typ        changeType
	a, b       location
	uidA, uidB string
}

func (c *change) record(k []byte) record {
	return keyed(k).uint(uint64(c.id)).string(string(c.typ)).string(c.key.Group).string(c.key.Kind).
		string(c.key.Namespace).string(c.key.Name).int(int64(c.a.file)).int(int64(c.a.item)).
		int(int64(c.b.file)).int(int64(c.b.item)).string(c.uidA).string(c.uidB)
}

// readChange reads a change's record; r is left at what follows it.
func readChange(rec []byte) (*change, *reader) {
	r := payload(rec)
	c := &change{id: uint32(r.uint()), typ: changeType(r.string())}
	c.key = objectKey{groupKind{r.string(), r.string()}, r.string(), r.string()}
	c.a = location{int32(r.int()), int32(r.int())}
	c.b = location{int32(r.int()), int32(r.int())}
	c.uidA, c.uidB = r.string(), r.string()
	return c, r
}

// files notes the lists of one side and its tables, each table by its
// place among the side's tables as a walk meets them.
type files struct {
	list   []listFile
	byRel  map[string]int32
	tables map[string]uint32
}

func (f *files) add(lf listFile) int32 {
	if f.byRel == nil {
		f.byRel = map[string]int32{}
	}
	i := int32(len(f.list))
	f.list = append(f.list, lf)
	f.byRel[lf.rel] = i
	return i
}

// tableOf is the place of the table beside list file i, if it has one.
func (f *files) tableOf(i int32) (uint32, bool) {
	t, ok := f.tables[contract.TablePathFor(f.list[i].rel)]
	return t, ok
}

// eachObject reads every compared object of s (the kinds and namespace
// the options keep) and calls fn with it, its digests computed; it notes
// the places of the side's tables.
func (d *differ) eachObject(ctx context.Context, s *side, fs *files, fn func(o *object) error) error {
	fs.tables = map[string]uint32{}
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
		wantTable: func(rel string) bool {
			fs.tables[rel] = uint32(len(fs.tables))
			return false
		},
		table: func(string, []byte) error { return nil },
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

// index is a first pass: it sorts the objects of side s by their place
// in the report (reportKey), in sorter to.
func (d *differ) index(ctx context.Context, s *side, fs *files, to *sorter) error {
	return d.eachObject(ctx, s, fs, func(o *object) error {
		to.add(o.record(d.reportKey(o.key)))
		return d.spill.err
	})
}

// reportKey orders objects as the report lists them: by kind (as
// kubectl names it), namespace and name. Each string is escaped (a NUL
// as NUL 1) and ended by NUL NUL, so that bytes order as the strings do.
func (d *differ) reportKey(k objectKey) []byte {
	var out []byte
	for _, s := range [...]string{d.resources[k.groupKind], k.groupKind.String(), k.Namespace, k.Name} {
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				out = append(out, 0, 1)
			} else {
				out = append(out, s[i])
			}
		}
		out = append(out, 0, 0)
	}
	return out
}

// join matches the objects of both sides, in the report's order, and
// records each that differs (emit). Of one identity A's last object
// counts, and every one of B's is compared with it.
func (d *differ) join() error {
	ma, err := d.indexA.merge()
	if err != nil {
		return err
	}
	defer ma.close()
	mb, err := d.indexB.merge()
	if err != nil {
		return err
	}
	defer mb.close()
	var k []byte
	for {
		ra, err := ma.peek()
		if err != nil {
			return d.spill.fail(err)
		}
		rb, err := mb.peek()
		if err != nil {
			return d.spill.fail(err)
		}
		switch {
		case ra == nil && rb == nil:
			return d.spill.err
		case ra == nil || rb != nil && bytes.Compare(keyOf(rb), keyOf(ra)) < 0:
			k = append(k[:0], keyOf(rb)...)
		default:
			k = append(k[:0], keyOf(ra)...)
		}
		var a *object
		for ; ra != nil && bytes.Equal(keyOf(ra), k); ra, err = ma.peek() {
			if a, err = readObject(ra); err != nil {
				return d.spill.fail(err)
			}
			ma.pop()
		}
		seen := false
		for ; err == nil && rb != nil && bytes.Equal(keyOf(rb), k); rb, err = mb.peek() {
			b, err := readObject(rb)
			if err != nil {
				return d.spill.fail(err)
			}
			mb.pop()
			seen = true
			d.match(a, b)
		}
		if err != nil {
			return d.spill.fail(err)
		}
		if a != nil && !seen && a.match {
			if lf := d.filesA.list[a.loc.file]; d.b.holds(lf) {
				d.emit(&change{key: a.key, typ: removed, a: a.loc, b: nowhere, uidA: a.uid})
			} else {
				d.notHeld("B", d.b, lf)
			}
		}
	}
}

// match compares B's object b with A's of its identity, a (nil when A
// has none).
func (d *differ) match(a, b *object) {
	if a == nil {
		switch lf := d.filesB.list[b.loc.file]; {
		case !b.match:
		case d.a.holds(lf):
			d.emit(&change{key: b.key, typ: added, a: nowhere, b: b.loc, uidB: b.uid})
		default:
			d.notHeld("A", d.a, lf)
		}
		return
	}
	if !a.match && !b.match {
		return
	}
	c := &change{key: b.key, a: a.loc, b: b.loc, uidA: a.uid, uidB: b.uid}
	switch {
	case a.uid != b.uid:
		c.typ = replaced
	case a.raw != b.raw:
		c.typ = maybe
	default:
		return
	}
	d.emit(c)
}

// emit records a change, numbered in the report's order: its identity
// for the report, and what the detail passes read of it, in the order of
// each side's lists and tables. A change A holds goes to B's detail pass
// through A's, with what A's pass read.
func (d *differ) emit(c *change) {
	c.id = d.changes
	d.changes++
	d.out.add(c.record(partKey(c.id, partIdentity)))
	if c.a.held() {
		d.listsA.add(c.record(locKey(c.a, c.id)))
		if t, ok := d.filesA.tableOf(c.a.file); ok {
			d.tablesA.add(c.record(locKey(location{int32(t), 0}, c.id)))
		}
	} else {
		d.forward(c, nil, nil)
	}
	if c.b.held() {
		if t, ok := d.filesB.tableOf(c.b.file); ok {
			d.tablesB.add(c.record(locKey(location{int32(t), 0}, c.id)))
		}
	}
}

// locKey orders the changes by where a side holds them (its list and
// item, or its table), then by their place in the report.
func locKey(l location, id uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(l.file)), uint32(l.item)), id)
}

// The parts of a change in the report's records, in order.
const (
	partIdentity byte = iota
	partRowA
	partRowB
	partDecided
)

// partKey orders the report's records by change, then part.
func partKey(id uint32, part byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, id), part)
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
