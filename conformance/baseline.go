package conformance

import (
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/bundlectl/bundlectl/contract"
)

// defaultBaseline is the checked-in list of known, accepted divergences.
//
//go:embed baseline.yaml
var defaultBaseline []byte

// Baseline is the list of divergences that are known and accepted, each
// with the reason it is not a bug. The gate fails on any divergence no
// entry accepts, and on entries that accept nothing any more.
type Baseline struct {
	Divergences []BaselineEntry `json:"divergences"`

	name string
}

// BaselineEntry accepts the divergences of the cases it matches.
type BaselineEntry struct {
	// Case is a case ID; * matches any run of characters, / included
	// ("get-json/componentstatuses", "table/componentstatuses*").
	Case string `json:"case"`
	// Output, when set, limits the entry to that output (stdout, stderr,
	// exitCode, status, contentType, body, or a part of a table such as
	// columnDefinitions).
	Output string `json:"output,omitempty"`
	// Changes, when set, must occur in every line the diff marks as
	// changed ("-" or "+"): the entry then accepts only that difference,
	// not another one in the same output. "a|b" means a or b.
	Changes string `json:"changes,omitempty"`
	// Since and UpTo, when set, limit the entry to live clusters of those
	// Kubernetes minors ("1.37"): a divergence of what one release serves
	// does not happen against another, and is not stale there either.
	Since string `json:"since,omitempty"`
	UpTo  string `json:"upTo,omitempty"`
	// Served, when set, limits the entry to live clusters that serve
	// that group version ("certificates.k8s.io/v1beta1", "v1" for the
	// core group): a divergence of a version a cluster does not enable
	// cannot happen there, and is not stale there either (kind's 1.37
	// serves no beta API, a bare apiserver with --runtime-config does).
	Served string `json:"served,omitempty"`
	// Reason says why this is not a bug; required.
	Reason string `json:"reason"`

	re          *regexp.Regexp
	since, upTo int
}

// LoadBaseline reads the baseline at path, or the embedded one when path
// is empty.
func LoadBaseline(path string) (*Baseline, error) {
	if path == "" {
		return ParseBaseline("baseline.yaml (embedded)", defaultBaseline)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseBaseline(path, data)
}

// ParseBaseline reads a baseline file.
func ParseBaseline(name string, data []byte) (*Baseline, error) {
	b := &Baseline{name: name}
	if err := yaml.UnmarshalStrict(data, b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range b.Divergences {
		e := &b.Divergences[i]
		if e.Case == "" {
			return nil, fmt.Errorf("%s: entry %d: case is required", name, i+1)
		}
		if strings.TrimSpace(e.Reason) == "" {
			return nil, fmt.Errorf("%s: entry %d (%s): a reason is required", name, i+1, e.Case)
		}
		e.re = globRE(e.Case)
		if e.Served != "" {
			if gv, err := schema.ParseGroupVersion(e.Served); err != nil || gv.Version == "" {
				return nil, fmt.Errorf("%s: entry %d (%s): served %q is not a group version such as apps/v1", name, i+1, e.Case, e.Served)
			}
		}
		for _, m := range []struct {
			text string
			into *int
		}{{e.Since, &e.since}, {e.UpTo, &e.upTo}} {
			if m.text == "" {
				continue
			}
			if *m.into = contract.MinorNumber(m.text); *m.into == 0 {
				return nil, fmt.Errorf("%s: entry %d (%s): %q is not a Kubernetes minor such as 1.37", name, i+1, e.Case, m.text)
			}
		}
	}
	return b, nil
}

// Name is the file the baseline came from.
func (b *Baseline) Name() string { return b.name }

func globRE(glob string) *regexp.Regexp {
	parts := strings.Split(glob, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

func (e *BaselineEntry) accepts(caseID string, d Divergence) bool {
	if !e.re.MatchString(caseID) {
		return false
	}
	if e.Output != "" && e.Output != d.Output {
		return false
	}
	return e.Changes == "" || everyChangeContains(d.Diff, e.Changes)
}

// everyChangeContains says whether every line of a go-cmp diff that it
// marks as changed contains text (and there is at least one).
func everyChangeContains(diff, text string) bool {
	n := 0
	for _, line := range strings.Split(diff, "\n") {
		t := strings.TrimLeft(line, " \t\u00a0")
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
			continue
		}
		if !containsAny(t, strings.Split(text, "|")) {
			return false
		}
		n++
	}
	return n > 0
}

func containsAny(s string, texts []string) bool {
	for _, t := range texts {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// String names the entry in reports.
func (e *BaselineEntry) String() string {
	s := e.Case
	if e.Output != "" {
		s += " (" + e.Output + ")"
	}
	if e.Changes != "" {
		s += fmt.Sprintf(" changing %q", e.Changes)
	}
	return s
}

// LiveCluster is what a baseline entry may be limited to: the live
// cluster's minor ("1.37") and the group versions it serves ("apps/v1").
// Either may be unknown ("", nil), which every entry holds for.
type LiveCluster struct {
	Minor  string
	Served map[string]bool
}

// appliesTo says whether the entry holds against the live cluster.
func (e *BaselineEntry) appliesTo(live LiveCluster) bool {
	if e.Served != "" && live.Served != nil && !live.Served[e.Served] {
		return false
	}
	m := contract.MinorNumber(live.Minor)
	return m == 0 || (e.since == 0 || m >= e.since) && (e.upTo == 0 || m <= e.upTo)
}

// Apply marks every case whose divergences are all accepted by baseline
// entries that hold for the live cluster, and returns the stale
// entries, which accept nothing: the divergence they describe no longer
// happens (or, unless filtered, no case has their ID any more), so they
// must go. filtered says that only some of the cases ran: an entry that
// matches none of those is not stale, merely not exercised.
func (b *Baseline) Apply(results []*CaseResult, filtered bool, live LiveCluster) []BaselineEntry {
	used := make([]bool, len(b.Divergences))
	for i := range b.Divergences {
		if !b.Divergences[i].appliesTo(live) {
			used[i] = true // neither accepts nor goes stale
		}
	}
	for _, r := range results {
		if !r.Diverged() {
			continue
		}
		var reasons []string
		all := true
		for _, d := range r.Divergences {
			found := false
			for i := range b.Divergences {
				if b.Divergences[i].appliesTo(live) && b.Divergences[i].accepts(r.Case.ID, d) {
					used[i], found = true, true
					if !contains(reasons, b.Divergences[i].Reason) {
						reasons = append(reasons, b.Divergences[i].Reason)
					}
					break
				}
			}
			all = all && found
		}
		if all {
			r.Baseline = strings.Join(reasons, " ")
		}
	}
	var stale []BaselineEntry
	for i, u := range used {
		if u {
			continue
		}
		ran := false
		for _, r := range results {
			if b.Divergences[i].re.MatchString(r.Case.ID) {
				ran = true
				break
			}
		}
		if ran || !filtered {
			stale = append(stale, b.Divergences[i])
		}
	}
	return stale
}
