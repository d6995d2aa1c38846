package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

const (
	probeConcurrency = 32
	// probeValue is a field value no object has: a probe asks whether the
	// server accepts a label, not what matches.
	probeValue = "bundlectl-probe-matches-nothing"
)

// crd is the part of a CustomResourceDefinition the collector needs.
type crd struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			SelectableFields []struct {
				JSONPath string `json:"jsonPath"`
			} `json:"selectableFields"`
		} `json:"versions"`
	} `json:"spec"`
}

func parseCRDs(items []json.RawMessage) ([]crd, error) {
	out := make([]crd, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &out[i]); err != nil {
			return nil, fmt.Errorf("customresourcedefinitions item %d: %w", i, err)
		}
	}
	return out, nil
}

// fieldCandidates are the labels worth probing: metadata.name and
// metadata.namespace, every label (and alias) the contract knows for the
// server's built-in resources in any release, and every CRD version's
// selectable fields.
func fieldCandidates(resources []resource, crds []crd) []string {
	set := map[string]bool{"metadata.name": true, "metadata.namespace": true}
	for _, r := range resources {
		for _, l := range contract.BuiltinFieldLabels(r.gvr) {
			set[l] = true
		}
	}
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			for _, f := range v.SelectableFields {
				set[strings.TrimPrefix(f.JSONPath, ".")] = true
			}
		}
	}
	return sortedKeys(set)
}

// probed is what the probes of one resource found.
type probed struct {
	mu       sync.Mutex
	accepted []string
	err      error
}

// probeFields asks the server, for every resource and candidate label,
// whether `fieldSelector=<label>=<nothing>&limit=1` is accepted (200) or
// refused (400). A resource with any other answer gets no list.
func (c *client) probeFields(ctx context.Context, resources []resource, candidates []string, ns func(resource) string) map[schema.GroupVersionResource]*probed {
	out := make(map[schema.GroupVersionResource]*probed, len(resources))
	for _, r := range resources {
		out[r.gvr] = &probed{}
	}
	type job struct {
		r     resource
		label string
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range probeConcurrency {
		wg.Go(func() {
			for j := range jobs {
				c.probe(ctx, j.r, ns(j.r), j.label, out[j.r.gvr])
			}
		})
	}
	for _, r := range resources {
		for _, l := range candidates {
			jobs <- job{r, l}
		}
	}
	close(jobs)
	wg.Wait()
	for _, p := range out {
		sort.Strings(p.accepted)
	}
	return out
}

func (c *client) probe(ctx context.Context, r resource, ns, label string, p *probed) {
	q := url.Values{"fieldSelector": {label + "=" + probeValue}, "limit": {"1"}}
	resp, err := c.get(ctx, listPath(r.gvr, ns), q, acceptJSON)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil:
		p.err = err
	case resp.status == http.StatusOK:
		p.accepted = append(p.accepted, label)
	case resp.status != http.StatusBadRequest:
		p.err = fmt.Errorf("probing %s: %s", label, statusMessage(resp))
	}
}
