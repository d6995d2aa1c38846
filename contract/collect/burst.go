package collect

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"
)

// Limits of the table burst: how many tries, and how long a burst may
// take before another try is pointless (it cannot fit in one second).
const (
	burstAttempts    = 4
	burstHopeless    = 2 * time.Second
	burstConcurrency = 128
	tickPoll         = 5 * time.Millisecond
	tickTimeout      = 3 * time.Second
)

// unit is one LIST: a resource in one namespace, or with namespace ""
// across all namespaces (or cluster-scoped).
type unit struct {
	res       *resource
	namespace string
}

func (u unit) path() string { return listPath(u.res.gvr, u.namespace) }

func (u unit) String() string {
	s := u.res.gvr.Resource
	if u.res.gvr.Group != "" {
		s += "." + u.res.gvr.Group
	}
	s += " " + u.res.gvr.Version
	if u.namespace != "" {
		s += " in " + u.namespace
	}
	return s
}

// fetched is the outcome of one request.
type fetched struct {
	body []byte
	date time.Time
	err  error
}

// burst is the outcome of the table burst.
type burst struct {
	tables   []fetched // by unit
	at       time.Time // the server's second the tables were rendered in (the earliest, when they differ)
	spread   time.Duration
	attempts int
	// tickErr says why the burst could not wait for a new second (a server
	// or proxy that sends no Date header).
	tickErr error
}

// fetchTables gets every unit's Table in one concurrent burst that starts
// just after the server's clock (its Date header) ticks over to a new
// second, so that every age the server computes is relative to the same
// second. A burst whose responses carry different Dates is retried; the
// only error is the context's.
func (c *client) fetchTables(ctx context.Context, units []unit) (*burst, error) {
	b := &burst{}
	for b.attempts < burstAttempts {
		b.attempts++
		var tick time.Time
		tick, b.tickErr = c.waitForTick(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		start := time.Now()
		b.tables = c.tableRequests(ctx, units)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		b.at, b.spread = dateRange(b.tables, tick)
		if b.tickErr != nil || b.spread == 0 || time.Since(start) > burstHopeless {
			break
		}
	}
	return b, nil
}

// waitForTick polls the server's Date until it changes and returns the new
// second.
func (c *client) waitForTick(ctx context.Context) (time.Time, error) {
	first, err := c.serverDate(ctx)
	if err != nil {
		return time.Time{}, err
	}
	deadline := time.Now().Add(tickTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(tickPoll):
		}
		d, err := c.serverDate(ctx)
		if err != nil {
			return time.Time{}, err
		}
		if d.After(first) {
			return d, nil
		}
	}
	return time.Time{}, fmt.Errorf("the server's Date header did not change in %s", tickTimeout)
}

func (c *client) serverDate(ctx context.Context) (time.Time, error) {
	r, err := c.getOK(ctx, "/version", nil, acceptJSON)
	if err != nil {
		return time.Time{}, err
	}
	if r.date.IsZero() {
		return time.Time{}, errors.New("the server sends no Date header")
	}
	return r.date, nil
}

func (c *client) tableRequests(ctx context.Context, units []unit) []fetched {
	out := make([]fetched, len(units))
	sem := make(chan struct{}, burstConcurrency)
	var wg sync.WaitGroup
	for i, u := range units {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = c.fetch(ctx, u.path(), nil, acceptTable)
		})
	}
	wg.Wait()
	return out
}

// fetch is getOK as a fetched.
func (c *client) fetch(ctx context.Context, p string, query url.Values, accept string) fetched {
	r, err := c.getOK(ctx, p, query, accept)
	if err != nil {
		return fetched{err: err}
	}
	return fetched{body: r.body, date: r.date}
}

// dateRange is the earliest Date of the successful responses and how much
// later the latest was; with no successful response, the tick itself.
func dateRange(fs []fetched, tick time.Time) (time.Time, time.Duration) {
	var first, last time.Time
	for _, f := range fs {
		if f.err != nil || f.date.IsZero() {
			continue
		}
		if first.IsZero() || f.date.Before(first) {
			first = f.date
		}
		if f.date.After(last) {
			last = f.date
		}
	}
	if first.IsZero() {
		return tick, 0
	}
	return first, last.Sub(first)
}

// spreadError tells that the tables were not all rendered in one second.
func (b *burst) spreadError() error {
	return fmt.Errorf("the table responses' Dates span %s (burst %d of at most %d); ages may differ by up to %s",
		b.spread, b.attempts, burstAttempts, b.spread)
}
