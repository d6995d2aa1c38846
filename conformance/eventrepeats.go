package conformance

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"
)

// The documents' side of NormEventRepeats: an Event (core or
// events.k8s.io, in kubectl's output or a body), the items of an
// EventList, and the rows of an events Table. The text side is in
// eventlines.go.

// eventDocument forgives in l what repeats changed in the events that l
// and s are or hold; the rest of the walk compares what is left.
func (n *normalizer) eventDocument(l, s map[string]any) {
	switch {
	case isEvent(l) && isEvent(s):
		n.forgiveEvent(l, s)
	case l["kind"] == "EventList" && s["kind"] == "EventList":
		n.forgiveEvents(l["items"], s["items"])
	case l["kind"] == "Table" && s["kind"] == "Table":
		cols, ok := eventsTableColumns(l["columnDefinitions"])
		if scols, sok := eventsTableColumns(s["columnDefinitions"]); !ok || !sok || cols != scols {
			return
		}
		lr, _ := l["rows"].([]any)
		sr, _ := s["rows"].([]any)
		if len(lr) != len(sr) {
			return
		}
		for i := range lr {
			lm, _ := lr[i].(map[string]any)
			sm, _ := sr[i].(map[string]any)
			if lm != nil && sm != nil {
				lc, _ := lm["cells"].([]any)
				sc, _ := sm["cells"].([]any)
				n.forgiveRow(cols, lc, lm["object"], sc, sm["object"], n.ageWindow())
			}
		}
	}
}

var eventAPIVersions = map[string]bool{"v1": true, "events.k8s.io/v1": true, "events.k8s.io/v1beta1": true}

// isEvent says whether a JSON object is an Event that says its type.
func isEvent(m map[string]any) bool {
	v, _ := m["apiVersion"].(string)
	return m["kind"] == "Event" && eventAPIVersions[v]
}

// forgiveEvents forgives the repeats of two lists of events (the items of
// EventLists, which do not say their type), item by item.
func (n *normalizer) forgiveEvents(live, served any) {
	la, _ := live.([]any)
	sa, _ := served.([]any)
	if len(la) != len(sa) {
		return
	}
	for i := range la {
		lm, _ := la[i].(map[string]any)
		sm, _ := sa[i].(map[string]any)
		if lm != nil && sm != nil {
			n.forgiveEvent(lm, sm)
		}
	}
}

// forgiveEvent rewrites the event l as s where l is s repeated.
func (n *normalizer) forgiveEvent(l, s map[string]any) {
	var r repeat
	r.event(l, s, n.until)
	n.apply(&r)
}

// eventColumns are the cells of an events Table that a repeat changes,
// and its Name (-1 if none).
type eventColumns struct{ lastSeen, count, name int }

// eventsTableColumns finds the Last Seen and Count columns of a Table's
// column definitions, which make it an events table (the server's
// printer of core and events.k8s.io Events).
func eventsTableColumns(defs any) (eventColumns, bool) {
	cols := eventColumns{-1, -1, -1}
	list, _ := defs.([]any)
	var reason, object bool
	for i, d := range list {
		m, _ := d.(map[string]any)
		switch m["name"] {
		case "Last Seen":
			cols.lastSeen = i
		case "Count":
			cols.count = i
		case "Name":
			cols.name = i
		case "Reason":
			reason = true
		case "Object":
			object = true
		}
	}
	return cols, cols.lastSeen >= 0 && cols.count >= 0 && reason && object
}

// forgiveRow rewrites the row of an events Table (its cells and its
// object) l as s where it is s repeated: a higher Count, a Last Seen
// no older than s's plus the window w, and the object as forgiveEvent
// does (metadata only, or the whole Event with includeObject=Object).
func (n *normalizer) forgiveRow(cols eventColumns, lc []any, lo any, sc []any, so any, w window) {
	if len(lc) != len(sc) || cols.lastSeen >= len(lc) || cols.count >= len(lc) || cols.name >= len(lc) ||
		cols.name >= 0 && !reflect.DeepEqual(lc[cols.name], sc[cols.name]) {
		return
	}
	var r repeat
	r.count(lc[cols.count], sc[cols.count], func() { lc[cols.count] = sc[cols.count] })
	if !reflect.DeepEqual(lc[cols.lastSeen], sc[cols.lastSeen]) {
		ls, _ := lc[cols.lastSeen].(string)
		ss, _ := sc[cols.lastSeen].(string)
		la, ok1 := parseAge(ls)
		sa, ok2 := parseAge(ss)
		if !ok1 || !ok2 || !notOlder(la, sa, w) {
			r.bad = true
		}
		r.set(func() { lc[cols.lastSeen] = sc[cols.lastSeen] })
	}
	lm, _ := lo.(map[string]any)
	sm, _ := so.(map[string]any)
	switch {
	case lm != nil && sm != nil && isEvent(lm) && isEvent(sm):
		r.event(lm, sm, n.until)
	case lm != nil && sm != nil:
		r.metadata(lm, sm, n.until)
	}
	n.apply(&r)
}

// ageWindow is the window of the age normalization the case names.
func (n *normalizer) ageWindow() window {
	switch {
	case n.enabled[NormAges]:
		return n.ages
	case n.enabled[NormClientAges]:
		return n.clientAges
	}
	return window{}
}

// notOlder says whether the printed age live can stand for a time no
// earlier than the one served stands for, rendered later by no more than
// w.hi: an event last seen again since, or not.
func notOlder(live, served age, w window) bool {
	return live.lo-served.lo-served.gran < w.hi
}

// repeat collects the changes that make one event the other, to apply
// only when every difference is one a repeat makes and a count went up.
type repeat struct {
	fixes []func()
	up    bool // a count went up
	bad   bool // a difference no repeat makes
}

func (r *repeat) set(fix func()) { r.fixes = append(r.fixes, fix) }

// event adds the fields a repeat of the Event l changes.
func (r *repeat) event(l, s map[string]any, until time.Time) {
	if !sameObject(l, s) {
		r.bad = true
		return
	}
	for _, k := range []string{"count", "deprecatedCount"} {
		r.count(l[k], s[k], func() { l[k] = s[k] })
	}
	r.series(l, s, until)
	for _, k := range []string{"lastTimestamp", "deprecatedLastTimestamp"} {
		r.time(l, s, k, until)
	}
	r.metadata(l, s, until)
}

// count compares a count: the live one may only be higher; fix makes it
// the served one.
func (r *repeat) count(live, served any, fix func()) {
	if reflect.DeepEqual(live, served) {
		return
	}
	li, ok1 := asInt(live)
	si, ok2 := asInt(served)
	if !ok1 || !ok2 || li < si {
		r.bad = true
		return
	}
	r.up = true
	r.set(fix)
}

// time compares a time a repeat moves: the live one may be later, up to
// until.
func (r *repeat) time(l, s map[string]any, key string, until time.Time) {
	if reflect.DeepEqual(l[key], s[key]) {
		return
	}
	lt, ok1 := parseTime(l[key])
	st, ok2 := parseTime(s[key])
	if !ok1 || !ok2 || lt.Before(st) || lt.After(until) {
		r.bad = true
		return
	}
	sv := s[key]
	r.set(func() { l[key] = sv })
}

// series compares an events.k8s.io series: its count and last observed
// time as the event's own; a singleton's first repeat starts one.
func (r *repeat) series(l, s map[string]any, until time.Time) {
	ls, lok := l["series"].(map[string]any)
	ss, sok := s["series"].(map[string]any)
	switch {
	case lok && sok:
		r.count(ls["count"], ss["count"], func() { ls["count"] = ss["count"] })
		r.time(ls, ss, "lastObservedTime", until)
	case lok && s["series"] == nil:
		c, ok1 := asInt(ls["count"])
		t, ok2 := parseTime(ls["lastObservedTime"])
		first, ok3 := parseTime(s["eventTime"])
		if !ok1 || !ok2 || c < 2 || t.After(until) || ok3 && t.Before(first) {
			r.bad = true
			return
		}
		r.up = true
		sv, had := s["series"]
		r.set(func() {
			if had {
				l["series"] = sv
			} else {
				delete(l, "series")
			}
		})
	case !reflect.DeepEqual(l["series"], s["series"]):
		r.bad = true
	}
}

// sameObject says whether two objects have the same name, namespace and
// uid: a repeat is of the same event.
func sameObject(l, s map[string]any) bool {
	lm, _ := l["metadata"].(map[string]any)
	sm, _ := s["metadata"].(map[string]any)
	if lm == nil || sm == nil {
		return false
	}
	for _, k := range []string{"name", "namespace", "uid"} {
		if !reflect.DeepEqual(lm[k], sm[k]) {
			return false
		}
	}
	return true
}

// metadata compares what every write changes: the object's
// resourceVersion, and its managers' times (later, up to until).
func (r *repeat) metadata(l, s map[string]any, until time.Time) {
	if !sameObject(l, s) {
		r.bad = true
		return
	}
	lm, _ := l["metadata"].(map[string]any)
	sm, _ := s["metadata"].(map[string]any)
	if lv, sv := lm["resourceVersion"], sm["resourceVersion"]; lv != nil && sv != nil && !reflect.DeepEqual(lv, sv) {
		r.set(func() { lm["resourceVersion"] = sv })
	}
	lf, _ := lm["managedFields"].([]any)
	sf, _ := sm["managedFields"].([]any)
	if len(lf) != len(sf) {
		return
	}
	for i := range lf {
		lfm, _ := lf[i].(map[string]any)
		sfm, _ := sf[i].(map[string]any)
		if lfm != nil && sfm != nil {
			r.time(lfm, sfm, "time", until)
		}
	}
}

// apply makes the changes of a repeat, and counts the event, when a count
// went up and nothing else changed otherwise.
func (n *normalizer) apply(r *repeat) {
	if r.bad || !r.up {
		return
	}
	for _, fix := range r.fixes {
		fix()
	}
	n.count(NormEventRepeats, 1)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	case float64:
		return int64(x), x == math.Trunc(x)
	case string: // a cell of kubectl's text
		i, err := strconv.ParseInt(x, 10, 64)
		return i, err == nil
	}
	return 0, false
}

func parseTime(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// revisionOrder orders two resourceVersions of lists as etcd's revisions
// (1: a after b, -1: before, 0: equal or not revisions): which of two
// answers was read later, where the gate knows the store is etcd.
func revisionOrder(a, b any) int {
	as, _ := a.(string)
	bs, _ := b.(string)
	x, err1 := strconv.ParseUint(as, 10, 64)
	y, err2 := strconv.ParseUint(bs, 10, 64)
	switch {
	case err1 != nil || err2 != nil || x == y:
		return 0
	case x > y:
		return 1
	}
	return -1
}
