package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// itemSink takes the items of a list as the pass splits them, checks
// them, and keeps those it is asked to (DecodeList: all; ScanList: those
// keep accepts), each at the cost of its bytes' slice and 16 bytes, plus
// its storage key's bytes.
type itemSink struct {
	l       *List
	keepAll bool
	keep    func(name string) bool
	keys    strings.Builder
	// byType finds a type's index in l.typeNames; last is the type of
	// the previous item as written, which the next one most often
	// repeats byte for byte.
	byType map[typeName]uint32
	last   struct {
		apiVersion, kind []byte
		typ              uint32
		set              bool
	}
	// err is the first item refused.
	err error
}

// start begins the items of l (again, for a list whose items member
// occurs twice: the last one is read).
func (s *itemSink) start(l *List) {
	s.l, s.err, s.byType, s.last.set = l, nil, nil, false
	s.keys.Reset()
	l.Items, l.types, l.typeNames, l.keys, l.n = nil, nil, nil, "", 0
}

// add takes the next item. An item that is not an object with
// metadata.name is refused: a list with one cannot be served or tabled
// faithfully, so it is reported rather than half-read.
func (s *itemSink) add(it *item) {
	l := s.l
	i := l.n
	l.n++
	if s.err != nil {
		return
	}
	if it.raw[0] != '{' {
		s.err = fmt.Errorf("item %d is not an object: %w", i, ErrNotAList)
		return
	}
	name, plain := plainString(it.name)
	if !plain {
		name = []byte(rawjson.String(it.name))
	}
	if len(name) == 0 {
		s.err = fmt.Errorf("item %d has no metadata.name: %w", i, ErrNotAList)
		return
	}
	typ := s.typeOf(it, i)
	if !s.keepAll && (s.keep == nil || !s.keep(string(name))) {
		return
	}
	t := itemType{typ: typ, start: uint32(s.keys.Len())}
	t.sep = t.start
	if ns, plain := plainString(it.namespace); plain && len(ns) > 0 {
		s.keys.Write(ns)
		t.sep = uint32(s.keys.Len())
		s.keys.WriteByte('/')
	} else if ns := rawjson.String(it.namespace); !plain && ns != "" {
		s.keys.WriteString(ns)
		t.sep = uint32(s.keys.Len())
		s.keys.WriteByte('/')
	}
	s.keys.Write(name)
	if s.keys.Len() > math.MaxUint32 {
		s.err = fmt.Errorf("item %d: the names of the list's items exceed 4 GiB: %w", i, ErrNotAList)
		return
	}
	t.end = uint32(s.keys.Len())
	l.Items = append(l.Items, it.raw)
	l.types = append(l.types, t)
}

// typeOf is the index in typeNames of the item's apiVersion and kind,
// added there when item i is the first of its type.
func (s *itemSink) typeOf(it *item, i int) uint32 {
	if s.last.set && bytes.Equal(it.apiVersion, s.last.apiVersion) && bytes.Equal(it.kind, s.last.kind) {
		return s.last.typ
	}
	t := typeName{apiVersion: rawjson.String(it.apiVersion), kind: rawjson.String(it.kind)}
	if s.byType == nil {
		s.byType = map[typeName]uint32{}
	}
	typ, ok := s.byType[t]
	if !ok {
		typ = uint32(len(s.l.typeNames))
		s.byType[t] = typ
		t.first = i
		s.l.typeNames = append(s.l.typeNames, t)
	}
	s.last.apiVersion, s.last.kind, s.last.typ, s.last.set = it.apiVersion, it.kind, typ, true
	return typ
}

// finish ends the items: the first refused, if any, refuses the list.
func (s *itemSink) finish() error {
	s.l.keys = s.keys.String()
	return s.err
}

// plainString is the content of a JSON string that decodes to its own
// bytes (no escape, valid UTF-8), and whether v is one; nil, true for no
// value at all.
func plainString(v []byte) ([]byte, bool) {
	if len(v) == 0 {
		return nil, true
	}
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	return s, bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// Overhead is what the list holds besides its file's bytes, which its
// items are slices of: a slice and 16 bytes an item, and their keys.
func (l *List) Overhead() int64 {
	return int64(cap(l.Items))*int64(unsafe.Sizeof(json.RawMessage(nil))) + int64(cap(l.types))*int64(unsafe.Sizeof(itemType{})) +
		int64(len(l.keys)) + int64(cap(l.typeNames))*int64(unsafe.Sizeof(typeName{}))
}

// Len is the number of items of the list, kept or not (ScanList).
func (l *List) Len() int {
	if l.types == nil && l.typeNames == nil {
		return len(l.Items) // a List not made by DecodeList
	}
	return l.n
}

// FirstItemType is the apiVersion and kind the list's first item says it
// has, "" where it does not say or the list is empty.
func (l *List) FirstItemType() (apiVersion, kind string) {
	if len(l.typeNames) > 0 {
		return l.typeNames[0].apiVersion, l.typeNames[0].kind
	}
	if len(l.Items) > 0 {
		return l.ItemType(0)
	}
	return "", ""
}

// ItemKey is item i's namespace ("" for cluster-scoped objects) and name.
func (l *List) ItemKey(i int) (namespace, name string) {
	if i < len(l.types) {
		t := l.types[i]
		if t.sep == t.start {
			return "", l.keys[t.start:t.end]
		}
		return l.keys[t.start:t.sep], l.keys[t.sep+1 : t.end]
	}
	tm, _ := ItemMeta(l.Items[i]) // a List not made by DecodeList
	return tm.Metadata.Namespace, tm.Metadata.Name
}

// StorageKey is item i's key in etcd, namespace/name or the name alone,
// which orders the lists the server returns; it costs no allocation.
func (l *List) StorageKey(i int) string {
	if i < len(l.types) {
		return l.keys[l.types[i].start:l.types[i].end]
	}
	ns, name := l.ItemKey(i)
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// ItemType is the apiVersion and kind item i says it has, "" where it
// does not say.
func (l *List) ItemType(i int) (apiVersion, kind string) {
	if i < len(l.types) {
		t := l.typeNames[l.types[i].typ]
		return t.apiVersion, t.kind
	}
	tm, _ := ItemMeta(l.Items[i]) // a List not made by DecodeList
	return tm.APIVersion, tm.Kind
}
