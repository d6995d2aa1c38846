package conformance

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The text side of NormEventRepeats: the events tables kubectl prints,
// the server's (kubectl get events, in every form), kubectl events' own
// and describe's Events section, whose rows are compared as a multiset.

// eventBlock is an events table in kubectl's output: its header lines
// [head, body) and its rows [body, end).
type eventBlock struct {
	head, body, end int
	cols            []column
	// lastSeen and count index the LAST SEEN (describe: Age) and COUNT
	// columns; count is -1 where the table has none.
	lastSeen, count int
	// client says the LAST SEEN cells are kubectl's own (kubectl events,
	// describe): "4m26s (x86 over 24m)", or for an event seen once the
	// age of its first time. The server's are the age of the last time.
	client bool
}

// column is a column of kubectl's aligned output: its header and the
// offset (in runes) where its cells start.
type column struct {
	name string
	off  int
}

var headerCellRE = regexp.MustCompile(`\S+(?: \S+)*`)

func headerColumns(line string) []column {
	var out []column
	for _, m := range headerCellRE.FindAllStringIndex(line, -1) {
		out = append(out, column{name: line[m[0]:m[1]], off: utf8.RuneCountInString(line[:m[0]])})
	}
	return out
}

func columnIndex(cols []column, name string) int {
	for i, c := range cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// eventBlocks finds the events tables of kubectl's output: a header with
// LAST SEEN, REASON, OBJECT and MESSAGE, its rows up to a blank line; or
// describe's "Events:" with its "Type Reason Age From Message" header and
// underline, its rows the indented lines after them.
func eventBlocks(ls []string) []eventBlock {
	var out []eventBlock
	for i := 0; i < len(ls); i++ {
		var b eventBlock
		switch {
		case isHeader(ls[i]):
			b = eventBlock{head: i, body: i + 1, cols: headerColumns(ls[i])}
			if columnIndex(b.cols, "REASON") < 0 || columnIndex(b.cols, "OBJECT") < 0 || columnIndex(b.cols, "MESSAGE") < 0 {
				continue
			}
			b.lastSeen, b.count = columnIndex(b.cols, "LAST SEEN"), columnIndex(b.cols, "COUNT")
		case ls[i] == "Events:" && i+2 < len(ls) && strings.HasPrefix(ls[i+1], "  ") &&
			strings.Join(cells(ls[i+1])[1:], " ") == "Type Reason Age From Message" && strings.Trim(ls[i+2], " -") == "":
			b = eventBlock{head: i + 1, body: i + 3, cols: headerColumns(ls[i+1]), count: -1, client: true}
			b.lastSeen = columnIndex(b.cols, "Age")
		default:
			continue
		}
		if b.lastSeen < 0 {
			continue
		}
		b.end = b.body
		for b.end < len(ls) && ls[b.end] != "" && (!b.client || strings.HasPrefix(ls[b.end], "  ")) {
			b.end++
		}
		if !b.client {
			// kubectl events names the object by its kind ("Pod/web"),
			// the server's printer by its kind in lower case ("pod/web").
			obj := columnIndex(b.cols, "OBJECT")
			for j := b.body; j < b.end; j++ {
				if c, ok := cellsAt(ls[j], b.cols); ok && c[obj] != "" && c[obj][0] >= 'A' && c[obj][0] <= 'Z' {
					b.client = true
				}
			}
		}
		out = append(out, b)
		i = b.end - 1
	}
	return out
}

// cellsAt cuts a row of aligned output at its header's offsets.
func cellsAt(line string, cols []column) ([]string, bool) {
	r := []rune(line)
	out := make([]string, len(cols))
	for k, c := range cols {
		if c.off >= len(r) {
			continue // empty trailing cells
		}
		if c.off > 0 && r[c.off-1] != ' ' {
			return nil, false // not aligned with the header
		}
		end := len(r)
		if k+1 < len(cols) && cols[k+1].off < end {
			end = cols[k+1].off
		}
		out[k] = strings.TrimSpace(string(r[c.off:end]))
	}
	return out, true
}

func sameColumns(a, b []column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name {
			return false
		}
	}
	return true
}

// eventLines returns the live lines with the rows of each events table
// matched to the served ones: each served row gets a live row that is it
// or it repeated, in the served order; a live row left without a partner
// stays, after the row that preceded it. Headers equal but for their
// spacing (an age widened a column) are taken as the served ones.
func (n *normalizer) eventLines(ll, sl []string) []string {
	lb, sb := eventBlocks(ll), eventBlocks(sl)
	if len(lb) == 0 || len(lb) != len(sb) {
		return ll
	}
	for k := range lb {
		if !sameColumns(lb[k].cols, sb[k].cols) || lb[k].body-lb[k].head != sb[k].body-sb[k].head || lb[k].client != sb[k].client {
			return ll
		}
	}
	var out []string
	cursor := 0
	for k := range lb {
		out = append(out, ll[cursor:lb[k].head]...)
		for i := lb[k].head; i < lb[k].body; i++ {
			if equalStrings(cells(ll[i]), cells(sl[i-lb[k].head+sb[k].head])) {
				out = append(out, sl[i-lb[k].head+sb[k].head])
			} else {
				out = append(out, ll[i])
			}
		}
		out = append(out, n.matchRows(&lb[k], &sb[k], ll[lb[k].body:lb[k].end], sl[sb[k].body:sb[k].end])...)
		cursor = lb[k].end
	}
	return append(out, ll[cursor:]...)
}

// rowVerdict says whether a live row is a served one, and what of it was
// forgiven.
type rowVerdict struct {
	ok     bool
	repeat bool   // the event was seen again
	ages   int    // ages that advanced
	norm   string // the age normalization they advanced by
}

// matchRows pairs the rows of one events table, a maximum matching by
// augmenting paths (rows of one event may be identical, and a live row
// may be a repeat of one served row only), equal rows first; it returns
// the live rows in the order of their served partners, and counts what
// each pair forgave.
func (n *normalizer) matchRows(lb, sb *eventBlock, live, served []string) []string {
	lc := make([][]string, len(live))
	for i, l := range live {
		lc[i], _ = cellsAt(l, lb.cols)
	}
	verdicts := make([][]rowVerdict, len(served))
	adj := make([][]int, len(served))
	for j, s := range served {
		sc, ok := cellsAt(s, sb.cols)
		verdicts[j] = make([]rowVerdict, len(live))
		var other []int
		for i, l := range live {
			switch {
			case l == s:
				verdicts[j][i] = rowVerdict{ok: true}
				adj[j] = append(adj[j], i)
			case ok && lc[i] != nil:
				if v := n.rowVerdict(lb, lc[i], sc); v.ok {
					verdicts[j][i] = v
					other = append(other, i)
				}
			}
		}
		adj[j] = append(adj[j], other...)
	}
	partner := maxMatching(len(live), adj)
	// Each live row at the place of its served partner; one without
	// after the row before it.
	type slot struct{ at, seq int }
	slots := make([]slot, len(live))
	prev, moved := -1, false
	for i := range live {
		if j := partner[i]; j >= 0 {
			if j < prev {
				moved = true
			}
			prev = j
			slots[i] = slot{j, 0}
			v := verdicts[j][i]
			if v.repeat {
				n.count(NormEventRepeats, 1)
			}
			n.count(v.norm, v.ages)
			continue
		}
		slots[i] = slot{prev, i + 1}
	}
	if moved {
		n.count(NormEventRepeats, 1)
	}
	order := make([]int, len(live))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := slots[order[a]], slots[order[b]]
		return x.at < y.at || x.at == y.at && x.seq < y.seq
	})
	out := make([]string, len(live))
	for k, i := range order {
		if j := partner[i]; j >= 0 {
			out[k] = served[j]
		} else {
			out[k] = live[i]
		}
	}
	return out
}

// rowVerdict compares a live row with a served one, cell by cell, with
// the window of each age normalization the case names.
func (n *normalizer) rowVerdict(b *eventBlock, l, s []string) rowVerdict {
	for _, k := range []string{NormAges, NormClientAges} {
		if !n.enabled[k] {
			continue
		}
		w := n.ages
		if k == NormClientAges {
			w = n.clientAges
		}
		if v := eventRowVerdict(b, l, s, w); v.ok {
			v.norm = k
			return v
		}
	}
	return rowVerdict{}
}

// seen is a LAST SEEN cell: the age of the last time, the count (-1:
// not shown) and the age of the first time ("" when not shown).
type seen struct {
	last  age
	count int
	first string
}

var seenRE = regexp.MustCompile(`^(\S+) \(x([0-9]+) over (\S+)\)$`)

func parseSeen(cell string, client bool) (seen, bool) {
	if m := seenRE.FindStringSubmatch(cell); m != nil {
		a, ok := parseAge(m[1])
		c, err := strconv.Atoi(m[2])
		return seen{a, c, m[3]}, ok && err == nil
	}
	a, ok := parseAge(cell)
	if client {
		return seen{a, 1, cell}, ok // seen once: the age of its first time
	}
	return seen{a, -1, ""}, ok
}

// eventRowVerdict: every cell equal or an age advanced within w, but the
// LAST SEEN and COUNT of an event seen again: its count higher, its last
// time no earlier (an age no older than the served one plus w), its first
// time's age advanced within w.
func eventRowVerdict(b *eventBlock, l, s []string, w window) rowVerdict {
	if len(l) != len(s) {
		return rowVerdict{}
	}
	v := rowVerdict{ok: true}
	for k := range l {
		if k == b.lastSeen || k == b.count || l[k] == s[k] {
			continue
		}
		ok, c := agesAdvanced(l[k], s[k], w)
		if !ok {
			return rowVerdict{}
		}
		v.ages += c
	}
	if l[b.lastSeen] == s[b.lastSeen] && (b.count < 0 || l[b.count] == s[b.count]) {
		return v
	}
	ls, ok1 := parseSeen(l[b.lastSeen], b.client)
	ss, ok2 := parseSeen(s[b.lastSeen], b.client)
	if b.count >= 0 {
		var err1, err2 error
		ls.count, err1 = strconv.Atoi(l[b.count])
		ss.count, err2 = strconv.Atoi(s[b.count])
		ok1, ok2 = ok1 && err1 == nil, ok2 && err2 == nil
	}
	if !ok1 || !ok2 {
		return rowVerdict{}
	}
	if ls.count == ss.count || ls.count < 0 || ss.count < 0 {
		// Not seen again, or no count shown: an age that advanced.
		if ok, c := agesAdvanced(l[b.lastSeen], s[b.lastSeen], w); ok {
			v.ages += c
			return v
		}
		if ls.count >= 0 {
			return rowVerdict{}
		}
	} else if ls.count < ss.count {
		return rowVerdict{}
	}
	if !notOlder(ls.last, ss.last, w) {
		return rowVerdict{}
	}
	if ls.first != "" || ss.first != "" {
		ok, c := agesAdvanced(ls.first, ss.first, w)
		if !ok {
			return rowVerdict{}
		}
		v.ages += c
	}
	v.repeat = true
	return v
}

// maxMatching pairs every served row j with one of the live rows adj[j]
// allows, as many as can be (Kuhn's augmenting paths); it returns the
// served partner of each of nl live rows, or -1.
func maxMatching(nl int, adj [][]int) []int {
	partner := make([]int, nl)
	for i := range partner {
		partner[i] = -1
	}
	var try func(j int, seen []bool) bool
	try = func(j int, seen []bool) bool {
		for _, i := range adj[j] {
			if seen[i] {
				continue
			}
			seen[i] = true
			if partner[i] < 0 || try(partner[i], seen) {
				partner[i] = j
				return true
			}
		}
		return false
	}
	for j := range adj {
		try(j, make([]bool, nl))
	}
	return partner
}
