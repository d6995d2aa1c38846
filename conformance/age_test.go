package conformance

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// parseAge reads back what HumanDuration prints, and the duration it
// read covers the one printed from.
func TestParseAgeInvertsHumanDuration(t *testing.T) {
	n := 0
	for d := time.Duration(0); d < 10*year; n++ {
		s := duration.HumanDuration(d)
		a, ok := parseAge(s)
		if !ok {
			t.Fatalf("HumanDuration(%s) = %q: not read as an age", d, s)
		}
		if d < a.lo || d >= a.lo+a.gran {
			t.Fatalf("HumanDuration(%s) = %q read as [%s, %s)", d, s, a.lo, a.lo+a.gran)
		}
		// Steps of about 0.3%, odd seconds included, to visit every shape.
		d += d/300 + time.Duration(n%7)*time.Second + time.Second
	}
}

func TestParseAgeRefusesWhatHumanDurationNeverPrints(t *testing.T) {
	for _, s := range []string{"", "0", "s", "1h2s", "150s", "12m30s", "3m60s", "2h", "9h5m", "48h", "1d", "3d24h", "800d", "2y400d", "v1.35.4", "10.244.1.5", "ExitCode:3", "5m0s"} {
		if a, ok := parseAge(s); ok {
			t.Errorf("%q read as an age: %+v", s, a)
		}
	}
	for _, s := range []string{"0s", "119s", "2m", "2m30s", "10m", "179m", "3h", "7h59m", "8h", "47h", "2d", "7d23h", "8d", "729d", "2y", "2y70d", "7y364d", "8y", "20y"} {
		if _, ok := parseAge(s); !ok {
			t.Errorf("%q not read as an age", s)
		}
	}
}

func TestAgeAdvanced(t *testing.T) {
	for _, tc := range []struct {
		live, served string
		elapsed      time.Duration
		want         bool
	}{
		{"2m19s", "2s", 140 * time.Second, true},
		{"2m19s", "2s", 130 * time.Second, false}, // ahead by more than the time elapsed
		{"2s", "2s", time.Second, true},
		{"1s", "2s", time.Hour, false}, // behind: never
		{"10h", "10h", 3 * time.Minute, true},
		{"11h", "10h", 3 * time.Minute, true},       // 10h59m59s + 2s
		{"12h", "10h", 3 * time.Minute, false},      // at least an hour ahead
		{"45m", "44m", 10 * time.Second, true},      // 44m59s + 2s
		{"400d", "400d", 10 * time.Minute, true},    // same day
		{"401d", "400d", 10 * time.Minute, true},    // across midnight of the age
		{"3m10s", "2m59s", 12 * time.Second, true},  // 11s ahead
		{"3m10s", "2m59s", 10 * time.Second, false}, // 11s ahead, 10s elapsed
	} {
		l, ok1 := parseAge(tc.live)
		s, ok2 := parseAge(tc.served)
		if !ok1 || !ok2 {
			t.Fatalf("%q or %q not an age", tc.live, tc.served)
		}
		if got := ageAdvanced(l, s, window{0, tc.elapsed}); got != tc.want {
			t.Errorf("live %s, served %s, %s elapsed: %v, want %v", tc.live, tc.served, tc.elapsed, got, tc.want)
		}
	}
}

func TestAgesAdvancedInText(t *testing.T) {
	for _, tc := range []struct {
		live, served string
		want         bool
		n            int
	}{
		{"7 (10h ago)", "7 (10h ago)", true, 0},
		{"7 (11h ago)", "7 (10h ago)", true, 1},
		{"8 (10h ago)", "7 (10h ago)", false, 0}, // the restart count is no age
		{"10h (x3 over 2d)", "10h (x3 over 2d)", true, 0},
		{"55s (x3 over 2d)", "50s (x3 over 2d)", true, 1},
		{"pod-2s", "pod-1s", false, 0},   // not a word of its own
		{"Running", "Pending", false, 0}, // no age at all
		{"30s", "<unknown>", false, 0},
	} {
		ok, n := agesAdvanced(tc.live, tc.served, window{0, time.Minute})
		if ok != tc.want || n != tc.n {
			t.Errorf("%q vs %q: %v %d, want %v %d", tc.live, tc.served, ok, n, tc.want, tc.n)
		}
	}
}

// The lower bound of the window catches a served age that moved with the
// clock: rendered at the query instead of the collection.
func TestAgeWindowLowerBound(t *testing.T) {
	w := window{lo: 130 * time.Second, hi: 145 * time.Second}
	for _, tc := range []struct {
		live, served string
		want         bool
	}{
		{"2m19s", "2s", true},
		{"2m19s", "2m18s", false}, // the served age advanced too
		{"2m19s", "2m19s", false},
		{"10h", "10h", true}, // an hour's precision hides two minutes
		{"45m", "43m", true},
		{"45m", "45m", false}, // a minute's precision shows two minutes
		{"47m", "45m", true},
		{"45m", "40m", false},
	} {
		l, _ := parseAge(tc.live)
		s, _ := parseAge(tc.served)
		if got := ageAdvanced(l, s, w); got != tc.want {
			t.Errorf("live %s served %s in %s: %v, want %v", tc.live, tc.served, w, got, tc.want)
		}
	}
}
