package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/bundlectl/bundlectl/contract"
)

// Options configure Run.
type Options struct {
	// Config is the cluster to collect from (see LoadConfig); required.
	Config *rest.Config
	// Namespaces limits namespaced lists to these namespaces, each listed
	// on its own; empty collects every namespace with one list per resource.
	Namespaces []string
	// IncludeSecretValues keeps the values of Secrets; by default they are masked.
	IncludeSecretValues bool
	// Dest, Force and Stdout are the bundle writer's (contract.CreateWriter).
	Dest   string
	Force  bool
	Stdout io.Writer
}

// Problem is something the collector could not get; the bundle is written
// without it.
type Problem struct {
	What    string `json:"what"`
	Message string `json:"message"`
}

type problems struct {
	mu   sync.Mutex
	list []Problem
}

// sorted returns the problems in a stable order (they are found
// concurrently); never nil, so JSON shows [].
func (p *problems) sorted() []Problem {
	out := append([]Problem{}, p.list...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].What < out[j].What })
	return out
}

func (p *problems) add(what string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, Problem{What: what, Message: err.Error()})
}

// Run collects a bundle from the cluster and publishes it at opts.Dest.
// Only a cluster that cannot be reached, a bundle that cannot be written,
// nothing listable, or ctx's end are errors; everything else is a problem
// in the summary, and nothing is left at Dest after an error.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	start := time.Now()
	if opts.Config == nil {
		return nil, errors.New("collect: no cluster configuration")
	}
	w, err := contract.CreateWriter(opts.Dest, contract.WriterOptions{Force: opts.Force, Stdout: opts.Stdout})
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	c, err := newClient(opts.Config)
	if err != nil {
		return nil, err
	}
	col := &collector{opts: opts, client: c, problems: &problems{}}
	b, err := col.collect(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.write(ctx, w); err != nil {
		return nil, err
	}
	if err := w.Commit(ctx); err != nil {
		return nil, err
	}
	b.summary.Dest = opts.Dest
	b.summary.Resources = b.resourceCounts()
	b.summary.Seconds = time.Since(start).Seconds()
	b.summary.Problems = col.problems.sorted()
	return b.summary, nil
}

type collector struct {
	opts     Options
	client   *client
	problems *problems
}

// fetchedAll is everything the collector got from the server.
type fetchedAll struct {
	disc   *discovered
	units  []unit
	burst  *burst
	tables []*list // by unit; nil where the table failed
	lists  []*list // by unit; nil where the list failed
	crds   []crd
}

func (col *collector) collect(ctx context.Context) (*bundle, error) {
	disc, err := col.client.discover(ctx, col.problems)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the server: %w", err)
	}
	f := &fetchedAll{disc: disc, units: col.units(disc.listable())}
	if f.burst, err = col.client.fetchTables(ctx, f.units); err != nil {
		return nil, err
	}
	f.tables = col.parseTables(f)
	col.learnEmptyRows(ctx, f)
	if f.lists, err = col.fetchLists(ctx, f); err != nil {
		return nil, err
	}
	f.crds = col.crds(f)
	b := newBundle(col, f)
	b.addLists(f)
	b.addFields(ctx, f)
	if err := b.addLogs(ctx, f); err != nil {
		return nil, err
	}
	b.addOpenAPI(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return b, b.addMeta(f)
}

// units are the LISTs to make: one per resource, or with Namespaces one
// per namespace for namespaced resources.
func (col *collector) units(resources []resource) []unit {
	var out []unit
	for i := range resources {
		r := &resources[i]
		if !r.namespaced || len(col.opts.Namespaces) == 0 {
			out = append(out, unit{res: r})
			continue
		}
		for _, ns := range col.opts.Namespaces {
			out = append(out, unit{res: r, namespace: ns})
		}
	}
	return out
}

func (col *collector) parseTables(f *fetchedAll) []*list {
	out := make([]*list, len(f.units))
	for i, u := range f.units {
		t := f.burst.tables[i]
		if t.err != nil {
			col.problems.add("table of "+u.String(), t.err)
			continue
		}
		l, err := parseList(t.body, "rows")
		if err == nil && l.kind() != "Table" {
			err = fmt.Errorf("the server answered a %s, not a Table", l.kind())
		}
		if err != nil {
			col.problems.add("table of "+u.String(), err)
			continue
		}
		out[i] = l
	}
	return out
}

const listConcurrency = 32

// learnEmptyRows asks how the server encodes a Table without rows, for
// each all-namespaces table that has rows: the default table convertor
// sends "rows":null where printers send [], and a namespace split off
// empty must read as the server would have sent it. The question is a
// LIST that matches nothing, so its answer has no ages and can come after
// the burst.
func (col *collector) learnEmptyRows(ctx context.Context, f *fetchedAll) {
	sem := make(chan struct{}, listConcurrency)
	var wg sync.WaitGroup
	for i, u := range f.units {
		t := f.tables[i]
		if t == nil || !u.res.namespaced || u.namespace != "" || len(t.elems) == 0 {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r := col.client.fetch(ctx, u.path(), url.Values{"fieldSelector": {"metadata.name=" + probeValue}}, acceptTable)
			var empty *list
			if r.err == nil {
				empty, r.err = parseList(r.body, "rows")
			}
			if r.err != nil {
				col.problems.add("table of "+u.String(), fmt.Errorf("asking how the server encodes an empty table: %w; empty namespaces get \"rows\":[]", r.err))
				return
			}
			t.empty = empty.empty
		})
	}
	wg.Wait()
}

// fetchLists gets the raw lists, each at the resourceVersion of its table
// (resourceVersionMatch=Exact) so that a list and its table hold the same
// objects (a converted list at that of the list it converts); a list the
// server cannot give at that version is fetched current, and the
// difference reported.
func (col *collector) fetchLists(ctx context.Context, f *fetchedAll) ([]*list, error) {
	out := make([]*list, len(f.units))
	sem := make(chan struct{}, listConcurrency)
	var wg sync.WaitGroup
	// A converted list is fetched at the revision of the list it is the
	// server's conversion of, so that the two hold the same objects.
	type key struct {
		gr        schema.GroupResource
		namespace string
	}
	primary := map[key]*list{}
	for i, u := range f.units {
		if !u.res.converted && f.tables[i] != nil {
			primary[key{u.res.gvr.GroupResource(), u.namespace}] = f.tables[i]
		}
	}
	for i, u := range f.units {
		rvOf := f.tables[i]
		if u.res.converted {
			gr := u.res.gvr.GroupResource()
			if p, ok := contract.CohabitantOf(gr); ok {
				gr = p
			}
			rvOf = primary[key{gr, u.namespace}]
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if u.res.converted {
				rvOf = col.converted(ctx, f, i, rvOf)
			}
			out[i] = col.fetchList(ctx, u, rvOf)
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, l := range out {
		if l != nil {
			return out, nil
		}
	}
	return nil, errors.New("no resource could be listed")
}

// converted makes a converted unit's table hold the revision of its
// primary's: the burst asks for every table at once, so a write anywhere
// in the cluster between the two (a lease renewed) gives an empty or
// unchanged list another resourceVersion. Its table is asked for again at
// the primary's revision (Exact); when the server cannot give it, the
// unit's list is fetched at its own table's revision instead, as it is
// when the answer comes in another second than the burst's (its ages
// would be a second apart from every other table's). It returns the table
// whose revision the list is fetched at.
func (col *collector) converted(ctx context.Context, f *fetchedAll, i int, primary *list) *list {
	own := f.tables[i]
	if own == nil || primary == nil || own.rv == primary.rv || primary.rv == "" {
		return primary
	}
	r := col.client.fetch(ctx, f.units[i].path(), url.Values{"resourceVersion": {primary.rv}, "resourceVersionMatch": {"Exact"}}, acceptTable)
	if r.err != nil || !r.date.Equal(f.burst.tables[i].date) {
		return own
	}
	t, err := parseList(r.body, "rows")
	if err != nil || t.kind() != "Table" {
		return own
	}
	t.empty = own.empty
	f.tables[i] = t
	return primary
}

func (col *collector) fetchList(ctx context.Context, u unit, table *list) *list {
	var r fetched
	if table != nil && table.rv != "" {
		r = col.client.fetch(ctx, u.path(), url.Values{"resourceVersion": {table.rv}, "resourceVersionMatch": {"Exact"}}, acceptJSON)
		if r.err != nil {
			col.problems.add("list of "+u.String(), fmt.Errorf("at the table's resourceVersion %s: %w; the list is newer than its table", table.rv, r.err))
		}
	}
	if r.body == nil {
		r = col.client.fetch(ctx, u.path(), nil, acceptJSON)
	}
	if r.err != nil {
		col.problems.add("list of "+u.String(), r.err)
		return nil
	}
	l, err := parseList(r.body, "items")
	if err != nil {
		col.problems.add("list of "+u.String(), err)
		return nil
	}
	return l
}

// crds reads the CustomResourceDefinitions the lists hold.
func (col *collector) crds(f *fetchedAll) []crd {
	var out []crd
	for i, u := range f.units {
		if u.res.gvr.GroupResource() != (schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}) || u.res.converted || f.lists[i] == nil {
			continue
		}
		crds, err := parseCRDs(f.lists[i].elems)
		if err != nil {
			col.problems.add("list of "+u.String(), err)
			continue
		}
		out = append(out, crds...)
	}
	return out
}

// collectedAt is the second the tables were rendered in, by the server's
// clock; the local clock only when the server sends no Date.
func (col *collector) collectedAt(b *burst) time.Time {
	if b.tickErr != nil {
		col.problems.add("collection time", b.tickErr)
	}
	if b.at.IsZero() {
		col.problems.add("collection time", errors.New("no response carried a Date header; collectedAt is this machine's clock"))
		return time.Now().UTC().Truncate(time.Second)
	}
	if b.spread > 0 {
		col.problems.add("collection time", b.spreadError())
	}
	return b.at
}

func marshalIndent(v any) ([]byte, error) {
	return json.MarshalIndent(v, "", "  ")
}

func newDiscovery(d *discovered, at time.Time) *contract.Discovery {
	doc := &contract.Discovery{
		BundleSchemaVersion: contract.SchemaVersion,
		CollectedAt:         metav1.NewTime(at),
		KubernetesVersion:   d.version.GitVersion,
		APIVersion:          "v1",
		Groups:              d.groups,
		Resources:           map[string][]metav1.APIResource{},
	}
	for _, l := range d.lists {
		doc.Resources[l.GroupVersion] = append([]metav1.APIResource(nil), l.APIResources...)
	}
	return doc
}
