package conformance

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/contract/termtext"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// goldenResult is a run with one of everything a report shows. Its diffs
// are written out rather than made by go-cmp, whose output varies from
// run to run on purpose.
func goldenResult() *Result {
	at := time.Date(2026, 11, 23, 6, 56, 6, 0, time.UTC)
	pods := Case{ID: "get/pods", Check: "get", Resource: "pods", Kubectl: []string{"get", "pods", "--namespace=conformance-a"}, Compare: []string{"stdout", "stderr", "exitCode"}, Normalize: []string{NormAges}}
	wide := pods
	wide.ID, wide.Check, wide.Kubectl = "get-wide/pods", "get-wide", []string{"get", "pods", "--namespace=conformance-a", "-o", "wide", "--show-labels"}
	cs := Case{ID: "get/componentstatuses", Check: "get", Resource: "componentstatuses", Kubectl: []string{"get", "componentstatuses"}, Compare: []string{"stdout", "stderr", "exitCode"}}
	raw := Case{ID: "raw-not-found-group", Check: "raw-not-found-group", Request: &RequestSpec{Method: "GET", Path: "/apis/nosuchgroup.example.com/v1"}, Compare: []string{"status", "contentType", "body"}}
	api := Case{ID: "raw-api", Check: "raw-api", Request: &RequestSpec{Method: "GET", Path: "/api"}, Compare: []string{"status", "contentType", "body"}}
	return &Result{
		Provider: "local", Cluster: "bundlectl-local", KubernetesVersion: "v1.35.4", LiveMinor: "1.35", TablesMinor: "1.37",
		Kubectl: "/usr/bin/kubectl", KubectlVersion: "v1.33.1",
		CollectedAt: at,
		Fixtures:    &FixturesResult{Prefix: "conformance", Namespaces: []string{"conformance-a", "conformance-b", "conformance-c"}, Objects: 202, Removed: "left for the cluster's deletion"},
		Collect:     &collect.Summary{CollectedAt: at, TablesSameSecond: true, Problems: make([]collect.Problem, 44), LogFailures: 44},
		Tables: []*CaseResult{
			{Case: Case{ID: "table/pods/conformance-a", Check: tableCheck, Resource: "pods"}, Counts: map[string]int{}},
			{Case: Case{ID: "table/componentstatuses", Check: tableCheck, Resource: "componentstatuses", Normalize: []string{NormUnorderedRows}}, Counts: map[string]int{NormUnorderedRows: 1}},
			{Case: Case{ID: "table/flowschemas.flowcontrol.apiserver.k8s.io", Check: tableCheck, Resource: "flowschemas.flowcontrol.apiserver.k8s.io"},
				Divergences: []Divergence{{Output: "cells of exempt", Diff: "  []any{\n  \tstring(\"exempt\"),\n- \tstring(\"1\"),\n+ \tstring(\"2\"),\n  }"}}},
		},
		Cases: []*CaseResult{
			{Case: pods, Counts: map[string]int{NormAges: 25}, Live: Output{}, Served: Output{}, Duration: 310 * time.Millisecond},
			{Case: wide, Counts: map[string]int{NormAges: 25},
				Divergences: []Divergence{{Output: "stdout", Diff: "  []string{\n  \t\"NAME   READY   STATUS\",\n- \t\"web    2/2     Running\",\n+ \t\"web    2/2     Pending\",\n  }"}},
				Live:        Output{ExitCode: 0}, Served: Output{ExitCode: 0}, Duration: 420 * time.Millisecond},
			{Case: cs, Counts: map[string]int{NormUnorderedRows: 1},
				Divergences: []Divergence{{Output: "stderr", Diff: "  []string{\n- \t\"Warning: v1 ComponentStatus is deprecated in v1.19+\",\n  \t\"\",\n  }"}},
				Baseline:    "the served bundle sends no deprecation warnings (an example reason)",
				Duration:    250 * time.Millisecond},
			{Case: raw, Live: Output{Status: 404, ContentType: "text/plain; charset=utf-8"}, Served: Output{Status: 404, ContentType: "application/json"},
				Divergences: []Divergence{{Output: "contentType", Diff: "  string(\n- \t\"text/plain; charset=utf-8\",\n+ \t\"application/json\",\n  )"}},
				Duration:    12 * time.Millisecond},
			{Case: api, Live: Output{Status: 200, ContentType: "application/json"}, Served: Output{Status: 200, ContentType: "application/json"}, Duration: 8 * time.Millisecond},
		},
		Rules:    map[string]ResourceRule{"componentstatuses": {Normalize: []string{NormUnorderedRows}, Reason: "computed at each request"}},
		Baseline: "baseline.yaml (embedded)",
		Stale:    []BaselineEntry{{Case: "get/endpoints", Output: "stderr", Reason: "fixed since"}},
		Steps: []Step{
			{"start the cluster", 4100 * time.Millisecond}, {"apply the fixtures", 3900 * time.Millisecond},
			{"collect", 3900 * time.Millisecond}, {"gate A: the transform", 642 * time.Millisecond},
			{"gate B: the server", 150 * time.Second}, {"delete the cluster", 1200 * time.Millisecond},
		},
		Duration: 164 * time.Second,
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if testenv.Update() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, d)
	}
}

func TestReportText(t *testing.T) {
	var b bytes.Buffer
	if err := goldenResult().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt", b.Bytes())
}

func TestReportMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := goldenResult().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", b.Bytes())
}

func TestReportJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := goldenResult().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.xml", b.Bytes())
	// And it is XML a CI system reads: the counts add up.
	var top junitSuites
	if err := xml.Unmarshal(b.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	if top.Tests != 9 || top.Failures != 4 || top.Skipped != 1 {
		t.Errorf("tests %d failures %d skipped %d", top.Tests, top.Failures, top.Skipped)
	}
}

func TestResultPassed(t *testing.T) {
	r := goldenResult()
	if r.Passed() {
		t.Fatal("a result with failures passed")
	}
	r.Stale = nil
	r.Tables = r.Tables[:2]
	r.Cases = []*CaseResult{r.Cases[0], r.Cases[2], r.Cases[4]}
	if !r.Passed() {
		t.Fatal("a result with only accepted divergences failed")
	}
	r.Stale = []BaselineEntry{{Case: "x", Reason: "y"}}
	if r.Passed() {
		t.Fatal("a stale baseline entry passed")
	}
	if (&Result{}).Passed() {
		t.Fatal("a run that compared nothing passed")
	}
}

// What the servers answered reaches the terminal escaped: the version,
// warnings, errors and the outputs in the diffs.
func TestReportTextEscapesServerText(t *testing.T) {
	const hostile = "\x1b[2K\rPASS\b\x1b]52;c;ZXZpbA==\x07\u009b31m\u202eevil"
	r := goldenResult()
	r.KubernetesVersion = "v1.35.4+" + hostile
	r.ServeWarnings = []string{hostile}
	c := r.Cases[1]
	c.Live.Err = errors.New(hostile)
	c.Divergences[0].Diff = "- \t\"" + hostile + "\",\n+ \t\"" + hostile + "\","
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := strings.NewReplacer("\n", "", "\t", "").Replace(b.String()) // the report's own, diffs' indent
	if termtext.Escape(out) != out {
		t.Errorf("a control character reached the report:\n%s", termtext.Escape(b.String()))
	}
	if n := strings.Count(out, termtext.Escape(hostile)); n != 5 {
		t.Errorf("the servers' text is shown escaped %d times, want 5:\n%s", n, out)
	}
}
