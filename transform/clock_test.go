package transform

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// The invariant the whole table synthesis rests on: what the printers
// compute from a shifted time against the wall clock is what the server
// computed at the collection time.
func TestShiftedAgesAreAgesAtCollection(t *testing.T) {
	at := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	var ages []time.Duration
	for _, s := range []float64{0, 0.4, 0.9999, 1, 1.5, 2, 2.5, 59, 119, 119.999999, 120, 121.5, 599, 600, 601,
		10799.9, 10800, 28799, 28800, 172799.5, 172800, 691199, 691200, 63071999, 63072000, 252287999, 252288000, 1e9} {
		ages = append(ages, time.Duration(s*float64(time.Second)), -time.Duration(s*float64(time.Second)))
	}
	c := newClock(at)
	for _, age := range ages {
		ts := at.Add(-age)
		want := duration.HumanDuration(at.Sub(ts))
		// The printers read the clock a little after the shift: anything
		// up to maxRenderTime later must print the same.
		for _, later := range []time.Duration{0, time.Microsecond, maxRenderTime} {
			if got := duration.HumanDuration(c.now.Add(later).Sub(c.shift(ts))); got != want {
				t.Errorf("age %v, printed %v after the shift: %q, want %q", age, later, got, want)
			}
		}
	}
	if !c.shift(time.Time{}).IsZero() {
		t.Error("a zero time (printed <unknown>) was moved")
	}
}

// A finished Job's duration is the difference of two timestamps: moving
// both keeps it.
func TestShiftKeepsDurationsBetweenTimes(t *testing.T) {
	at := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	c := newClock(at)
	start, end := at.Add(-3*time.Hour), at.Add(-3*time.Hour+137*time.Second)
	if got := c.shift(end).Sub(c.shift(start)); got != 137*time.Second {
		t.Errorf("duration %v, want 2m17s", got)
	}
}

type shiftTarget struct {
	Created   metav1.Time
	Deleted   *metav1.Time
	Observed  metav1.MicroTime
	Series    *struct{ Last metav1.MicroTime }
	Slice     []struct{ T *metav1.Time }
	Map       map[string]metav1.Time
	Unrelated struct{ Name string }
	hidden    metav1.Time
}

func TestShiftObjectMovesEveryTimestampAndSharesNone(t *testing.T) {
	at := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	old := metav1.NewTime(at.Add(-time.Hour))
	shared := &old
	obj := &shiftTarget{
		Created:  old,
		Deleted:  shared,
		Observed: metav1.NewMicroTime(at.Add(-90 * time.Second)),
		Series:   &struct{ Last metav1.MicroTime }{metav1.NewMicroTime(at.Add(-5 * time.Minute))},
		Slice:    []struct{ T *metav1.Time }{{shared}},
		Map:      map[string]metav1.Time{"a": old},
		hidden:   old,
	}
	newClock(at).shiftObject(obj)
	since := func(tm time.Time) string { return duration.HumanDuration(time.Since(tm)) }
	for name, got := range map[string]string{
		"Created": since(obj.Created.Time), "Deleted": since(obj.Deleted.Time), "Observed": since(obj.Observed.Time),
		"Series.Last": since(obj.Series.Last.Time), "Slice[0].T": since(obj.Slice[0].T.Time), "Map[a]": since(obj.Map["a"].Time),
	} {
		want := map[string]string{"Observed": "90s", "Series.Last": "5m"}[name]
		if want == "" {
			want = "60m"
		}
		if got != want {
			t.Errorf("%s: %q after the shift, want %q", name, got, want)
		}
	}
	if !shared.Time.Equal(at.Add(-time.Hour)) {
		t.Error("a time shared through a pointer was written through; copies of the metadata would change")
	}
	if !obj.hidden.Time.Equal(at.Add(-time.Hour)) {
		t.Error("an unexported field was changed")
	}
}

func TestShiftJSONMovesOnlyDates(t *testing.T) {
	at := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	obj := map[string]any{
		"when":  "2025-11-20T09:59:20Z",
		"list":  []any{"2025-11-20T09:00:00Z", "not a date", int64(3)},
		"empty": "",
	}
	newClock(at).shiftJSON(obj)
	ts, err := time.Parse(time.RFC3339, obj["when"].(string))
	if err != nil || duration.HumanDuration(time.Since(ts)) != "40s" {
		t.Errorf("when = %v (%v)", obj["when"], err)
	}
	ts, _ = time.Parse(time.RFC3339, obj["list"].([]any)[0].(string))
	if duration.HumanDuration(time.Since(ts)) != "60m" {
		t.Errorf("list[0] = %v", obj["list"].([]any)[0])
	}
	if obj["list"].([]any)[1] != "not a date" || obj["empty"] != "" || obj["list"].([]any)[2] != int64(3) {
		t.Errorf("non-dates changed: %v", obj)
	}
}

// TestClockReadsTheWallClock checks that the shifted times carry no
// monotonic reading: the printers' time.Since and the render-time check
// must read the wall clock that the shift was made against.
func TestClockReadsTheWallClock(t *testing.T) {
	c := newClock(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC))
	shifted := c.shift(time.Date(2025, 11, 20, 9, 0, 0, 0, time.UTC))
	for _, tm := range []time.Time{c.now, shifted} {
		if strings.Contains(tm.String(), "m=") {
			t.Errorf("%s has a monotonic reading", tm)
		}
	}
	if got := time.Since(shifted).Truncate(time.Second); got != time.Hour {
		t.Errorf("age %v, want 1h", got)
	}
}

type (
	cycleA struct {
		B cycleB
		T metav1.Time
	}
	cycleB struct{ A *cycleA }
	cycleC struct {
		Self *cycleC
		N    int
	}
)

// A type on a cycle reaches a time through the rest of the cycle, whichever
// type of the cycle is asked first.
func TestHoldsTimeThroughACycle(t *testing.T) {
	if !holdsTime(reflect.TypeOf(cycleA{})) {
		t.Error("cycleA holds a time")
	}
	if !holdsTime(reflect.TypeOf(cycleB{})) {
		t.Error("cycleB reaches cycleA's time; its answer was the one assumed while cycleA was searched")
	}
	if holdsTime(reflect.TypeOf(cycleC{})) {
		t.Error("cycleC holds no time")
	}
}

// The render workers shift objects of kinds never seen before at the same
// time: each must see every timestamp of its kind, never an answer another
// worker assumed while still searching (which left a whole kind's ages
// those of the upgrade's wall clock).
func TestShiftObjectConcurrently(t *testing.T) {
	at := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	created := metav1.NewTime(at.Add(-time.Hour))
	for range 200 {
		holdsTimeCache.Clear()
		timeFieldsCache.Clear()
		objs := []runtime.Object{
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}},
			&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}},
			&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}},
			&batchv1.Job{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: created}},
		}
		c := newClock(at)
		var wg sync.WaitGroup
		for _, o := range objs {
			wg.Go(func() { c.shiftObject(o) })
		}
		wg.Wait()
		for _, o := range objs {
			m, _ := meta.Accessor(o)
			if got := duration.HumanDuration(time.Since(m.GetCreationTimestamp().Time)); got != "60m" {
				t.Fatalf("%T: created %s before the wall clock, want 60m", o, got)
			}
		}
	}
}

// parseDate reads what time.Parse reads, without copying a long string.
func TestParseDate(t *testing.T) {
	long := strings.Repeat("7", 1<<20)
	for _, s := range []string{
		"2025-01-02T03:04:05Z", "2025-01-02T03:04:05.123456789+02:00", "2025-01-02T03:04:05.1234567891234Z",
		"2025-01-02T03:04:05." + long + "Z", "2025-01-02T03:04:05." + long + "-07:00", "2025-01-02T03:04:05." + long + "x",
		"2025-01-02T03:04:05Z" + long, long, "", "2025-01-02", "2025-01-02T03:04:05.Z", "2025-01-02T03:04:05." + long,
	} {
		want, err := time.Parse(time.RFC3339, s)
		got, ok := parseDate(s)
		if ok != (err == nil) || !got.Equal(want) {
			t.Errorf("%.40q: parseDate = %v %v, time.Parse = %v %v", s, got, ok, want, err)
		}
	}
	if a := testing.AllocsPerRun(5, func() { parseDate(long) }); a > 0 {
		t.Errorf("parseDate of a long string: %v allocations", a)
	}
}

// TestDetachedMetadataSharesNoTime: a row's metadata is a copy of its
// object's ObjectMeta with the managed fields cloned (detach), and the
// clock then moves the object's times. A time the copy still shares with
// the object would move in the row: one inside a slice, a map or a
// pointer to a struct. The managed fields are the only such place, and
// a new field of ObjectMeta that is another fails here.
func TestDetachedMetadataSharesNoTime(t *testing.T) {
	var shared []string
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch ft := f.Type; {
			case !holdsTime(ft), ft == timeType, ft == microType,
				ft.Kind() == reflect.Pointer && (ft.Elem() == timeType || ft.Elem() == microType):
				// No time, or one the copy holds by value or the clock
				// replaces by a new pointer.
			case ft.Kind() == reflect.Struct:
				walk(ft, path+f.Name+".")
			default:
				shared = append(shared, path+f.Name)
			}
		}
	}
	walk(reflect.TypeFor[metav1.ObjectMeta](), "")
	if !slices.Equal(shared, []string{"ManagedFields"}) {
		t.Errorf("ObjectMeta shares times with its copies through %v; detach clones ManagedFields only", shared)
	}

	// And the clock leaves a detached copy as it was.
	created := metav1.NewTime(time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC))
	managed := metav1.NewTime(time.Date(2025, 11, 2, 0, 0, 0, 0, time.UTC))
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: created, DeletionTimestamp: &managed,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Time: &managed}}}}
	partial, err := partialOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	row := detach(partial)
	want := row.DeepCopy()
	newClock(time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)).shiftObject(obj)
	if obj.ManagedFields[0].Time.Equal(&managed) {
		t.Fatal("the clock did not move the object's managed fields")
	}
	if !reflect.DeepEqual(row, want) {
		t.Errorf("the clock moved the row's metadata: %v, was %v", row, want)
	}
}
