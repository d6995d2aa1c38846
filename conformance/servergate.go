package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/bundlectl/bundlectl/serve"
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
				divs, counts := compareOutputs(c, lo, compared, ages, clientAges)
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
