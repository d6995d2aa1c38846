package diff

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/termtext"
)

// LogChange is a pod log file that differs: added, removed, or changed
// in size or in its last lines, which are B's (A's when removed).
type LogChange struct {
	Path      string   `json:"path"`
	Change    string   `json:"change"`
	SizeA     int64    `json:"sizeA"`
	SizeB     int64    `json:"sizeB"`
	LastLines []string `json:"lastLines"`
}

// tailLines is how many last lines of a log are compared and shown.
const tailLines = 3

// tailBytes bounds what is kept of a log's end to find its last lines.
const tailBytes = 4096

// logSummary is what a side keeps of one log file.
type logSummary struct {
	size int64
	tail []string
}

// compareLogs reads the size and last lines of every pod log of each side
// (every layout troubleshoot writes, contract.LogFileOf), by path.
func compareLogs(ctx context.Context, a, b *side) ([]LogChange, error) {
	la, err := logsOf(ctx, a)
	if err != nil {
		return nil, err
	}
	lb, err := logsOf(ctx, b)
	if err != nil {
		return nil, err
	}
	var out []LogChange
	for _, p := range sortedNames(la) {
		sa := la[p]
		sb, ok := lb[p]
		switch {
		case !ok:
			out = append(out, LogChange{Path: p, Change: string(removed), SizeA: sa.size, LastLines: sa.tail})
		case sa.size != sb.size || strings.Join(sa.tail, "\n") != strings.Join(sb.tail, "\n"):
			out = append(out, LogChange{Path: p, Change: string(changed), SizeA: sa.size, SizeB: sb.size, LastLines: sb.tail})
		}
	}
	for _, p := range sortedNames(lb) {
		if _, ok := la[p]; !ok {
			out = append(out, LogChange{Path: p, Change: string(added), SizeB: lb[p].size, LastLines: lb[p].tail})
		}
	}
	return out, nil
}

func logsOf(ctx context.Context, s *side) (map[string]logSummary, error) {
	logs := map[string]logSummary{}
	err := s.walk(ctx, visitor{log: func(e *contract.Entry) error {
		t := &tail{}
		if _, err := io.Copy(t, e.Reader()); err != nil {
			return err
		}
		logs[e.Rel] = logSummary{size: e.Size(), tail: t.lines()}
		return nil
	}})
	return logs, err
}

// tail keeps the last tailBytes written to it.
type tail struct{ buf []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// lines are the last tailLines lines, without a final empty one.
func (t *tail) lines() []string {
	b := t.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	lines := strings.Split(string(bytes.TrimRight(b, "\n")), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return []string{}
	}
	return lines
}

func (r *Report) writeLogs(w io.Writer) {
	if len(r.Logs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPod logs:")
	for _, l := range r.Logs {
		switch l.Change {
		case string(added):
			fmt.Fprintf(w, "  added     %s (%d bytes)\n", termtext.Escape(l.Path), l.SizeB)
		case string(removed):
			fmt.Fprintf(w, "  removed   %s (%d bytes)\n", termtext.Escape(l.Path), l.SizeA)
		default:
			fmt.Fprintf(w, "  changed   %s (%d → %d bytes)\n", termtext.Escape(l.Path), l.SizeA, l.SizeB)
		}
		for _, line := range l.LastLines {
			fmt.Fprintf(w, "            | %s\n", termtext.Escape(line))
		}
	}
}
