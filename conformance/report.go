package conformance

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// checkStats counts the cases of one check.
type checkStats struct {
	Check                           string
	Cases, Passed, Accepted, Failed int
	Duration                        time.Duration
}

// stats counts the cases per check, in the order the checks first appear.
func stats(cases []*CaseResult) []checkStats {
	var out []checkStats
	index := map[string]int{}
	for _, c := range cases {
		i, ok := index[c.Case.Check]
		if !ok {
			i = len(out)
			index[c.Case.Check] = i
			out = append(out, checkStats{Check: c.Case.Check})
		}
		s := &out[i]
		s.Cases++
		s.Duration += c.Duration
		switch {
		case c.Failed():
			s.Failed++
		case c.Diverged():
			s.Accepted++
		default:
			s.Passed++
		}
	}
	return out
}

func totals(cases []*CaseResult) (n, passed, accepted, failed int) {
	for _, s := range stats(cases) {
		n += s.Cases
		passed += s.Passed
		accepted += s.Accepted
		failed += s.Failed
	}
	return
}

func verdict(r *Result) string {
	if r.Passed() {
		return "PASSED"
	}
	return "FAILED"
}

func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

func sortedCounts(m map[string]int) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		if m[k] > 0 {
			out = append(out, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return out
}

// header lines shared by the text and markdown reports.
func (r *Result) headerLines() [][2]string {
	var h [][2]string
	cl := r.Provider
	if r.Cluster != "" && r.Cluster != r.Provider {
		cl += " (" + r.Cluster + ")"
	}
	if r.KubernetesVersion != "" {
		cl += ", Kubernetes " + r.KubernetesVersion
	}
	h = append(h, [2]string{"cluster", cl})
	if r.LiveMinor != "" || r.TablesMinor != "" {
		m := fmt.Sprintf("live cluster %s, tables rendered for %s", orUnknown(r.LiveMinor), orUnknown(r.TablesMinor))
		if r.LiveMinor != "" && r.TablesMinor != "" && r.LiveMinor != r.TablesMinor {
			m += " (Gate A compares tables of two releases)"
		}
		h = append(h, [2]string{"minors", m})
	}
	h = append(h, [2]string{"kubectl", fmt.Sprintf("%s (%s)", r.Kubectl, r.KubectlVersion)})
	if r.Collect != nil {
		timing := "every table rendered in that second"
		if !r.Collect.TablesSameSecond {
			timing = "the tables were rendered over more than one second"
		}
		h = append(h, [2]string{"collected", fmt.Sprintf("%s by the server's clock, %s; %d collector problems (%d pod logs could not be read)",
			r.CollectedAt.UTC().Format(time.RFC3339), timing, len(r.Collect.Problems), r.Collect.LogFailures)})
	}
	if f := r.Fixtures; f != nil {
		s := fmt.Sprintf("run %s: %d objects in %s", f.Prefix, f.Objects, strings.Join(f.Namespaces, ", "))
		if len(f.Skipped) > 0 {
			s += fmt.Sprintf("; %d kinds skipped (%s)", len(f.Skipped), strings.Join(f.Skipped, "; "))
		}
		if f.Removed != "" {
			s += "; " + f.Removed
		}
		h = append(h, [2]string{"fixtures", s})
	} else {
		h = append(h, [2]string{"fixtures", "none (--no-fixtures)"})
	}
	if len(r.ServeWarnings) > 0 {
		h = append(h, [2]string{"serve", strings.Join(r.ServeWarnings, "; ")})
	}
	if len(r.UpgradeProblems) > 0 {
		h = append(h, [2]string{"upgrade", strings.Join(r.UpgradeProblems, "; ")})
	}
	if len(r.ExtraTables) > 0 {
		h = append(h, [2]string{"upgrade", fmt.Sprintf("%d tables synthesized where the server gave none: %s", len(r.ExtraTables), strings.Join(r.ExtraTables, ", "))})
	}
	var rules []string
	for _, gr := range sortedKeys(r.Rules) {
		rules = append(rules, gr+": "+strings.Join(r.Rules[gr].Normalize, ", "))
	}
	if len(rules) > 0 {
		h = append(h, [2]string{"resource rules", strings.Join(rules, "; ") + " (see the checks file for why)"})
	}
	if len(r.Rounds) > 0 {
		h = append(h, [2]string{"cluster moved", roundsLine(r.Rounds)})
	}
	h = append(h, [2]string{"baseline", r.Baseline})
	norm := sortedCounts(r.Normalized())
	if len(norm) == 0 {
		norm = []string{"none applied"}
	}
	h = append(h, [2]string{"normalized", strings.Join(norm, ", ") + " (values forgiven)"})
	var steps []string
	for _, s := range r.Steps {
		steps = append(steps, fmt.Sprintf("%s %s", s.Name, round(s.Duration)))
	}
	h = append(h, [2]string{"steps", strings.Join(steps, ", ") + fmt.Sprintf("; total %s", round(r.Duration))})
	if r.WorkDir != "" {
		h = append(h, [2]string{"work dir", r.WorkDir})
	}
	return h
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func gateLine(name string, cases []*CaseResult) string {
	n, passed, accepted, failed := totals(cases)
	later := 0
	for _, c := range cases {
		if c.Round > 0 && !c.Diverged() {
			later++
		}
	}
	identical := fmt.Sprintf("%d identical", passed)
	if later > 0 {
		identical += fmt.Sprintf(" (%d of them on a later collection: the cluster had moved)", later)
	}
	return fmt.Sprintf("%s: %d cases, %s, %d accepted by the baseline, %d failed", name, n, identical, accepted, failed)
}

// WriteText writes the report for people: the verdict, the run, the
// counts per check, and every divergence with its diff. What the servers
// gave (versions, errors, the outputs in the diffs) is escaped (termtext).
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "bundlectl conformance: %s\n\n", verdict(r))
	tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	for _, h := range r.headerLines() {
		fmt.Fprintf(tw, "  %s:\t%s\n", h[0], termtext.Escape(h[1]))
	}
	tw.Flush()
	b.WriteString("\n")
	fmt.Fprintln(&b, gateLine("Gate A, the transform (server tables vs synthesized)", r.Tables))
	fmt.Fprintln(&b, gateLine("Gate B, the server (live vs served)", r.Cases))
	b.WriteString("\n")
	st := stats(r.all())
	width := len("CHECK")
	for _, s := range st {
		width = max(width, len(s.Check))
	}
	fmt.Fprintf(&b, "%-*s  %6s  %6s  %8s  %6s\n", width, "CHECK", "CASES", "PASSED", "ACCEPTED", "FAILED")
	for _, s := range st {
		fmt.Fprintf(&b, "%-*s  %6d  %6d  %8d  %6d\n", width, s.Check, s.Cases, s.Passed, s.Accepted, s.Failed)
	}
	failed, accepted := r.divergedCases()
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\nFailures (%d):\n", len(failed))
		for _, c := range failed {
			writeCaseText(&b, c, "FAIL")
		}
	}
	if len(accepted) > 0 {
		fmt.Fprintf(&b, "\nAccepted by the baseline (%d):\n", len(accepted))
		for _, c := range accepted {
			fmt.Fprintf(&b, "--- ACCEPTED %s: %s\n", c.Case.ID, c.Baseline)
		}
	}
	if len(r.Stale) > 0 {
		fmt.Fprintf(&b, "\nStale baseline entries (%d): the divergence no longer happens; remove them from %s\n", len(r.Stale), r.Baseline)
		for _, e := range r.Stale {
			fmt.Fprintf(&b, "--- STALE %s\n", e.String())
		}
	}
	if len(r.Cases)+len(r.Tables) == 0 {
		b.WriteString("\nNo case was compared: the gate proves nothing.\n")
	}
	fmt.Fprintf(&b, "\n%s\n", verdict(r))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCaseText(b *strings.Builder, c *CaseResult, tag string) {
	fmt.Fprintf(b, "--- %s %s\n", tag, c.Case.ID)
	if cmd := c.Case.Command(); cmd != "" {
		fmt.Fprintf(b, "    %s\n", cmd)
		fmt.Fprintf(b, "    live: %s; served: %s\n", termtext.Escape(c.Live.summary(c.Case.Request == nil)), termtext.Escape(c.Served.summary(c.Case.Request == nil)))
	}
	for _, d := range c.Divergences {
		fmt.Fprintf(b, "    %s (%s):\n", d.Output, diffLegend(c))
		// go-cmp indents with tabs; what it quotes is escaped.
		for _, line := range strings.Split(strings.TrimRight(d.Diff, "\n"), "\n") {
			fields := strings.Split(line, "\t")
			for i, f := range fields {
				fields[i] = termtext.Escape(f)
			}
			fmt.Fprintf(b, "      %s\n", strings.Join(fields, "\t"))
		}
	}
}

func diffLegend(c *CaseResult) string {
	if c.Case.Check == tableCheck {
		return "-server +synthesized"
	}
	return "-live +served"
}

// WriteMarkdown writes the report for a CI job summary.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	icon := "✅"
	if !r.Passed() {
		icon = "❌"
	}
	fmt.Fprintf(&b, "## %s bundlectl conformance: %s\n\n", icon, verdict(r))
	b.WriteString("| | |\n|---|---|\n")
	for _, h := range r.headerLines() {
		fmt.Fprintf(&b, "| %s | %s |\n", h[0], mdCell(h[1]))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- %s\n", gateLine("**Gate A**, the transform (server tables vs synthesized)", r.Tables))
	fmt.Fprintf(&b, "- %s\n\n", gateLine("**Gate B**, the server (live vs served)", r.Cases))
	b.WriteString("| Check | Cases | Passed | Accepted | Failed |\n|---|---:|---:|---:|---:|\n")
	for _, s := range stats(r.all()) {
		mark := ""
		if s.Failed > 0 {
			mark = " ❌"
		}
		fmt.Fprintf(&b, "| `%s`%s | %d | %d | %d | %d |\n", s.Check, mark, s.Cases, s.Passed, s.Accepted, s.Failed)
	}
	failed, accepted := r.divergedCases()
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n### Failures (%d)\n\n", len(failed))
		for _, c := range failed {
			fmt.Fprintf(&b, "<details><summary><code>%s</code></summary>\n\n", htmlEscape(c.Case.ID))
			if cmd := c.Case.Command(); cmd != "" {
				fmt.Fprintf(&b, "`%s`  \nlive: %s; served: %s\n\n", strings.ReplaceAll(cmd, "`", "'"), c.Live.summary(c.Case.Request == nil), c.Served.summary(c.Case.Request == nil))
			}
			for _, d := range c.Divergences {
				fmt.Fprintf(&b, "%s (%s):\n\n```diff\n%s\n```\n\n", d.Output, diffLegend(c), strings.TrimRight(fence(d.Diff), "\n"))
			}
			b.WriteString("</details>\n\n")
		}
	}
	if len(accepted) > 0 {
		fmt.Fprintf(&b, "\n### Accepted by the baseline (%d)\n\n", len(accepted))
		for _, c := range accepted {
			fmt.Fprintf(&b, "- `%s`: %s\n", c.Case.ID, mdCell(c.Baseline))
		}
	}
	if len(r.Stale) > 0 {
		fmt.Fprintf(&b, "\n### Stale baseline entries (%d)\n\nThe divergence no longer happens: remove them from %s.\n\n", len(r.Stale), r.Baseline)
		for _, e := range r.Stale {
			fmt.Fprintf(&b, "- `%s`\n", e.String())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// fence keeps a diff from closing its code block.
func fence(s string) string { return strings.ReplaceAll(s, "```", "`\u200b``") }

// JUnit XML, in the shape CI systems read (Jenkins, GitLab, GitHub
// actions that publish test results).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes one test suite per check and one test case per case;
// a divergence the baseline accepts is a skipped case with the reason,
// a stale baseline entry a failed case of the suite "baseline".
func (r *Result) WriteJUnit(w io.Writer) error {
	top := junitSuites{Name: "bundlectl conformance", Time: seconds(r.Duration)}
	index := map[string]int{}
	for _, c := range r.all() {
		i, ok := index[c.Case.Check]
		if !ok {
			i = len(top.Suites)
			index[c.Case.Check] = i
			top.Suites = append(top.Suites, junitSuite{Name: c.Case.Check})
		}
		s := &top.Suites[i]
		jc := junitCase{Name: c.Case.ID, Classname: "conformance." + c.Case.Check, Time: seconds(c.Duration)}
		if cmd := c.Case.Command(); cmd != "" {
			jc.SystemOut = &junitText{Text: cmd}
		}
		if c.Diverged() {
			var parts []string
			var what []string
			for _, d := range c.Divergences {
				what = append(what, d.Output)
				parts = append(parts, fmt.Sprintf("%s (%s):\n%s", d.Output, diffLegend(c), strings.TrimRight(d.Diff, "\n")))
			}
			msg := "diverged: " + strings.Join(what, ", ")
			if c.Failed() {
				jc.Failure = &junitMessage{Message: msg, Type: "divergence", Text: strings.Join(parts, "\n\n")}
				s.Failures++
			} else {
				jc.Skipped = &junitMessage{Message: "accepted by the baseline: " + c.Baseline, Text: strings.Join(parts, "\n\n")}
				s.Skipped++
			}
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	if len(r.Stale) > 0 {
		s := junitSuite{Name: "baseline"}
		for _, e := range r.Stale {
			s.Cases = append(s.Cases, junitCase{Name: e.String(), Classname: "conformance.baseline", Time: seconds(0),
				Failure: &junitMessage{Message: "stale baseline entry: the divergence no longer happens", Type: "stale", Text: e.Reason}})
			s.Tests++
			s.Failures++
		}
		top.Suites = append(top.Suites, s)
	}
	for i := range top.Suites {
		s := &top.Suites[i]
		var d time.Duration
		for _, c := range r.all() {
			if c.Case.Check == s.Name {
				d += c.Duration
			}
		}
		s.Time = seconds(d)
		top.Tests += s.Tests
		top.Failures += s.Failures
		top.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// divergedCases splits the cases that diverged into those that fail the
// gate and those the baseline accepts, in report order.
func (r *Result) divergedCases() (failed, accepted []*CaseResult) {
	for _, c := range r.all() {
		if c.Failed() {
			failed = append(failed, c)
		} else if c.Diverged() {
			accepted = append(accepted, c)
		}
	}
	return failed, accepted
}
