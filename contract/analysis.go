package contract

import (
	"encoding/json"
	"fmt"
	"sort"
)

// AnalysisPath is where troubleshoot (v0.13.10 and later) stores its
// analyzers' verdicts, at the bundle root.
const AnalysisPath = "analysis.json"

// AnalysisResult is one verdict of analysis.json: troubleshoot's
// convert.Result, of which a reader needs the insight.
type AnalysisResult struct {
	// Name is troubleshoot's: the title lowercased, other runs of
	// characters replaced by ".".
	Name string `json:"name"`
	// Title and Message are the insight's primary and detail.
	Title   string `json:"title"`
	Message string `json:"message"`
	// Severity is "error" (a fail), "warn", "debug" (a pass), or "" when
	// the analyzer gave none of them.
	Severity       string          `json:"severity"`
	InvolvedObject *InvolvedObject `json:"involvedObject,omitempty"`
}

// InvolvedObject is the object a verdict is about (clusterPodStatuses).
type InvolvedObject struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
}

// ParseAnalysis reads analysis.json, fails first, then warnings, then
// passes, each in the file's order.
func ParseAnalysis(data []byte) ([]AnalysisResult, error) {
	var raw []struct {
		Name    string `json:"name"`
		Insight struct {
			Primary  string `json:"primary"`
			Detail   string `json:"detail"`
			Severity string `json:"severity"`
		} `json:"insight"`
		Severity       string          `json:"severity"`
		InvolvedObject *InvolvedObject `json:"involvedObject"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not troubleshoot's list of analyzer results: %w", err)
	}
	out := make([]AnalysisResult, 0, len(raw))
	for _, r := range raw {
		sev := r.Severity
		if sev == "" {
			sev = r.Insight.Severity
		}
		out = append(out, AnalysisResult{Name: r.Name, Title: r.Insight.Primary, Message: r.Insight.Detail, Severity: sev, InvolvedObject: r.InvolvedObject})
	}
	sort.SliceStable(out, func(i, j int) bool { return severityRank(out[i].Severity) < severityRank(out[j].Severity) })
	return out, nil
}

func severityRank(s string) int {
	switch s {
	case "error":
		return 0
	case "warn":
		return 1
	case "debug":
		return 2
	}
	return 3
}

// SeverityWord is how a verdict's severity reads in a report.
func SeverityWord(s string) string {
	switch s {
	case "error":
		return "FAIL"
	case "warn":
		return "WARN"
	case "debug":
		return "PASS"
	}
	return "INFO"
}
