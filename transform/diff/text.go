package diff

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

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
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	esc := termtext.Escape
	for _, s := range []struct {
		label string
		side  Side
	}{{"A", r.A}, {"B", r.B}} {
		fmt.Fprintf(bw, "%s: %s (Kubernetes %s, collected %s)\n", s.label, esc(s.side.Path), esc(orNone(s.side.KubernetesVersion)), s.side.CollectedAt.UTC().Format(time.RFC3339))
	}
	if r.Equal {
		fmt.Fprintln(bw, "\nNo differences.")
	}
	r.writeCounts(bw)
	r.writeHighlights(bw)
	// The objects are in the order of the kinds.
	from := 0
	for _, k := range r.Kinds {
		if err := r.writeKind(bw, k, from, from+k.objects()); err != nil {
			return err
		}
		from += k.objects()
	}
	r.writeLogs(bw)
	return bw.Flush()
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

// writeKind prints the rows of kind k's changes, the objects from to
// to, as one kubectl table, a change of both sides as A's row then B's
// ("→"), then the fields of each changed object. The objects are read
// three times (the table's widths, its rows, the fields) rather than
// held.
func (r *Result) writeKind(w io.Writer, k KindChanges, from, to int) error {
	if from == to {
		return nil
	}
	first, err := r.object(from)
	if err != nil {
		return err
	}
	namespaced := first.Namespace != ""
	header := []string{"CHANGE"}
	if namespaced {
		header = append(header, "NAMESPACE")
	}
	for _, c := range k.Columns {
		header = append(header, strings.ToUpper(termtext.Escape(c)))
	}
	t := newTable(len(header))
	t.measure(header)
	each := func(fn func(o ObjectChange) error) error {
		for i := from; i < to; i++ {
			o, err := r.object(i)
			if err != nil {
				return err
			}
			if err := fn(o); err != nil {
				return err
			}
		}
		return nil
	}
	lines := func(o ObjectChange) error {
		for _, l := range rowLines(k, namespaced, o) {
			t.measure(l)
		}
		return nil
	}
	if err := each(lines); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s:\n", termtext.Escape(k.Resource))
	t.write(w, header)
	if err := each(func(o ObjectChange) error {
		for _, l := range rowLines(k, namespaced, o) {
			t.write(w, l)
		}
		return nil
	}); err != nil {
		return err
	}
	return each(func(o ObjectChange) error {
		writeFields(w, o)
		return nil
	})
}

// rowLines are the cells of an object's lines in its kind's table: A's
// row then B's, or the one row it has.
func rowLines(k KindChanges, namespaced bool, o ObjectChange) [][]string {
	row := func(label string, cells []any, mark bool) []string {
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
		return out
	}
	switch {
	case o.RowA != nil && o.RowB != nil:
		return [][]string{row(o.Change, o.RowA, false), row("  →", o.RowB, true)}
	case o.RowA != nil:
		return [][]string{row(o.Change, o.RowA, false)}
	default:
		return [][]string{row(o.Change, o.RowB, false)}
	}
}

// table lays lines of cells out as kubectl's table printer does
// (cli-runtime's printers.GetNewTabWriter: text/tabwriter with a minimum
// width of 6, padding 3, spaces), every cell but a line's last padded to
// its column's width, without holding the lines: measure each, then
// write each. Its lines all have the same number of cells, and no tab
// or newline in one (termtext escapes them), so that text/tabwriter
// would make one block of each column (TestTableIsTabwriters).
type table struct{ widths []int }

func newTable(cells int) *table {
	t := &table{widths: make([]int, cells-1)}
	for i := range t.widths {
		t.widths[i] = 6
	}
	return t
}

func (t *table) measure(cells []string) {
	for i, c := range cells[:len(cells)-1] {
		t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c)+3)
	}
}

func (t *table) write(w io.Writer, cells []string) {
	var b strings.Builder
	for i, c := range cells {
		b.WriteString(c)
		if i < len(t.widths) {
			b.WriteString(strings.Repeat(" ", t.widths[i]-utf8.RuneCountInString(c)))
		}
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
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
