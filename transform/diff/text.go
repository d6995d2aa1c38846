package diff

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// maxFieldLines bounds the fields printed per object; -o json lists up
// to maxFields.
const maxFieldLines = 10

// WriteText writes the report for people: the two bundles, the counts
// per kind, the highlights, then each kind's rows as kubectl prints them
// with the changed cells marked "*", and the fields that changed. Every
// string the bundles gave is escaped (termtext). The warnings are not
// part of it: the command prints them on standard error.
func (r *Report) WriteText(w io.Writer) error {
	esc := termtext.Escape
	for _, s := range []struct {
		label string
		side  Side
	}{{"A", r.A}, {"B", r.B}} {
		fmt.Fprintf(w, "%s: %s (Kubernetes %s, collected %s)\n", s.label, esc(s.side.Path), esc(orNone(s.side.KubernetesVersion)), s.side.CollectedAt.UTC().Format(time.RFC3339))
	}
	if r.Equal {
		fmt.Fprintln(w, "\nNo differences.")
	}
	r.writeCounts(w)
	r.writeHighlights(w)
	for _, k := range r.Kinds {
		if err := r.writeKind(w, k); err != nil {
			return err
		}
	}
	r.writeLogs(w)
	return nil
}

func (r *Report) writeCounts(w io.Writer) {
	if len(r.Kinds) == 0 && len(r.NotCompared) == 0 {
		return
	}
	fmt.Fprintln(w)
	noise := 0
	if len(r.Kinds) > 0 {
		tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
		fmt.Fprintln(tw, "RESOURCE\tADDED\tREMOVED\tREPLACED\tCHANGED\tNOISE ONLY")
		for _, k := range r.Kinds {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", termtext.Escape(k.Resource), k.Added, k.Removed, k.Replaced, k.Changed, k.NoiseOnly)
			noise += k.NoiseOnly
		}
		tw.Flush()
	}
	if noise > 0 {
		fmt.Fprintf(w, "%d object(s) differ only in resourceVersion, managedFields, generation or times that move with the clock: left out (--all shows them).\n", noise)
	}
	for _, n := range r.NotCompared {
		fmt.Fprintf(w, "%d %s of %s not compared: %s in %s.\n", n.Objects, termtext.Escape(n.Resource), other(n.Side), termtext.Escape(n.Why), n.Side)
	}
}

// other names the other bundle.
func other(side string) string {
	if side == "A" {
		return "B"
	}
	return "A"
}

func (r *Report) writeHighlights(w io.Writer) {
	if len(r.Highlights) == 0 {
		return
	}
	fmt.Fprintln(w, "\nHighlights:")
	last := ""
	for _, h := range r.Highlights {
		if h.Type != last {
			fmt.Fprintf(w, "  %s:\n", highlightTitles[h.Type])
			last = h.Type
		}
		fmt.Fprintf(w, "    %s %s: %s\n", strings.ToLower(h.Kind), termtext.Escape(objectName(h.Namespace, h.Name)), termtext.Escape(h.Detail))
	}
}

// writeKind prints the rows of kind k's changes as one kubectl table, a
// change of both sides as A's row then B's ("→"), then the fields of
// each changed object.
func (r *Report) writeKind(w io.Writer, k KindChanges) error {
	var objs []ObjectChange
	for _, o := range r.Objects {
		if o.Group == k.Group && o.Kind == k.Kind {
			objs = append(objs, o)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	namespaced := objs[0].Namespace != ""
	fmt.Fprintf(w, "\n%s:\n", termtext.Escape(k.Resource))
	// kubectl's table layout (cli-runtime's printers.GetNewTabWriter).
	tw := tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
	header := []string{"CHANGE"}
	if namespaced {
		header = append(header, "NAMESPACE")
	}
	for _, c := range k.Columns {
		header = append(header, strings.ToUpper(termtext.Escape(c)))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	row := func(label string, o ObjectChange, cells []any, mark bool) {
		out := []string{label}
		if namespaced {
			out = append(out, termtext.Escape(o.Namespace))
		}
		for i, c := range cells {
			s := termtext.Escape(cellText(c))
			if mark && contains(o.ChangedColumns, k.Columns[i]) {
				s = "*" + s
			}
			out = append(out, s)
		}
		fmt.Fprintln(tw, strings.Join(out, "\t"))
	}
	for _, o := range objs {
		switch {
		case o.RowA != nil && o.RowB != nil:
			row(o.Change, o, o.RowA, false)
			row("  →", o, o.RowB, true)
		case o.RowA != nil:
			row(o.Change, o, o.RowA, false)
		default:
			row(o.Change, o, o.RowB, false)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range objs {
		writeFields(w, o)
	}
	return nil
}

// writeFields prints the fields of a changed object, at most maxFieldLines.
func writeFields(w io.Writer, o ObjectChange) {
	if len(o.Fields) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s:\n", termtext.Escape(objectName(o.Namespace, o.Name)))
	for i, f := range o.Fields {
		if i == maxFieldLines {
			fmt.Fprintf(w, "    ... and %d more field(s) (-o json lists them)\n", len(o.Fields)-i+o.MoreFields)
			return
		}
		fmt.Fprintf(w, "    %s: %s → %s\n", termtext.Escape(f.Path), termtext.Escape(value(f.A)), termtext.Escape(value(f.B)))
	}
	if o.MoreFields > 0 {
		fmt.Fprintf(w, "    ... and %d more field(s)\n", o.MoreFields)
	}
}

// value is a field's JSON, shortened to one line of a terminal.
func value(v []byte) string {
	if v == nil {
		return "(none)"
	}
	s := string(v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func objectName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
