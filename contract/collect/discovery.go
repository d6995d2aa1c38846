package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"k8s.io/apimachinery/pkg/version"
)

// discovered is what the legacy discovery endpoints said.
type discovered struct {
	version version.Info
	// groups is in the server's priority order, core first, as client-go's
	// ServerGroups builds it.
	groups []metav1.APIGroup
	// lists holds the APIResourceList of each group version that answered,
	// in group order, subresources included.
	lists []metav1.APIResourceList
}

// discover reads /version, /api, /apis and every group version. A group
// version that fails (an aggregated API that is down) is a problem; the
// rest fails only when the server cannot be reached at all.
func (c *client) discover(ctx context.Context, problems *problems) (*discovered, error) {
	d := &discovered{}
	if err := c.getJSON(ctx, "/version", &d.version); err != nil {
		return nil, err
	}
	var core metav1.APIVersions
	if err := c.getJSON(ctx, "/api", &core); err != nil {
		return nil, err
	}
	var apis metav1.APIGroupList
	if err := c.getJSON(ctx, "/apis", &apis); err != nil {
		return nil, err
	}
	d.groups = append([]metav1.APIGroup{coreGroup(core)}, apis.Groups...)
	d.lists = c.resourceLists(ctx, d.groups, problems)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return d, nil
}

func (c *client) getJSON(ctx context.Context, p string, into any) error {
	r, err := c.getOK(ctx, p, nil, acceptJSON)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(r.body, into); err != nil {
		return fmt.Errorf("GET %s: %w", p, err)
	}
	return nil
}

// coreGroup is the legacy group as client-go's discovery presents it.
func coreGroup(v metav1.APIVersions) metav1.APIGroup {
	g := metav1.APIGroup{}
	for _, ver := range v.Versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: ver, Version: ver})
	}
	if len(g.Versions) > 0 {
		g.PreferredVersion = g.Versions[0]
	}
	return g
}

func (c *client) resourceLists(ctx context.Context, groups []metav1.APIGroup, problems *problems) []metav1.APIResourceList {
	var gvs []string
	for _, g := range groups {
		for _, v := range g.Versions {
			gvs = append(gvs, v.GroupVersion)
		}
	}
	lists := make([]*metav1.APIResourceList, len(gvs))
	var wg sync.WaitGroup
	for i, gv := range gvs {
		wg.Go(func() {
			p := "/apis/" + gv
			if !strings.Contains(gv, "/") {
				p = "/api/" + gv
			}
			var l metav1.APIResourceList
			if err := c.getJSON(ctx, p, &l); err != nil {
				problems.add("discovery "+gv, err)
				return
			}
			lists[i] = &l
		})
	}
	wg.Wait()
	var out []metav1.APIResourceList
	for _, l := range lists {
		if l != nil {
			out = append(out, *l)
		}
	}
	return out
}

// resource is one listable resource at the version it is collected in.
type resource struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
	// converted is set for a version the server converts another
	// resource's objects to: written under _meta/converted/
	// (contract.ConvertedListDir) as the upgrade writes its conversions.
	converted bool
}

// listable picks every resource with the list verb at its group's
// preferred version, or, for a resource its preferred version lacks, the
// first other version that serves it, as kubectl's RESTMapper resolves
// names. Subresources are not lists. The other versions that serve each,
// and a resource whose objects the server stores as another's that is
// listable too (events.k8s.io events, contract.CohabitantOf), are the
// server's conversions of them: listed as converted.
func (d *discovered) listable() []resource {
	byGV := map[string]metav1.APIResourceList{}
	for _, l := range d.lists {
		byGV[l.GroupVersion] = l
	}
	var out []resource
	primary := map[schema.GroupResource]bool{}
	for _, g := range d.groups {
		seen := map[string]bool{}
		for _, v := range preferredFirst(g) {
			for _, r := range byGV[v.GroupVersion].APIResources {
				if strings.Contains(r.Name, "/") || !hasVerb(r, "list") {
					continue
				}
				res := resource{
					gvr:  schema.GroupVersionResource{Group: g.Name, Version: v.Version, Resource: r.Name},
					kind: r.Kind, namespaced: r.Namespaced, converted: seen[r.Name],
				}
				seen[r.Name] = true
				if !res.converted {
					primary[res.gvr.GroupResource()] = true
				}
				out = append(out, res)
			}
		}
	}
	for i := range out {
		if gr, ok := contract.CohabitantOf(out[i].gvr.GroupResource()); ok && primary[gr] {
			out[i].converted = true
		}
	}
	return out
}

func preferredFirst(g metav1.APIGroup) []metav1.GroupVersionForDiscovery {
	out := []metav1.GroupVersionForDiscovery{g.PreferredVersion}
	for _, v := range g.Versions {
		if v.Version != g.PreferredVersion.Version {
			out = append(out, v)
		}
	}
	return out
}

func hasVerb(r metav1.APIResource, verb string) bool {
	for _, v := range r.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}
