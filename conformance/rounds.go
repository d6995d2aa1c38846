package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/contract/collect"
)

// A cluster whose kubelet runs the fixtures keeps moving while the gate
// runs: a crash-looping container restarts, a failed pull is tried again,
// the kubelet rewrites its node's heartbeat, and each of them writes
// events. A case whose live run saw such a change differs from the
// served bundle without any fault of the bundle. So the cases that
// diverged are run again, served from a bundle collected anew and then
// live right after; a case identical then holds, and is counted as such.
// A round is taken only when something changed since the last
// collection (a cluster that did not move keeps its divergences), and at
// most maxRounds collections are made in all.
const maxRounds = 4

// Round is a collection after the first one, for the cases that diverged.
type Round struct {
	N         int // 2 for the first round again
	Collected time.Time
	// Moved names what changed since the previous collection: objects
	// whose resourceVersion changed, that appeared or went, and logs.
	Moved []string
	// Cases were run again; Identical of them were identical.
	Cases, Identical int
	Duration         time.Duration
}

// roundsOptions is what rerunMoved needs of the run.
type roundsOptions struct {
	collect collect.Options // as the first collection, Dest aside
	workDir string
	gate    serverGate // as the first run, bundle, cases and times aside
	first   *Inventory // of the first collection
	logf    func(format string, args ...any)
}

// rerunMoved runs the cases of results that diverged again while the
// cluster moves (see maxRounds), replacing each one's result with the
// latest; a result identical in a later round records it (CaseResult.Round)
// with the divergences of its first run.
func rerunMoved(ctx context.Context, o roundsOptions, results []*CaseResult) ([]Round, error) {
	var rounds []Round
	prev := o.first
	for n := 2; n <= maxRounds; n++ {
		var again []int
		for i, r := range results {
			if r.Diverged() {
				again = append(again, i)
			}
		}
		if len(again) == 0 {
			break
		}
		start := time.Now()
		dir := filepath.Join(o.workDir, fmt.Sprintf("round-%d", n))
		bundle := filepath.Join(dir, "bundle")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return rounds, fmt.Errorf("round %d: %w", n, err)
		}
		co := o.collect
		co.Dest = bundle
		collectStart := time.Now()
		sum, err := collect.Run(ctx, co)
		if err != nil {
			return rounds, fmt.Errorf("round %d: collect: %w", n, err)
		}
		collectEnd := time.Now()
		inv, err := ReadInventory(bundle)
		if err != nil {
			return rounds, fmt.Errorf("round %d: reading the collected bundle: %w", n, err)
		}
		moved := movedBetween(prev, inv)
		if len(moved) == 0 {
			o.logf("round %d: nothing moved since the last collection: %d divergences stand", n, len(again))
			break
		}
		upgraded, _, err := upgradeStripped(ctx, bundle, dir)
		if err != nil {
			return rounds, fmt.Errorf("round %d: %w", n, err)
		}
		served := filepath.Join(dir, "served")
		if err := withConversionsOf(bundle, upgraded, served); err != nil {
			return rounds, fmt.Errorf("round %d: making the served bundle: %w", n, err)
		}
		g := o.gate
		g.bundle, g.collectStart, g.collectEnd = served, collectStart, collectEnd
		g.cases = make([]Case, len(again))
		for j, i := range again {
			g.cases[j] = results[i].Case
		}
		o.logf("round %d: %d objects and logs moved since the last collection; running the %d cases that diverged again", n, len(moved), len(again))
		rerun, _, err := runServerGate(ctx, g)
		if err != nil {
			return rounds, fmt.Errorf("round %d: %w", n, err)
		}
		rd := Round{N: n, Collected: sum.CollectedAt, Moved: moved, Cases: len(again)}
		for j, i := range again {
			r := rerun[j]
			r.Round = n
			r.First = results[i].First
			if r.First == nil {
				r.First = results[i].Divergences
			}
			if !r.Diverged() {
				rd.Identical++
			}
			results[i] = r
		}
		rd.Duration = time.Since(start)
		rounds = append(rounds, rd)
		prev = inv
	}
	return rounds, nil
}

// movedBetween lists what changed from one collection to the next: an
// object of a resource whose resourceVersion changed, or that is in only
// one of them, and a log whose content changed or that is in only one.
func movedBetween(a, b *Inventory) []string {
	objects := func(inv *Inventory) map[string]string {
		m := map[string]string{}
		for _, r := range inv.Resources {
			for _, o := range r.Objects {
				key := r.GroupResource() + " " + o.Name
				if o.Namespace != "" {
					key = r.GroupResource() + " " + o.Namespace + "/" + o.Name
				}
				m[key] = o.ResourceVersion
			}
		}
		for _, l := range inv.Logs {
			key := "log " + l.Namespace + "/" + l.Pod + "/" + l.Container
			if l.Previous {
				key += " (previous)"
			}
			m[key] = l.Digest
		}
		return m
	}
	before, after := objects(a), objects(b)
	var out []string
	for k, v := range after {
		switch w, ok := before[k]; {
		case !ok:
			out = append(out, k+" (new)")
		case w != v:
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k+" (gone)")
		}
	}
	sort.Strings(out)
	return out
}

// roundsLine says what the rounds did, for the report's header.
func roundsLine(rounds []Round) string {
	var parts []string
	for _, r := range rounds {
		moved := r.Moved
		more := ""
		if len(moved) > 8 {
			more = fmt.Sprintf(" and %d more", len(moved)-8)
			moved = moved[:8]
		}
		parts = append(parts, fmt.Sprintf("round %d (collected %s, %s): %d moved since the collection before (%s%s); %d cases run again, %d identical",
			r.N, r.Collected.UTC().Format(time.RFC3339), round(r.Duration), len(r.Moved), strings.Join(moved, ", "), more, r.Cases, r.Identical))
	}
	return strings.Join(parts, "; ")
}
