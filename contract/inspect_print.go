package contract

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// WriteJSON writes the report for scripts.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people, in kubectl's table style.
// Every string the bundle gave is escaped (termtext): a name or message
// cannot move the cursor or rewrite a line.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	esc := termtext.Escape
	fmt.Fprintf(tw, "Bundle:\t%s (%s, root %q)\n", esc(r.Path), r.Format, r.Root)
	fmt.Fprintf(tw, "Schema:\t%s\n", esc(r.Schema))
	fmt.Fprintf(tw, "Troubleshoot version:\t%s\n", orNone(r.TroubleshootVersion))
	fmt.Fprintf(tw, "Kubernetes version:\t%s\n", orNone(r.KubernetesVersion))
	if r.ClusterResources {
		fmt.Fprintf(tw, "Tables for:\tKubernetes %s\n", esc(r.TablesMinor))
	} else {
		fmt.Fprintf(tw, "Cluster resources:\tnone (%s)\n", noClusterResourcesWhy)
	}
	if r.CollectionTime != nil {
		fmt.Fprintf(tw, "Collected at:\t%s\n", esc(r.CollectionTime.String()))
	} else {
		fmt.Fprintf(tw, "Collected at:\t<unknown>\n")
	}
	fmt.Fprintf(tw, "Entries:\t%d (%d bytes)\n", r.Entries, r.Size)
	tw.Flush()

	if r.ClusterResources {
		r.writeResources(w)
	}
	fmt.Fprintf(w, "\nPod logs: %d\n", len(r.Logs))
	for _, l := range r.Logs {
		var notes []string
		if l.Previous {
			notes = append(notes, "previous")
		}
		if l.Error {
			notes = append(notes, "the error of reading it")
		}
		if !l.PodInBundle {
			notes = append(notes, "pod not in the bundle")
		}
		if len(l.Ambiguous) > 0 {
			notes = append(notes, "ambiguous: the path names no namespace, and it may be the log of "+esc(strings.Join(l.Ambiguous, ", "))+" instead")
		}
		note := ""
		if len(notes) > 0 {
			note = " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintf(w, "  %s/%s %s%s, %d bytes: %s\n", esc(l.Namespace), esc(l.Pod), esc(l.Container), note, l.Size, esc(l.Path))
	}
	if len(r.UnmappedLogs) > 0 {
		fmt.Fprintf(w, "\nLog files of no pod: %d\n", len(r.UnmappedLogs))
		for _, u := range r.UnmappedLogs {
			fmt.Fprintf(w, "  %s: %s\n", esc(u.Path), esc(u.Reason))
		}
	}
	if len(r.NotCollected) > 0 {
		fmt.Fprintf(w, "\nAdvertised by discovery, not collected: %d (the bundle holds no list of them)\n", len(r.NotCollected))
		line := " "
		for _, gr := range r.NotCollected {
			gr = esc(gr)
			if len(line)+len(gr) > 78 {
				fmt.Fprintln(w, line)
				line = " "
			}
			line += " " + gr
		}
		fmt.Fprintln(w, line)
	}
	if r.Analysis != nil {
		count := map[string]int{}
		for _, a := range r.Analysis {
			count[SeverityWord(a.Severity)]++
		}
		fmt.Fprintf(w, "\nAnalysis: %d results (%d failed, %d warnings, %d passed)\n", len(r.Analysis), count["FAIL"], count["WARN"], count["PASS"])
		for _, a := range r.Analysis {
			fmt.Fprintf(w, "  %s  %s: %s\n", SeverityWord(a.Severity), esc(a.Title), esc(strings.TrimSpace(a.Message)))
		}
	}
	fmt.Fprintf(w, "\nProblems: %d\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  %s: %s\n", esc(p.Path), esc(strings.TrimSpace(p.Message)))
	}
	return nil
}

// writeResources writes the table of the resources the bundle holds.
func (r *Report) writeResources(w io.Writer) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tVERSION\tRESOURCE\tKIND\tNAMESPACES\tOBJECTS\tTABLES")
	for _, s := range r.Resources {
		group := termtext.Escape(s.Group)
		if group == "" {
			group = "core"
		}
		ns := "<cluster>"
		if s.Namespaced {
			ns = fmt.Sprint(len(s.Namespaces))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d/%d\n", group, termtext.Escape(s.Version), termtext.Escape(s.Resource), orNone(s.Kind), ns, s.Objects, s.Tables, s.Lists)
	}
	tw.Flush()
}

// orNone is s escaped (termtext), or "<unknown>".
func orNone(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return termtext.Escape(s)
}
