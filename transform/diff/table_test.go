package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// The table writer lays lines out as kubectl's text/tabwriter does, byte
// for byte, without holding them: cells of every width (multi-byte
// characters count one each), empty ones, a long last cell.
func TestTableIsTabwriters(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "web-0", "Running", "*4 (5m5s ago)", "→", "  →", "é", "日本語のポッド", "ContainerCreating", "1/1", strings.Repeat("x", 40)}
	for n := range 200 {
		cells := 2 + r.IntN(8)
		var lines [][]string
		for range 1 + r.IntN(12) {
			var l []string
			for range cells {
				l = append(l, words[r.IntN(len(words))])
			}
			lines = append(lines, l)
		}
		var want, got strings.Builder
		tw := tabwriter.NewWriter(&want, 6, 4, 3, ' ', 0)
		for _, l := range lines {
			fmt.Fprintln(tw, strings.Join(l, "\t"))
		}
		tw.Flush()
		tb := newTable(cells)
		for _, l := range lines {
			tb.measure(l)
		}
		for _, l := range lines {
			tb.write(&got, l)
		}
		if got.String() != want.String() {
			t.Fatalf("table %d:\n%s\ntabwriter:\n%s", n, got.String(), want.String())
		}
	}
}
