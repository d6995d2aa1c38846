package transform

import (
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The printers, the CRD convertor and HumanDuration compute every relative
// cell as time.Since(t) against the wall clock and take no other "now".
// To render a table as of the collection time, the clock is not moved:
// the timestamps are. Each one is replaced by a time whose distance from
// the wall clock falls in the same whole second as its distance from the
// collection time, at the start of that second, so that the time the
// printers take cannot carry it over. HumanDuration and
// every printer depend only on whole seconds of that distance (truncated
// towards zero), so the cells come out exactly as the server would have
// printed them at the collection time. Durations between two timestamps
// with whole seconds (a finished Job's) are kept as long as both lie on
// the same side of the collection time.

// maxShift bounds the distances that are moved; older timestamps make
// time.Since saturate in the server as here, whatever the clock says.
const maxShift = 200 * 365 * 24 * time.Hour

// clock moves timestamps from collection time `at` to the wall clock `now`.
type clock struct{ at, now time.Time }

// newClock reads the wall clock; the shifted times stay valid for almost
// a second (see maxRenderTime). The monotonic reading is dropped, so that
// the shifted times, the printers' time.Since and the check of how long a
// render took all read the same wall clock: a virtual machine's wall
// clock can jump while the monotonic one does not, and a jump the check
// did not see would move every age.
func newClock(at time.Time) clock { return clock{at: at, now: time.Now().Round(0)} }

// maxRenderTime is how long after newClock a relative cell may be computed
// and still fall in the right second.
const maxRenderTime = 900 * time.Millisecond

func (c clock) shift(t time.Time) time.Time {
	if t.IsZero() {
		return t // printed as <unknown>
	}
	d := c.at.Sub(t)
	if d >= maxShift || d <= -maxShift {
		return t
	}
	// HumanDuration truncates towards zero: a distance of 5.7s prints as
	// 5s, and of -1.7s as -1s. The moved time sits at the start of that
	// second's interval (5s, or just above -2s), so the time the printers
	// take only moves it further in, never out, for up to a second.
	if d >= 0 {
		d = d.Truncate(time.Second)
	} else {
		d = -(-d).Truncate(time.Second) - time.Second + time.Nanosecond
	}
	return c.now.Add(-d)
}

var (
	timeType  = reflect.TypeOf(metav1.Time{})
	microType = reflect.TypeOf(metav1.MicroTime{})
)

// shiftObject moves every metav1.Time and metav1.MicroTime reachable from
// the object, whatever its type. Pointers to times are replaced, never
// written through, so a copy that shares them keeps the originals.
func (c clock) shiftObject(obj any) {
	c.walk(reflect.ValueOf(obj))
}

func (c clock) walk(v reflect.Value) {
	if !v.IsValid() || !holdsTime(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		switch v.Type().Elem() {
		case timeType:
			if v.CanSet() {
				t := metav1.NewTime(c.shift(v.Elem().Interface().(metav1.Time).Time))
				v.Set(reflect.ValueOf(&t))
			} else {
				c.walk(v.Elem())
			}
		case microType:
			if v.CanSet() {
				t := metav1.NewMicroTime(c.shift(v.Elem().Interface().(metav1.MicroTime).Time))
				v.Set(reflect.ValueOf(&t))
			} else {
				c.walk(v.Elem())
			}
		default:
			c.walk(v.Elem())
		}
	case reflect.Struct:
		switch v.Type() {
		case timeType:
			if v.CanSet() {
				v.Set(reflect.ValueOf(metav1.NewTime(c.shift(v.Interface().(metav1.Time).Time))))
			}
		case microType:
			if v.CanSet() {
				v.Set(reflect.ValueOf(metav1.NewMicroTime(c.shift(v.Interface().(metav1.MicroTime).Time))))
			}
		default:
			for _, i := range timeFields(v.Type()) {
				c.walk(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			c.walk(v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			cp := reflect.New(iter.Value().Type()).Elem()
			cp.Set(iter.Value())
			c.walk(cp)
			v.SetMapIndex(iter.Key(), cp)
		}
	case reflect.Interface:
		if !v.IsNil() && v.Elem().Kind() == reflect.Pointer {
			c.walk(v.Elem())
		}
	}
}

// holdsTime says whether values of a type can reach a timestamp, so that
// the walk skips the large parts of an object that cannot (specs of
// containers, volumes, quantities). Only exact answers are cached: the
// render workers ask concurrently, and a provisional answer seen by
// another worker (or kept for a type on a cycle) would leave every object
// of a kind unshifted, its ages those of the upgrade's wall clock.
var holdsTimeCache sync.Map // reflect.Type -> bool

func holdsTime(t reflect.Type) bool {
	if v, ok := holdsTimeCache.Load(t); ok {
		return v.(bool)
	}
	ok := reachesTime(t, map[reflect.Type]bool{})
	holdsTimeCache.Store(t, ok)
	return ok
}

// reachesTime searches the types reachable from t for a timestamp (or an
// interface, which may hold anything). seen ends cycles: a type already on
// the search reaches a time only through some other path, which the
// search also follows, so the answer for t is exact.
func reachesTime(t reflect.Type, seen map[reflect.Type]bool) bool {
	if v, ok := holdsTimeCache.Load(t); ok {
		return v.(bool)
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	found := false
	switch t {
	case timeType, microType:
		found = true
	default:
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			found = reachesTime(t.Elem(), seen)
		case reflect.Interface:
			found = true
		case reflect.Struct:
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() && reachesTime(f.Type, seen) {
					found = true
					break
				}
			}
		}
	}
	// A path found is a real one; a type not found may yet reach a time
	// through a type already on the search, so only yes is kept here.
	if found {
		holdsTimeCache.Store(t, true)
	}
	return found
}

// timeFields lists the exported fields of a struct type that can reach a
// timestamp: the only ones the walk visits.
var timeFieldsCache sync.Map // reflect.Type -> []int

func timeFields(t reflect.Type) []int {
	if v, ok := timeFieldsCache.Load(t); ok {
		return v.([]int)
	}
	var fields []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && holdsTime(f.Type) {
			fields = append(fields, i)
		}
	}
	timeFieldsCache.Store(t, fields)
	return fields
}

// shiftJSON moves every string of a decoded JSON object that the CRD
// convertor would read as a date (RFC 3339, as metav1.Time parses query
// parameters), in place.
func (c clock) shiftJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = c.shiftJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = c.shiftJSON(e)
		}
	case string:
		if t, ok := parseDate(x); ok {
			return c.shift(t).UTC().Format(time.RFC3339Nano)
		}
	}
	return v
}

// parseDate is time.Parse(time.RFC3339, s) without its cost on a long
// string: its error holds a copy of s, so a 400 MB value cost 400 MB on
// every try. Only the fraction of a second can make a date longer than
// maxDate, and time.Parse reads its first nine digits only; a longer
// string that is not date, fraction and zone is no date.
func parseDate(s string) (time.Time, bool) {
	const maxDate = len("2006-01-02T15:04:05.999999999-07:00")
	if len(s) > maxDate {
		const fraction = len("2006-01-02T15:04:05.")
		if s[fraction-1] != '.' {
			return time.Time{}, false
		}
		end := fraction
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		if len(s)-end > len("-07:00") {
			return time.Time{}, false
		}
		s = s[:fraction+9] + s[end:]
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}
