package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/bundlectl/bundlectl/serve"
	"k8s.io/client-go/rest"
)

// serverGate is what Gate B needs.
type serverGate struct {
	bundle   string
	live     string // the live cluster's kubeconfig
	kubectl  *kubectl
	cases    []Case
	parallel int
	// collectStart and collectEnd bound when the server rendered the
	// tables the bundle holds.
	collectStart, collectEnd time.Time
	// collected are the namespaces the bundle was collected from; nil
	// means all.
	collected []string
}

// runServerGate serves the bundle in process and runs every case against
// the served bundle and then the live cluster.
func runServerGate(ctx context.Context, g serverGate) ([]*CaseResult, []string, error) {
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var serveOut, serveErr bytes.Buffer
	go func() {
		done <- serve.Run(sctx, serve.Options{
			Bundles: []string{g.bundle},
			Out:     &serveOut, ErrOut: &serveErr,
			Ready: func(kubeconfig string) { ready <- kubeconfig },
		})
	}()
	var served string
	select {
	case served = <-ready:
	case err := <-done:
		if err == nil {
			err = errors.New("serve stopped before it was ready")
		}
		return nil, nil, fmt.Errorf("serving the bundle: %w", err)
	case <-ctx.Done():
		<-done
		return nil, nil, ctx.Err()
	}
	defer func() {
		stop()
		<-done
	}()
	var warnings []string
	for _, line := range strings.Split(serveErr.String(), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			warnings = append(warnings, line)
		}
	}
	liveRaw, err := newRawClient(g.live)
	if err != nil {
		return nil, nil, fmt.Errorf("the live cluster's kubeconfig: %w", err)
	}
	servedRaw, err := newRawClient(served)
	if err != nil {
		return nil, nil, fmt.Errorf("the served bundle's kubeconfig: %w", err)
	}
	results := make([]*CaseResult, len(g.cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < g.parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c := g.cases[i]
				t := time.Now()
				var lo, so Output
				// The served side first: an age kubectl computes itself
				// (describe) can then only be ahead on the live side.
				servedStart := time.Now()
				if c.Request != nil {
					so = servedRaw.do(ctx, c.Request)
				} else {
					so = g.kubectl.run(ctx, served, c.Kubectl)
				}
				liveStart := time.Now()
				if c.Request != nil {
					lo = liveRaw.do(ctx, c.Request)
				} else {
					lo = g.kubectl.run(ctx, g.live, c.Kubectl)
				}
				liveEnd := time.Now()
				// The served tables were rendered during the collection,
				// the live ones during the live run.
				ages := window{lo: liveStart.Sub(g.collectEnd), hi: liveEnd.Sub(g.collectStart)}
				clientAges := window{lo: 0, hi: liveEnd.Sub(servedStart)}
				compared := so
				var dropped int
				compared.Stderr, dropped = dropOutsideCollection(so.Stderr, g.collected)
				divs, counts := compareOutputs(c, lo, compared, ages, clientAges, liveEnd)
				if dropped > 0 {
					if counts == nil {
						counts = map[string]int{}
					}
					counts[NormOutsideCollection] += dropped
				}
				results[i] = &CaseResult{Case: c, Divergences: divs, Counts: counts, Live: lo, Served: so, Duration: time.Since(t)}
			}
		}()
	}
	for i := range g.cases {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return results, warnings, nil
}

// gateBInputs is what gate B takes from the steps before it: the checks,
// the live cluster and kubectl, the collected bundle and when it was
// collected, the upgraded one (for its conversions) and the namespaces.
type gateBInputs struct {
	checks                   *ChecksFile
	cfg                      *rest.Config
	kubeconfig               string
	k                        *kubectl
	bundleDir, workDir       string
	upgraded                 string
	prefix                   string
	namespaces, collected    []string
	collectStart, collectEnd time.Time
}

// runGateB serves the collected bundle and runs every case against it and
// the live cluster, then the diverging cases again on later collections
// while the cluster moves (rounds.go).
func runGateB(ctx context.Context, o Options, res *Result, in gateBInputs, logf func(string, ...any), step func(string, time.Time)) error {
	t := time.Now()
	inv, err := ReadInventory(in.bundleDir)
	if err != nil {
		return fmt.Errorf("reading the collected bundle: %w", err)
	}
	cases, err := gateBCases(in.checks, inv, in.prefix, in.namespaces, o.Run)
	if err != nil {
		return err
	}
	// Gate B serves the collected bundle with the upgrade's conversions in
	// place of the server's, so that what the upgrade converts is
	// compared with the live server by every case too.
	servedDir := filepath.Join(in.workDir, "served")
	if err := withConversionsOf(in.bundleDir, in.upgraded, servedDir); err != nil {
		return fmt.Errorf("gate B: making the served bundle: %w", err)
	}
	if o.mutateServed != nil {
		if err := o.mutateServed(servedDir); err != nil {
			return err
		}
	}
	logf("gate B: serving the bundle and running %d cases against both (%d at a time)", len(cases), o.Parallel)
	res.Cases, res.ServeWarnings, err = runServerGate(ctx, serverGate{
		bundle: servedDir, live: in.kubeconfig, kubectl: in.k, cases: cases,
		parallel: o.Parallel, collectStart: in.collectStart, collectEnd: in.collectEnd, collected: in.collected,
	})
	if err != nil {
		return fmt.Errorf("gate B: %w", err)
	}
	step("gate B: the server", t)
	t = time.Now()
	res.Rounds, err = rerunMoved(ctx, roundsOptions{
		collect: collectOptions(o, in.cfg, in.collected, ""),
		workDir: in.workDir, first: inv, logf: logf,
		gate: serverGate{live: in.kubeconfig, kubectl: in.k, parallel: o.Parallel, collected: in.collected},
	}, res.Cases)
	if err != nil {
		return fmt.Errorf("gate B: %w", err)
	}
	if len(res.Rounds) > 0 {
		step("gate B: the cases again while the cluster moved", t)
	}
	return nil
}

// run matches when it is set.
func gateBCases(checks *ChecksFile, inv *Inventory, prefix string, namespaces []string, run *regexp.Regexp) ([]Case, error) {
	cases, err := checks.Expand(inv, prefix, namespaces)
	if err != nil {
		return nil, err
	}
	if run != nil {
		var kept []Case
		for _, c := range cases {
			if run.MatchString(c.ID) {
				kept = append(kept, c)
			}
		}
		cases = kept
	}
	return cases, nil
}
