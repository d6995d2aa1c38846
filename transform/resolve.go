package transform

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// resolve says what a decoded list stores. The list and its items say it
// when they have any; an empty list of a folder troubleshoot never typed
// (custom resources, generic folders) takes its version and kind from its
// CRD, else from the built-in API of the cluster's release.
func (p *pipeline) resolve(c contract.Classification, l *contract.List) stored {
	s := stored{gvr: contract.ListGVR(c, l), kind: contract.ListKind(c, l), namespaced: c.Namespaced, custom: c.Custom}
	if c.Custom {
		if crd, ok := p.r.crds.lookup(c.GR); ok {
			s.namespaced = crd.namespaced()
			if s.gvr.Version == "" {
				if vs := servedVersions(crd.crd); len(vs) > 0 {
					s.gvr.Version = vs[0]
				}
			}
			if s.kind == "" {
				s.kind = crd.crd.Spec.Names.Kind
			}
		}
		return s
	}
	if s.gvr.Version == "" || s.kind == "" {
		if gv, r, ok := preferredBuiltin(c.GR, p.r.minor); ok {
			if s.gvr.Version == "" {
				s.gvr.Version = gv.Version
			}
			if s.kind == "" {
				s.kind = r
			}
		}
	}
	return s
}

// preferredBuiltin finds a built-in resource of a cluster of minor at its
// group's preferred version, with its kind.
func preferredBuiltin(gr schema.GroupResource, minor int) (schema.GroupVersion, string, bool) {
	d := builtinDiscovery(minor)
	gv := schema.GroupVersion{Group: gr.Group, Version: d.PreferredVersion(gr.Group)}
	if gr.Group == "" {
		gv.Version = "v1"
	}
	if r, ok := d.Resource(gv.String(), gr.Resource); ok {
		return gv, r.Kind, true
	}
	return schema.GroupVersion{}, "", false
}
