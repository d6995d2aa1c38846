package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// The normalizations: the only differences between the live cluster and
// the served bundle that the gate forgives, each because the value truly
// moves between the collection and the query. Each one that changes
// something is counted and reported; none applies unless a check names it.
const (
	// NormAges: an age the server rendered into a table (a cell such as
	// AGE or LAST SEEN, "7 (10h ago)"), as of the collection in the served
	// bundle and as of the query on the live side. The live age must be
	// the served one advanced by the time between the two renderings:
	// between the end of the collection and the start of the live run,
	// and the end of the live run and the start of the collection. The
	// rest of the line must be the same. And where the printed precision
	// shows it, an AGE column that did not advance is a divergence too:
	// the served bundle's ages are frozen at the collection.
	NormAges = "ages"
	// NormClientAges: an age kubectl computes itself from a timestamp at
	// the time it runs (describe, kubectl events), on both sides. The
	// served side runs first, so the live age may be ahead by no more than
	// the time between the start of the served run and the end of the
	// live one, and never behind.
	NormClientAges = "clientAges"
	// NormResourceVersion: metadata.resourceVersion of a list or a Table
	// (a JSON body, or kubectl's JSON or YAML output: kubectl prints an
	// empty list written without items, as 1.26 wrote its
	// admissionregistration v1alpha1 lists, as one item, the list
	// itself), which is the store's revision at the time of the request
	// and moves with every write anywhere in the cluster (the apiserver's
	// own lease renewals included). Objects' resourceVersions are not
	// normalized here: on a cluster whose objects do not change they must
	// be equal (an Event recorded again: NormEventRepeats).
	NormResourceVersion = "resourceVersion"
	// NormManagedFieldsTime: metadata.managedFields[].time of an object in
	// a JSON body: the time of a field manager's last write. It moves only
	// when the object is written after the collection.
	NormManagedFieldsTime = "managedFieldsTime"
	// NormUnorderedRows: the rows of a table, the body lines of kubectl's
	// output after the header, or the items of a list, compared as a set
	// (sorted on both sides). Only for resources whose server computes the
	// list at each request in no fixed order (ComponentStatus).
	NormUnorderedRows = "unorderedRows"
	// NormKlogPrefix: the "E1123 07:01:09.123456   12345 file.go:42]"
	// header of a klog line kubectl prints on stderr: the time and the
	// process id of that kubectl run.
	NormKlogPrefix = "klogPrefix"
	// NormHeartbeats: a node's heartbeats as kubectl describe prints them,
	// its lease's RenewTime (the kubelet renews it every ten seconds) and
	// its conditions' LastHeartbeatTime (rewritten every five minutes).
	// The live one must be the served one or later, by no more than the
	// time between the start of the collection and the end of the live
	// run and a lease's duration (a renewal may predate the collection);
	// the rest of the line must be the same.
	NormHeartbeats = "heartbeats"
	// NormEventRepeats: an Event that its component recorded again
	// between the collection and the query (a crash-looping container's
	// BackOff, a failing pull's Failed, BackOff and Pulling, every few
	// seconds to five minutes): the live event counts more, was last seen
	// later, and was written again. Forgiven only where the count went up
	// (a repeat), and only what a repeat changes, forward in time: the
	// count (count, deprecatedCount, series.count), the last time
	// (lastTimestamp, deprecatedLastTimestamp, series.lastObservedTime:
	// no earlier than the served one, no later than the end of the live
	// run), metadata.resourceVersion and managedFields times of the Event
	// (core or events.k8s.io, and the rows of an events Table); in
	// kubectl's events tables (get, kubectl events, describe's Events) a
	// LAST SEEN that is younger but not older than the served one plus
	// the age window, the COUNT or "(xN over AGE)" that went up, its
	// "over" age advancing as an age does. Such lines, and equal ones, are
	// matched as a multiset within the table's body, since kubectl events
	// and describe sort events by their last time. Everything else must be
	// equal.
	NormEventRepeats = "eventRepeats"
	// NormStatusWrites: an object whose status its controller or kubelet
	// wrote again between the collection and the query (a pod whose image
	// pull is retried flips between ErrImagePull and ImagePullBackOff at
	// each back-off, for as long as it lives, so no round of collection
	// catches it still). Forgiven only where the live object is the
	// served one at a later revision and every managedFields entry that
	// changed is a write to the status subresource: then its status, its
	// resourceVersion, and those entries' fields and times (later, no
	// later than the end of the live run) are the served ones. Its spec,
	// the rest of its metadata and every other manager's entry must be
	// equal.
	NormStatusWrites = "statusWrites"
)

// NormOutsideCollection is the one normalization no check names, since
// it follows from the run, not from a resource: the gate collects its own
// namespaces only, and the served bundle truthfully warns that it did not
// collect a namespaced resource in the others ("Warning: this support
// bundle did not collect pods in namespaces default, kube-system: ...").
// Such a warning is dropped from the served stderr when every namespace
// it names is outside the collection; one that names a collected
// namespace stays, and diverges.
const NormOutsideCollection = "outsideCollection"

// notCollectedRE is serve's warning about namespaces it did not collect.
var notCollectedRE = regexp.MustCompile(`^Warning: this support bundle did not collect \S+ in namespaces? (.+): an empty answer there does not mean`)

// dropOutsideCollection removes from stderr the warnings about namespaces
// outside collected (nil: all were collected, nothing is dropped) and
// says how many it removed.
func dropOutsideCollection(stderr string, collected []string) (string, int) {
	if len(collected) == 0 || !strings.Contains(stderr, "did not collect") {
		return stderr, 0
	}
	in := map[string]bool{}
	for _, ns := range collected {
		in[ns] = true
	}
	var kept []string
	dropped := 0
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if m := notCollectedRE.FindStringSubmatch(strings.TrimRight(line, "\n")); m != nil && !anyIn(strings.Split(m[1], ", "), in) {
			dropped++
			continue
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, ""), dropped
}

func anyIn(names []string, set map[string]bool) bool {
	for _, n := range names {
		if set[n] {
			return true
		}
	}
	return false
}

// Normalizations lists every normalization a check may name.
var Normalizations = []string{NormAges, NormClientAges, NormResourceVersion, NormManagedFieldsTime, NormUnorderedRows, NormKlogPrefix, NormHeartbeats, NormEventRepeats, NormStatusWrites}

func knownNormalization(n string) bool {
	for _, k := range Normalizations {
		if k == n {
			return true
		}
	}
	return false
}

// normalizer applies a case's normalizations and counts what each changed.
type normalizer struct {
	enabled map[string]bool
	// ages and clientAges are the windows of NormAges and NormClientAges.
	ages, clientAges window
	// until is the latest time the live side can show (the end of its
	// run): no repeat of an event is later (NormEventRepeats). Zero
	// forgives no time.
	until  time.Time
	counts map[string]int
	// violations are what the normalizations found wrong in output that
	// is otherwise equal (an AGE that did not advance).
	violations []string
}

func newNormalizer(names []string, ages, clientAges window) *normalizer {
	n := &normalizer{enabled: map[string]bool{}, ages: ages, clientAges: clientAges, counts: map[string]int{}}
	for _, name := range names {
		n.enabled[name] = true
	}
	return n
}

func (n *normalizer) count(name string, k int) {
	if k > 0 {
		n.counts[name] += k
	}
}

// forgiveAges says whether live is served with its ages advanced as one
// of the enabled age normalizations allows, and counts them.
func (n *normalizer) forgiveAges(live, served string, cellwise bool) bool {
	try := agesAdvanced
	if cellwise {
		try = cellsAgesAdvanced
	}
	for _, k := range []string{NormAges, NormClientAges} {
		if !n.enabled[k] {
			continue
		}
		w := n.ages
		if k == NormClientAges {
			w = n.clientAges
		}
		if ok, c := try(live, served, w); ok {
			n.count(k, c)
			return true
		}
	}
	return false
}

var klogRE = regexp.MustCompile(`(?m)^[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\s+[0-9]+ ([^ \]]+:[0-9]+)\]`)

// text normalizes kubectl's output (or a text body): it returns live
// rewritten so that every difference the normalizations forgive is gone,
// and served (changed only by unorderedRows and klogPrefix, which apply
// to both sides).
func (n *normalizer) text(live, served string) (string, string) {
	if n.enabled[NormKlogPrefix] {
		l := klogRE.ReplaceAllString(live, "<klog> $1]")
		s := klogRE.ReplaceAllString(served, "<klog> $1]")
		if l != live || s != served {
			n.count(NormKlogPrefix, len(klogRE.FindAllString(live, -1))+len(klogRE.FindAllString(served, -1)))
		}
		live, served = l, s
	}
	if live != served && (n.enabled[NormResourceVersion] || n.enabled[NormEventRepeats]) {
		// kubectl's JSON or YAML: both sides are printed by the same
		// kubectl, so documents equal once normalized were printed the
		// same.
		if l, ok := decodeDocument(live); ok {
			if s, ok := decodeDocument(served); ok {
				if n.walk(l, s, nil); reflect.DeepEqual(l, s) {
					live = served
				}
			}
		}
	}
	ll, sl := lines(live), lines(served)
	if live != served && n.enabled[NormUnorderedRows] && len(ll) > 1 && len(sl) > 1 {
		ls, ss := sortedBody(ll), sortedBody(sl)
		if !equalStrings(ls, ll) || !equalStrings(ss, sl) {
			n.count(NormUnorderedRows, 1)
		}
		ll, sl = ls, ss
	}
	if n.enabled[NormAges] {
		// Before any line is forgiven: only lines equal as printed.
		n.checkFrozenAges(ll, sl)
	}
	if n.enabled[NormHeartbeats] {
		n.heartbeats(ll, sl)
	}
	if n.enabled[NormEventRepeats] {
		ll = n.eventLines(ll, sl)
	}
	if (n.enabled[NormAges] || n.enabled[NormClientAges]) && len(ll) == len(sl) {
		for i := range ll {
			if ll[i] != sl[i] && n.forgiveAges(ll[i], sl[i], true) {
				ll[i] = sl[i]
			}
		}
	}
	return strings.Join(ll, "\n"), strings.Join(sl, "\n")
}

// checkFrozenAges finds the rows whose AGE cell is the same on both sides
// although the live one was rendered later by more than the printed
// precision can hide: a served age that moves with the wall clock instead
// of staying at the collection. Only the AGE column is checked; other
// columns that look like ages may be durations (a finished Job's).
func (n *normalizer) checkFrozenAges(ll, sl []string) {
	if len(ll) != len(sl) {
		return
	}
	col := -1
	for i := range ll {
		if isHeader(ll[i]) {
			col = ageColumn(ll[i])
			continue
		}
		if col < 0 || ll[i] != sl[i] || ll[i] == "" {
			continue
		}
		cell := cellAt(ll[i], col)
		a, ok := parseAge(cell)
		if ok && !ageAdvanced(a, a, n.ages) {
			n.violations = append(n.violations, fmt.Sprintf("AGE %s is the same on both sides, but the live table was rendered %s after the collection's: the served age moved with the clock\n  %s", cell, n.ages, ll[i]))
		}
	}
}

var ageHeaderRE = regexp.MustCompile(`(?:^|\s{2,})(AGE)(?:\s{2,}|$)`)

// ageColumn is the offset of the AGE column in a header line, or -1.
func ageColumn(header string) int {
	m := ageHeaderRE.FindStringSubmatchIndex(header)
	if m == nil {
		return -1
	}
	return m[2]
}

// cellAt is the cell of an aligned line that starts at offset col.
func cellAt(line string, col int) string {
	if col >= len(line) || col > 0 && line[col-1] != ' ' {
		return ""
	}
	rest := line[col:]
	if i := strings.Index(rest, "  "); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

// cellsAgesAdvanced compares two lines of kubectl's column output (or any
// text) cell by cell, cells being separated by two or more spaces: the
// columns of the live and the served output are aligned to different
// widths when an age is longer on one side ("2m19s" and "2s"), so the
// lines can only be compared cell by cell.
func cellsAgesAdvanced(live, served string, w window) (bool, int) {
	lc, sc := cells(live), cells(served)
	if len(lc) != len(sc) {
		return false, 0
	}
	total := 0
	for i := range lc {
		if lc[i] == sc[i] {
			continue
		}
		ok, k := agesAdvanced(lc[i], sc[i], w)
		if !ok {
			return false, 0
		}
		total += k
	}
	// Equal cells but different spacing: the alignment changed because
	// an age elsewhere in the column did; nothing to count on this line.
	return true, total
}

var cellSep = regexp.MustCompile(`\s{2,}|\t`)

func cells(line string) []string {
	line = strings.TrimRight(line, " \t")
	lead := len(line) - len(strings.TrimLeft(line, " "))
	out := cellSep.Split(strings.TrimLeft(line, " "), -1)
	if lead > 0 {
		// Indentation is part of the structure (describe's sections).
		out = append([]string{strings.Repeat(" ", lead)}, out...)
	}
	return out
}

func lines(s string) []string { return strings.Split(s, "\n") }

// sortedBody sorts the lines of kubectl's output, keeping a table header
// (a first line in capitals, "NAME   STATUS ...") first and blank lines
// last. JSON or YAML output is then compared as a multiset of lines.
func sortedBody(ls []string) []string {
	out := append([]string(nil), ls...)
	body := out
	if len(out) > 0 && isHeader(out[0]) {
		body = out[1:]
	}
	sort.SliceStable(body, func(i, j int) bool {
		if (body[i] == "") != (body[j] == "") {
			return body[j] == ""
		}
		return body[i] < body[j]
	})
	return out
}

var headerRE = regexp.MustCompile(`^[A-Z][A-Z0-9 ()/_.-]*$`)

func isHeader(line string) bool { return headerRE.MatchString(strings.TrimSpace(line)) }

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// json normalizes two decoded JSON documents: live is rewritten in place
// where a normalization forgives the difference; both are sorted where
// unorderedRows applies.
func (n *normalizer) json(live, served any) {
	n.walk(live, served, nil)
}

func (n *normalizer) walk(live, served any, path []string) {
	switch l := live.(type) {
	case map[string]any:
		s, ok := served.(map[string]any)
		if !ok {
			return
		}
		if n.enabled[NormEventRepeats] {
			n.eventDocument(l, s)
		}
		if n.enabled[NormStatusWrites] {
			n.forgiveStatusWrite(l, s)
		}
		if n.enabled[NormResourceVersion] && isListDocument(l) && isListDocument(s) {
			lm, _ := l["metadata"].(map[string]any)
			sm, _ := s["metadata"].(map[string]any)
			if lm != nil && sm != nil {
				if lv, ok := lm["resourceVersion"]; ok {
					if sv, ok := sm["resourceVersion"]; ok && lv != sv {
						lm["resourceVersion"] = sv
						n.count(NormResourceVersion, 1)
					}
				}
			}
		}
		if n.enabled[NormUnorderedRows] {
			for _, key := range []string{"items", "rows"} {
				la, lok := l[key].([]any)
				sa, sok := s[key].([]any)
				if lok && sok {
					if sortByIdentity(la) || sortByIdentity(sa) {
						n.count(NormUnorderedRows, 1)
					}
				}
			}
		}
		for k, lv := range l {
			sv, ok := s[k]
			if !ok {
				continue
			}
			if n.enabled[NormManagedFieldsTime] && k == "time" && len(path) >= 2 && path[len(path)-1] == "[]" && path[len(path)-2] == "managedFields" {
				if lv != sv {
					l[k] = sv
					n.count(NormManagedFieldsTime, 1)
				}
				continue
			}
			if ls, ok := lv.(string); ok {
				if ss, ok := sv.(string); ok && ls != ss && n.forgiveAges(ls, ss, false) {
					l[k] = ss
				}
				continue
			}
			n.walk(lv, sv, append(path, k))
		}
	case []any:
		s, ok := served.([]any)
		if !ok || len(s) != len(l) {
			return
		}
		for i := range l {
			if ls, ok := l[i].(string); ok {
				if ss, ok := s[i].(string); ok && ls != ss && n.forgiveAges(ls, ss, false) {
					l[i] = ss
				}
				continue
			}
			n.walk(l[i], s[i], append(path, "[]"))
		}
	}
}

// decodeDocument decodes kubectl's JSON output, or its YAML (which
// starts with apiVersion, the first of the sorted keys).
func decodeDocument(out string) (any, bool) {
	var v any
	if json.Unmarshal([]byte(out), &v) == nil {
		return v, true
	}
	if strings.HasPrefix(out, "apiVersion: ") && yaml.Unmarshal([]byte(out), &v) == nil {
		return v, true
	}
	return nil, false
}

// isListDocument says whether a JSON object is a list or a Table, whose
// metadata.resourceVersion is the store's revision at the request.
func isListDocument(m map[string]any) bool {
	kind, _ := m["kind"].(string)
	if kind == "Table" || strings.HasSuffix(kind, "List") {
		return true
	}
	_, items := m["items"]
	return items
}

// sortByIdentity sorts list items or table rows by namespace and name
// (a table row by its object's metadata, else its first cell); it says
// whether the order changed.
func sortByIdentity(a []any) bool {
	keys := make([]string, len(a))
	for i, v := range a {
		keys[i] = identityKey(v)
	}
	idx := make([]int, len(a))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return keys[idx[i]] < keys[idx[j]] })
	changed := false
	sorted := make([]any, len(a))
	for i, k := range idx {
		sorted[i] = a[k]
		if k != i {
			changed = true
		}
	}
	copy(a, sorted)
	return changed
}

func identityKey(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Sprint(v)
	}
	meta, _ := m["metadata"].(map[string]any)
	if obj, ok := m["object"].(map[string]any); ok && meta == nil {
		meta, _ = obj["metadata"].(map[string]any)
	}
	if meta != nil {
		return fmt.Sprintf("%v/%v", meta["namespace"], meta["name"])
	}
	if c, ok := m["cells"].([]any); ok && len(c) > 0 {
		return fmt.Sprint(c[0])
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// describeTime is how kubectl describe prints a time.
const describeTime = "Mon, 02 Jan 2006 15:04:05 -0700"

// leaseDuration is a node lease's duration (the kubelet's
// nodeLeaseDurationSeconds): a renewal the collection read may be that
// old.
const leaseDuration = 40 * time.Second

// heartbeats forgives, in ll, what NormHeartbeats allows: the value of a
// "RenewTime:" line, and the LastHeartbeatTime cell of the rows of a
// conditions table whose header names that column.
func (n *normalizer) heartbeats(ll, sl []string) {
	if len(ll) != len(sl) {
		return
	}
	col := -1
	for i := range ll {
		l, s := ll[i], sl[i]
		if !strings.HasPrefix(l, " ") {
			col = -1 // a new section
		}
		lc, sc := cells(l), cells(s)
		if j := indexOf(lc, "LastHeartbeatTime"); j >= 0 && l == s {
			col = j
			continue
		}
		if l == s || len(lc) != len(sc) {
			continue
		}
		j := col
		if len(lc) >= 2 && strings.HasSuffix(lc[len(lc)-2], "RenewTime:") {
			j = len(lc) - 1
		}
		if j < 0 || j >= len(lc) || !n.heartbeatAdvanced(lc[j], sc[j]) {
			continue
		}
		lc[j] = sc[j]
		if equalStrings(lc, sc) {
			ll[i] = s
			n.count(NormHeartbeats, 1)
		}
	}
}

// heartbeatAdvanced says whether live is served or a later heartbeat
// within the bound NormHeartbeats sets.
func (n *normalizer) heartbeatAdvanced(live, served string) bool {
	lt, err1 := time.Parse(describeTime, live)
	st, err2 := time.Parse(describeTime, served)
	if err1 != nil || err2 != nil {
		return false
	}
	d := lt.Sub(st)
	return d >= 0 && d <= n.ages.hi+leaseDuration
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
