package conformance

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// An age is what k8s.io/apimachinery/pkg/util/duration.HumanDuration
// printed: "42s", "2m30s", "45m", "7h59m", "30h", "3d4h", "400d", "2y70d".
// The printer truncates, so a printed age stands for every duration in
// [lo, lo+granularity).
type age struct {
	lo, gran time.Duration
}

const (
	day  = 24 * time.Hour
	year = 365 * day
)

var ageRE = regexp.MustCompile(`^(?:([0-9]+)y)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$`)

// parseAge reads a HumanDuration. Only the shapes HumanDuration produces
// are accepted, so that a name such as "1h2s" is not taken for an age.
func parseAge(s string) (age, bool) {
	m := ageRE.FindStringSubmatch(s)
	if m == nil || s == "" {
		return age{}, false
	}
	var n [5]int64
	var has [5]bool
	for i := range n {
		if m[i+1] != "" {
			v, err := strconv.ParseInt(m[i+1], 10, 64)
			if err != nil {
				return age{}, false
			}
			n[i], has[i] = v, true
		}
	}
	y, d, h, mi, se := n[0], n[1], n[2], n[3], n[4]
	hy, hd, hh, hm, hs := has[0], has[1], has[2], has[3], has[4]
	count := 0
	for _, b := range has {
		if b {
			count++
		}
	}
	dur := func(v int64, unit time.Duration) time.Duration { return time.Duration(v) * unit }
	switch {
	case count == 1 && hs: // d < 2m: "Ns"
		return age{dur(se, time.Second), time.Second}, se < 120
	case count == 2 && hm && hs: // 2m <= d < 10m: "NmSs"
		return age{dur(mi, time.Minute) + dur(se, time.Second), time.Second}, mi >= 2 && mi < 10 && se > 0 && se < 60
	case count == 1 && hm:
		if mi < 10 { // "Nm" with no seconds: exactly N minutes, to the second
			return age{dur(mi, time.Minute), time.Second}, mi >= 2
		}
		return age{dur(mi, time.Minute), time.Minute}, mi < 180 // 10m <= d < 3h
	case count == 2 && hh && hm: // 3h <= d < 8h: "NhMm"
		return age{dur(h, time.Hour) + dur(mi, time.Minute), time.Minute}, h >= 3 && h < 8 && mi > 0 && mi < 60
	case count == 1 && hh:
		if h < 8 { // "Nh" with no minutes: to the minute
			return age{dur(h, time.Hour), time.Minute}, h >= 3
		}
		return age{dur(h, time.Hour), time.Hour}, h < 48 // 8h <= d < 48h
	case count == 2 && hd && hh: // 2d <= d < 8d: "NdHh"
		return age{dur(d, day) + dur(h, time.Hour), time.Hour}, d >= 2 && d < 8 && h > 0 && h < 24
	case count == 1 && hd:
		if d < 8 { // "Nd" with no hours: to the hour
			return age{dur(d, day), time.Hour}, d >= 2
		}
		return age{dur(d, day), day}, d < 730
	case count == 2 && hy && hd: // 2y <= d < 8y: "NyDd"
		return age{dur(y, year) + dur(d, day), day}, y >= 2 && y < 8 && d > 0 && d < 365
	case count == 1 && hy:
		if y < 8 {
			return age{dur(y, year), day}, y >= 2
		}
		return age{dur(y, year), year}, true
	}
	return age{}, false
}

// window is the range the true difference between a live age and the
// served one must fall in: the live age is rendered later than the
// served one, by between lo and hi.
type window struct{ lo, hi time.Duration }

func (w window) String() string {
	return fmt.Sprintf("[%s, %s]", w.lo.Round(time.Millisecond), w.hi.Round(time.Millisecond))
}

// ageAdvanced says whether some true durations behind the two printed
// ages differ by an amount in w.
func ageAdvanced(live, served age, w window) bool {
	// live.true - served.true ranges over the open interval
	// (live.lo - served.lo - served.gran, live.lo + live.gran - served.lo).
	minDiff := live.lo - served.lo - served.gran
	maxDiff := live.lo + live.gran - served.lo
	return minDiff < w.hi && maxDiff > w.lo
}

// agesAdvanced says whether the text live is the text served with every
// age advanced by an amount in w and nothing else changed, and how many
// ages differed.
func agesAdvanced(live, served string, w window) (bool, int) {
	if live == served {
		return true, 0
	}
	lt, ls := splitAges(live)
	st, ss := splitAges(served)
	if len(lt) != len(st) || len(ls) != len(ss) {
		return false, 0
	}
	for i := range ls {
		if ls[i] != ss[i] {
			return false, 0
		}
	}
	n := 0
	for i := range lt {
		if lt[i] == st[i] {
			// Equal ages must also fit the window: a served age that
			// moved with the wall clock is a divergence where the
			// printed precision can show it.
			la, _ := parseAge(lt[i])
			if !ageAdvanced(la, la, w) {
				return false, 0
			}
			continue
		}
		la, ok1 := parseAge(lt[i])
		sa, ok2 := parseAge(st[i])
		if !ok1 || !ok2 || !ageAdvanced(la, sa, w) {
			return false, 0
		}
		n++
	}
	return n > 0, n
}

// splitAges cuts text into the words that are ages and the text around
// them. Words are delimited by spaces, parentheses and commas, so that
// "7 (10h ago)" and "10h (x3 over 2d)" yield their ages.
func splitAges(s string) (tokens, rest []string) {
	last := 0
	for i := 0; i < len(s); {
		if isAgeDelim(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isAgeDelim(s[j]) {
			j++
		}
		if _, ok := parseAge(s[i:j]); ok {
			rest = append(rest, s[last:i])
			tokens = append(tokens, s[i:j])
			last = j
		}
		i = j
	}
	rest = append(rest, s[last:])
	return tokens, rest
}

func isAgeDelim(c byte) bool {
	return c == ' ' || c == '\t' || c == '(' || c == ')' || c == ','
}
