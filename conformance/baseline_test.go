package conformance

import (
	"strings"
	"testing"
)

func TestEmbeddedBaselineParses(t *testing.T) {
	b, err := LoadBaseline("")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range b.Divergences {
		if len(strings.Fields(e.Reason)) < 8 {
			t.Errorf("%s: a reason of a few words does not justify a divergence: %q", e.String(), e.Reason)
		}
	}
}

func TestParseBaselineRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"no reason":     "divergences:\n- case: get/pods\n",
		"blank reason":  "divergences:\n- case: get/pods\n  reason: '  '\n",
		"no case":       "divergences:\n- reason: because\n",
		"unknown field": "divergences:\n- case: get/pods\n  reason: because\n  contain: x\n",
	} {
		if _, err := ParseBaseline(name, []byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func result(id string, divs ...Divergence) *CaseResult {
	check, _, _ := strings.Cut(id, "/")
	return &CaseResult{Case: Case{ID: id, Check: check}, Divergences: divs}
}

func TestBaselineApply(t *testing.T) {
	b, err := ParseBaseline("test", []byte(`divergences:
- case: raw-api
  output: body
  changes: serverAddress
  reason: the served bundle is another server
- case: get*/componentstatuses
  output: stderr
  reason: deprecation warnings
- case: get/gone
  reason: fixed long ago
`))
	if err != nil {
		t.Fatal(err)
	}
	addr := Divergence{Output: "body", Diff: "  map[string]any{\n- \t\"serverAddress\": string(\"192.0.2.1:1\"),\n+ \t\"serverAddress\": string(\"127.0.0.1:2\"),\n  }"}
	other := Divergence{Output: "body", Diff: "  map[string]any{\n  \t\"serverAddress\": string(\"x\"),\n- \t\"versions\": []any{string(\"v1\")},\n  }"}
	warn := Divergence{Output: "stderr", Diff: "- Warning"}
	rs := []*CaseResult{
		result("raw-api", addr),                    // accepted
		result("raw-apis", addr),                   // another case: not accepted
		result("get/componentstatuses", warn),      // accepted by the glob
		result("get-wide/componentstatuses", warn), // accepted by the glob
		result("get/componentstatuses-x", warn),    // not matched: the glob is anchored
		result("get-json/componentstatuses", warn, Divergence{Output: "stdout", Diff: "- x"}), // stdout not accepted
		result("raw-api-v1", other),
		result("get/pods"),
	}
	rs = append(rs, result("raw-api2", other))
	stale := b.Apply(rs, false, LiveCluster{})
	want := map[string]bool{"raw-api": true, "get/componentstatuses": true, "get-wide/componentstatuses": true}
	for _, r := range rs {
		if accepted := r.Diverged() && !r.Failed(); accepted != want[r.Case.ID] {
			t.Errorf("%s: accepted %v (baseline %q)", r.Case.ID, accepted, r.Baseline)
		}
	}
	if len(stale) != 1 || stale[0].Case != "get/gone" {
		t.Errorf("stale %v", stale)
	}
	// The changes field accepts only diffs whose every change mentions it.
	b2, _ := ParseBaseline("test", []byte("divergences:\n- case: raw-api\n  changes: serverAddress\n  reason: r\n"))
	r := result("raw-api", other)
	if b2.Apply([]*CaseResult{r}, false, LiveCluster{}); !r.Failed() {
		t.Error("a change of versions was accepted by an entry about serverAddress")
	}
}

func TestBaselineStaleWhenFiltered(t *testing.T) {
	b, _ := ParseBaseline("test", []byte(`divergences:
- case: get/pods
  reason: r
- case: describe/*
  reason: r
`))
	// Only get/pods ran, and passed: its entry is stale, the describe
	// entry was not exercised.
	stale := b.Apply([]*CaseResult{result("get/pods")}, true, LiveCluster{})
	if len(stale) != 1 || stale[0].Case != "get/pods" {
		t.Errorf("filtered: stale %v", stale)
	}
	stale = b.Apply([]*CaseResult{result("get/pods")}, false, LiveCluster{})
	if len(stale) != 2 {
		t.Errorf("unfiltered: stale %v", stale)
	}
}

// An entry limited to some minors neither accepts nor goes stale against a
// live cluster of another.
func TestBaselineMinors(t *testing.T) {
	b, err := ParseBaseline("test", []byte(`divergences:
- case: get/pods
  since: "1.37"
  reason: r
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		minor         string
		failed, stale bool
	}{{"1.35", true, false}, {"1.37", false, false}} {
		r := result("get/pods", Divergence{Output: "stdout", Diff: "-a\n+b"})
		stale := b.Apply([]*CaseResult{r}, false, LiveCluster{Minor: c.minor})
		if r.Failed() != c.failed || (len(stale) > 0) != c.stale {
			t.Errorf("%s: failed %v, stale %v", c.minor, r.Failed(), stale)
		}
	}
	if stale := b.Apply([]*CaseResult{result("get/pods")}, false, LiveCluster{Minor: "1.35"}); len(stale) != 0 {
		t.Errorf("stale against 1.35: %v", stale)
	}
	if _, err := ParseBaseline("test", []byte("divergences:\n- case: x\n  upTo: latest\n  reason: r\n")); err == nil {
		t.Error("upTo: latest was taken")
	}
}

// An entry limited to a group version neither accepts nor goes stale
// against a live cluster that does not serve it (kind's 1.37 serves no beta
// API; the same run against a bare apiserver that does must still pass).
func TestBaselineServed(t *testing.T) {
	b, err := ParseBaseline("test", []byte(`divergences:
- case: converted/certificates.k8s.io.v1beta1.podcertificaterequests/*
  served: certificates.k8s.io/v1beta1
  reason: r
`))
	if err != nil {
		t.Fatal(err)
	}
	id := "converted/certificates.k8s.io.v1beta1.podcertificaterequests/conformance-a"
	beta := LiveCluster{Minor: "1.37", Served: map[string]bool{"v1": true, "certificates.k8s.io/v1beta1": true}}
	noBeta := LiveCluster{Minor: "1.37", Served: map[string]bool{"v1": true, "certificates.k8s.io/v1": true}}

	r := result(id, Divergence{Output: "items", Diff: "-a\n+b"})
	if stale := b.Apply([]*CaseResult{r}, false, beta); r.Failed() || len(stale) != 0 {
		t.Errorf("served: failed %v, stale %v", r.Failed(), stale)
	}
	if stale := b.Apply([]*CaseResult{result("get/pods")}, false, beta); len(stale) != 1 {
		t.Errorf("served, the case gone: stale %v, want the entry", stale)
	}
	if stale := b.Apply([]*CaseResult{result("get/pods")}, false, noBeta); len(stale) != 0 {
		t.Errorf("not served: stale %v", stale)
	}
	r = result(id, Divergence{Output: "items", Diff: "-a\n+b"})
	if b.Apply([]*CaseResult{r}, false, noBeta); !r.Failed() {
		t.Error("not served: the entry accepted a divergence")
	}
	for _, bad := range []string{"certificates.k8s.io/", "a/b/c"} {
		if _, err := ParseBaseline("test", []byte("divergences:\n- case: x\n  served: "+bad+"\n  reason: r\n")); err == nil {
			t.Errorf("served: %s was taken", bad)
		}
	}
}

// changes accepts a diff only when every changed line holds its text, or
// one of its "|" alternatives.
func TestBaselineChanges(t *testing.T) {
	diff := "  {\n-   \"scope\": null,\n+   \"scope\": \"Cluster\",\n    \"name\": \"x\",\n"
	for changes, want := range map[string]bool{
		"scope":             true,
		"null|Cluster":      true,
		"null":              false,
		"name":              false,
		"other|scope|again": true,
	} {
		if got := everyChangeContains(diff, changes); got != want {
			t.Errorf("%q: %v, want %v", changes, got, want)
		}
	}
	if everyChangeContains("  unchanged\n", "x") {
		t.Error("a diff without changed lines was accepted")
	}
}
