package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Output is what one side answered to a case.
type Output struct {
	// kubectl
	Stdout, Stderr string
	ExitCode       int
	// raw requests
	Status      int
	ContentType string
	Body        []byte
	// Err is set when the harness could not run the case at all.
	Err error
	// Duration of the run.
	Duration time.Duration
}

// Divergence is one output that differs after normalization.
type Divergence struct {
	Output string // stdout, stderr, exitCode, status, contentType, body, or a part of a table
	Diff   string // go-cmp's diff, "-live +served" (Gate A: "-server +synthesized")
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	Case        Case
	Divergences []Divergence
	// Counts says how many values each normalization forgave.
	Counts map[string]int
	// Baseline is the reason of the baseline entry that accepts the
	// divergences, if one does.
	Baseline string
	// Live and Served are kept for the report of a failed case.
	Live, Served Output
	Duration     time.Duration
	// Round is the round of the gate this result is from when the case
	// diverged at first and was run again on a newer collection, the
	// cluster having moved (see maxRounds); First holds the divergences
	// of its first run then.
	Round int
	First []Divergence
}

// Diverged says whether the case found a divergence.
func (r *CaseResult) Diverged() bool { return len(r.Divergences) > 0 }

// Failed says whether the case fails the gate: it diverged and no
// baseline entry accepts it.
func (r *CaseResult) Failed() bool { return r.Diverged() && r.Baseline == "" }

// compareOutputs compares what the two sides answered, after the case's
// normalizations. ages and clientAges bound how far a live age may be
// ahead of the served one (see NormAges and NormClientAges); until is
// the end of the live run, which no event's repeat can be later than
// (NormEventRepeats).
func compareOutputs(c Case, live, served Output, ages, clientAges window, until time.Time) ([]Divergence, map[string]int) {
	if live.Err != nil || served.Err != nil {
		var msgs []string
		if live.Err != nil {
			msgs = append(msgs, "live: "+live.Err.Error())
		}
		if served.Err != nil {
			msgs = append(msgs, "served: "+served.Err.Error())
		}
		return []Divergence{{Output: "run", Diff: strings.Join(msgs, "\n")}}, nil
	}
	n := newNormalizer(c.Normalize, ages, clientAges)
	n.until = until
	var out []Divergence
	for _, what := range c.Compare {
		var d string
		n.violations = nil
		switch what {
		case "stdout":
			d = textDiff(n, live.Stdout, served.Stdout)
		case "stderr":
			d = textDiff(n, live.Stderr, served.Stderr)
		case "exitCode":
			d = cmp.Diff(live.ExitCode, served.ExitCode)
		case "status":
			d = cmp.Diff(live.Status, served.Status)
		case "contentType":
			d = cmp.Diff(live.ContentType, served.ContentType)
		case "body":
			d = bodyDiff(n, live, served)
		}
		if len(n.violations) > 0 {
			d = strings.TrimRight(d+"\n"+strings.Join(n.violations, "\n"), "\n")
			d = strings.TrimLeft(d, "\n")
		}
		if d != "" {
			out = append(out, Divergence{Output: what, Diff: d})
		}
	}
	return out, n.counts
}

func textDiff(n *normalizer, live, served string) string {
	l, s := n.text(live, served)
	if l == s {
		return ""
	}
	return cmp.Diff(lines(l), lines(s))
}

// bodyDiff compares bodies as JSON documents when both sides sent JSON,
// else as text.
func bodyDiff(n *normalizer, live, served Output) string {
	if isJSON(live.ContentType) && isJSON(served.ContentType) {
		var l, s any
		if decodeJSON(live.Body, &l) == nil && decodeJSON(served.Body, &s) == nil {
			n.json(l, s)
			return cmp.Diff(l, s)
		}
	}
	return textDiff(n, string(live.Body), string(served.Body))
}

// decodeJSON decodes keeping numbers as written, so that 1 and 1.0 differ
// as they do on the wire.
func decodeJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func (o Output) summary(kubectl bool) string {
	if o.Err != nil {
		return "error: " + o.Err.Error()
	}
	if kubectl {
		return fmt.Sprintf("exit %d", o.ExitCode)
	}
	return fmt.Sprintf("%d %s", o.Status, o.ContentType)
}
