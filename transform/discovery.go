package transform

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/bundlectl/bundlectl/contract"
)

// stored is a resource the bundle holds objects of, at the version it
// holds them.
type stored struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
	custom     bool
}

// discoveryInput is everything discovery.json is made from.
type discoveryInput struct {
	groups, resources []byte // groups.json and resources.json, nil when absent
	stored            []stored
	crds              *crdIndex
	kubernetesVersion string
	collectedAt       time.Time
	// minor is the cluster's, whose release's built-in API stands in for
	// what the bundle lacks.
	minor int
	// nodeMetrics is set when the bundle holds node metrics, which
	// metrics.k8s.io is served from (writeNodeMetrics); without them the
	// group is not advertised (removeMetricsDiscovery).
	nodeMetrics bool
}

// buildDiscovery makes _meta/discovery.json: what the server advertised
// (groups.json in server order, resources.json) when the bundle has it,
// else the built-in API of the cluster's release (builtin.go); then every CRD and every group
// version the bundle stores objects at is made reachable, so that an
// object stored as batch/v1beta1 is served even by a discovery that no
// longer lists that version.
func buildDiscovery(in discoveryInput) (*contract.Discovery, []error) {
	d := &contract.Discovery{
		BundleSchemaVersion: contract.SchemaVersion,
		APIVersion:          "v1",
		CollectedAt:         metav1.NewTime(in.collectedAt.UTC().Truncate(time.Second)),
		KubernetesVersion:   in.kubernetesVersion,
		Resources:           map[string][]metav1.APIResource{},
	}
	var problems []error
	if in.groups != nil {
		if err := json.Unmarshal(in.groups, &d.Groups); err != nil {
			problems = append(problems, fmt.Errorf("cluster-resources/groups.json: %w", err))
		}
	}
	if in.resources != nil {
		var lists []metav1.APIResourceList
		if err := json.Unmarshal(in.resources, &lists); err != nil {
			problems = append(problems, fmt.Errorf("cluster-resources/resources.json: %w", err))
		}
		for _, l := range lists {
			d.Resources[l.GroupVersion] = append(d.Resources[l.GroupVersion], l.APIResources...)
		}
	}
	if len(d.Groups) == 0 && len(d.Resources) == 0 {
		builtin := newBuiltinDiscovery(in.minor)
		d.Groups, d.Resources = builtin.Groups, builtin.Resources
	}
	// The server's order is kept; what is added comes after it, in an
	// order that does not depend on how the upgrade's workers finished.
	crds := in.crds.all()
	sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
	for _, crd := range crds {
		addCRD(d, crd)
	}
	stored := slices.Clone(in.stored)
	sort.Slice(stored, func(i, j int) bool { return stored[i].gvr.String() < stored[j].gvr.String() })
	for _, s := range stored {
		addStored(d, s, in.minor)
	}
	if in.nodeMetrics {
		addMetricsDiscovery(d)
	} else {
		removeMetricsDiscovery(d)
	}
	return d, problems
}

// group returns the group's entry, adding it (last, as the server lists
// groups registered later) when absent.
func group(d *contract.Discovery, name string) *metav1.APIGroup {
	for i := range d.Groups {
		if d.Groups[i].Name == name {
			return &d.Groups[i]
		}
	}
	d.Groups = append(d.Groups, metav1.APIGroup{Name: name})
	return &d.Groups[len(d.Groups)-1]
}

// addVersion lists a version in its group; the first version a group gets
// is its preferred one.
func addVersion(d *contract.Discovery, gv schema.GroupVersion) {
	g := group(d, gv.Group)
	for _, v := range g.Versions {
		if v.Version == gv.Version {
			return
		}
	}
	gvd := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
	g.Versions = append(g.Versions, gvd)
	if g.PreferredVersion.Version == "" {
		g.PreferredVersion = gvd
	}
}

func hasResource(d *contract.Discovery, gv, name string) bool {
	_, ok := d.Resource(gv, name)
	return ok
}

// addCRD advertises a CRD's served versions as the apiextensions server
// does, where the bundle's own discovery did not already.
func addCRD(d *contract.Discovery, crd *apiextensions.CustomResourceDefinition) {
	if !established(crd) {
		return
	}
	versions := servedVersions(crd)
	for _, v := range versions {
		gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v}
		addVersion(d, gv)
		if hasResource(d, gv.String(), crd.Spec.Names.Plural) {
			continue
		}
		names := crd.Status.AcceptedNames
		if names.Plural == "" {
			names = crd.Spec.Names
		}
		r := metav1.APIResource{
			Name:         names.Plural,
			SingularName: names.Singular,
			Namespaced:   crd.Spec.Scope == apiextensions.NamespaceScoped,
			Kind:         names.Kind,
			Verbs:        metav1.Verbs{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
			ShortNames:   names.ShortNames,
			Categories:   names.Categories,
		}
		d.Resources[gv.String()] = append(d.Resources[gv.String()], r)
		if sub, err := apiextensions.GetSubresourcesForVersion(crd, v); err == nil && sub != nil {
			if sub.Status != nil {
				d.Resources[gv.String()] = append(d.Resources[gv.String()], metav1.APIResource{Name: names.Plural + "/status", Namespaced: r.Namespaced, Kind: names.Kind, Verbs: metav1.Verbs{"get", "patch", "update"}})
			}
			if sub.Scale != nil {
				d.Resources[gv.String()] = append(d.Resources[gv.String()], metav1.APIResource{Name: names.Plural + "/scale", Namespaced: r.Namespaced, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"}})
			}
		}
	}
}

// established says whether the apiextensions server served the CRD: its
// discovery and OpenAPI controllers skip a CRD that is not Established
// (one whose names another CRD of the group holds is never established).
// A CRD the bundle holds without any condition (its status dropped) is
// taken as established, as nothing says otherwise.
func established(crd *apiextensions.CustomResourceDefinition) bool {
	return len(crd.Status.Conditions) == 0 || apiextensions.IsCRDConditionTrue(crd, apiextensions.Established)
}

// servedVersions lists a CRD's served versions in the server's priority
// order: the storage version's group lists them as the CRD does, and the
// apiextensions server prefers the highest by Kubernetes version order.
func servedVersions(crd *apiextensions.CustomResourceDefinition) []string {
	var out []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			out = append(out, v.Name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(out[i], out[j]) > 0 })
	return out
}

// addStored makes a resource the bundle holds objects of reachable at the
// version they are stored at. Its APIResource is taken from another
// version of the same resource where discovery has one (CronJobs stored
// as batch/v1beta1 are described as batch/v1 describes them), else from
// the pinned release's built-in API, else made from what the bundle says.
func addStored(d *contract.Discovery, s stored, minor int) {
	gv := s.gvr.GroupVersion()
	if s.gvr.Version == "" || hasResource(d, gv.String(), s.gvr.Resource) {
		if s.gvr.Version != "" {
			addVersion(d, gv)
		}
		return
	}
	addVersion(d, gv)
	r, ok := resourceAtAnyVersion(d, s.gvr.GroupResource())
	if !ok {
		r, ok = resourceAtAnyVersion(builtinDiscovery(minor), s.gvr.GroupResource())
	}
	if !ok {
		r = metav1.APIResource{Name: s.gvr.Resource, Namespaced: s.namespaced, Kind: s.kind, Verbs: metav1.Verbs{"get", "list", "watch"}}
	}
	if s.kind != "" {
		r.Kind = s.kind
	}
	r.Group, r.Version, r.StorageVersionHash = "", "", ""
	d.Resources[gv.String()] = append(d.Resources[gv.String()], r)
}

func resourceAtAnyVersion(d *contract.Discovery, gr schema.GroupResource) (metav1.APIResource, bool) {
	if d == nil {
		return metav1.APIResource{}, false
	}
	gvs := make([]string, 0, len(d.Resources))
	for gv := range d.Resources {
		gvs = append(gvs, gv)
	}
	sort.Strings(gvs) // deterministic when several versions have it
	for _, gvString := range gvs {
		gv, err := schema.ParseGroupVersion(gvString)
		if err != nil || gv.Group != gr.Group {
			continue
		}
		if r, ok := d.Resource(gvString, gr.Resource); ok {
			return r, true
		}
	}
	return metav1.APIResource{}, false
}
