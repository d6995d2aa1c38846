package transform

import (
	"bytes"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Up to lastMinorWithNullCreation, ObjectMeta wrote a zero
// creationTimestamp as null: the objects a server of those minors
// converted for another version carry "creationTimestamp": null in each
// template's metadata (a CronJob's jobTemplate and its pod template). The
// pinned apimachinery leaves the key out; marshalForMinor puts it back.

var objectMetaType = reflect.TypeOf(metav1.ObjectMeta{})

// marshalForMinor encodes a converted object as the minor's server did.
// The object is changed: each zero creationTimestamp of an ObjectMeta is
// set to creationSentinel while it is marshalled, and then written as
// null; should the sentinel's text occur elsewhere (a map holding that
// very key and value), the object is encoded as the pin encodes it.
func marshalForMinor(obj any, minor int) ([]byte, error) {
	if minor > lastMinorWithNullCreation {
		return marshal(obj)
	}
	var zero []reflect.Value
	findZeroCreations(reflect.ValueOf(obj), &zero)
	if len(zero) == 0 {
		return marshal(obj)
	}
	for _, v := range zero {
		v.Set(reflect.ValueOf(creationSentinel))
	}
	data, err := marshal(obj)
	for _, v := range zero {
		v.Set(reflect.ValueOf(metav1.Time{}))
	}
	if err != nil {
		return nil, err
	}
	sentinel, err := marshal(creationSentinel)
	if err != nil {
		return nil, err
	}
	key := []byte(`"creationTimestamp":`)
	if bytes.Count(data, append(key, sentinel...)) != len(zero) {
		return marshal(obj)
	}
	return bytes.ReplaceAll(data, append(key, sentinel...), append(key, "null"...)), nil
}

// findZeroCreations collects the settable creationTimestamps of the
// ObjectMetas reachable from v (through structs, pointers, slices and
// arrays: where the API types hold templates) that are zero.
func findZeroCreations(v reflect.Value, out *[]reflect.Value) {
	if !v.IsValid() || !holdsObjectMeta(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			findZeroCreations(v.Elem(), out)
		}
	case reflect.Struct:
		if v.Type() == objectMetaType {
			if c := v.FieldByName("CreationTimestamp"); c.CanSet() && c.Addr().Interface().(*metav1.Time).IsZero() {
				*out = append(*out, c)
			}
			return
		}
		for i := range v.NumField() {
			findZeroCreations(v.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			findZeroCreations(v.Index(i), out)
		}
	}
}

var objectMetaHolders sync.Map // reflect.Type -> bool

// holdsObjectMeta says whether values of a type can reach an ObjectMeta
// the walk would find, so that it skips what cannot (container specs,
// quantities). An interface may hold anything.
func holdsObjectMeta(t reflect.Type) bool {
	if v, ok := objectMetaHolders.Load(t); ok {
		return v.(bool)
	}
	holds := reachesObjectMeta(t, map[reflect.Type]bool{})
	objectMetaHolders.Store(t, holds)
	return holds
}

func reachesObjectMeta(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == objectMetaType {
		return true
	}
	if seen[t] {
		return false // a cycle: whatever it reaches, another path finds
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return reachesObjectMeta(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() && reachesObjectMeta(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
