package index

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/endpoints/deprecation"

	"github.com/bundlectl/bundlectl/contract"
)

// Every discovery form (legacy /api, /apis, /apis/<g>, /apis/<g>/<v>, and
// aggregated v2 and v2beta1) is generated from the one discovery.json, so
// that the forms cannot disagree: kubectl 1.29 reads the legacy form or
// v2beta1, kubectl 1.30+ reads v2, client-go RESTMappers read single group
// versions.

// discoveryDocs are the discovery documents, rendered at load.
type discoveryDocs struct {
	coreVersions []string
	groups       []metav1.APIGroup // without the core group, in priority order
	groupByName  map[string]metav1.APIGroup
	// resourceLists are the APIResourceList bodies by group version.
	resourceLists map[string][]byte
	// aggregated are the APIGroupDiscoveryList bodies for /api and /apis,
	// offered in the formats (v2, v2beta1) the bundle's server offered.
	aggregated map[string]AggregatedDoc
	formats    map[string]bool
	// custom are the resources of custom resource definitions.
	custom map[schema.GroupResource]bool
}

// AggregatedDoc is an aggregated discovery document (/api or /apis) in
// both versions, and its ETag.
type AggregatedDoc struct {
	V2, V2beta1 []byte
	ETag        string
}

// buildDiscovery renders every discovery document once. custom holds the
// resources served by the apiextensions server (from the bundle's CRDs),
// whose aggregated entries it writes differently from the installer's;
// v is the bundle's Kubernetes version, which decides the aggregated
// formats its server offered.
func buildDiscovery(d *contract.Discovery, v version.Info, custom map[schema.GroupResource]bool) (*discoveryDocs, error) {
	docs := &discoveryDocs{groupByName: map[string]metav1.APIGroup{}, resourceLists: map[string][]byte{}, aggregated: map[string]AggregatedDoc{},
		custom: custom, formats: aggregatedFormats(v)}
	for _, g := range d.Groups {
		if g.Name == "" {
			for _, v := range g.Versions {
				docs.coreVersions = append(docs.coreVersions, v.Version)
			}
			continue
		}
		g.Kind, g.APIVersion = "APIGroup", "v1"
		docs.groups = append(docs.groups, g)
		docs.groupByName[g.Name] = g
	}
	if len(docs.coreVersions) == 0 && d.Resources["v1"] != nil {
		docs.coreVersions = []string{"v1"}
	}
	for gv, rs := range d.Resources {
		list := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv, APIResources: rs}
		if !strings.Contains(gv, "/") {
			// The core group's documents carry no apiVersion on a real server.
			list.APIVersion = ""
		}
		if list.APIResources == nil {
			list.APIResources = []metav1.APIResource{}
		}
		data, err := json.Marshal(list)
		if err != nil {
			return nil, fmt.Errorf("discovery for %s: %w", gv, err)
		}
		docs.resourceLists[gv] = append(data, '\n')
	}
	core := []apidiscoveryv2.APIGroupDiscovery{{Versions: docs.versionsDiscovery("", docs.coreVersions, d)}}
	var groups []apidiscoveryv2.APIGroupDiscovery
	for _, g := range docs.groups {
		var versions []string
		for _, v := range g.Versions {
			versions = append(versions, v.Version)
		}
		groups = append(groups, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}, Versions: docs.versionsDiscovery(g.Name, versions, d)})
	}
	nullCreation := writesNullCreation(v)
	for path, items := range map[string][]apidiscoveryv2.APIGroupDiscovery{"/api": core, "/apis": groups} {
		doc, err := renderAggregated(items, nullCreation)
		if err != nil {
			return nil, fmt.Errorf("aggregated discovery for %s: %w", path, err)
		}
		docs.aggregated[path] = doc
	}
	return docs, nil
}

func (docs *discoveryDocs) versionsDiscovery(group string, versions []string, d *contract.Discovery) []apidiscoveryv2.APIVersionDiscovery {
	var out []apidiscoveryv2.APIVersionDiscovery
	for _, v := range versions {
		gv := schema.GroupVersion{Group: group, Version: v}.String()
		out = append(out, apidiscoveryv2.APIVersionDiscovery{
			Version:   v,
			Resources: toAggregatedResources(schema.GroupVersion{Group: group, Version: v}, d.Resources[gv], docs.custom),
			Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		})
	}
	return out
}

// toAggregatedResources is the apiserver's ConvertGroupVersionIntoToDiscovery
// (k8s.io/apiserver/pkg/endpoints/installer.go), which lives in a package
// too heavy to import: subresources are folded into their parent, and a
// subresource whose parent is not listed gets an empty parent. Custom
// resources are written as the apiextensions discovery controller writes
// them: their kind and their status subresource's carry the group version,
// and a group version of custom resources is sorted by resource.
func toAggregatedResources(gv schema.GroupVersion, list []metav1.APIResource, custom map[schema.GroupResource]bool) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	parents := map[string]int{}
	scope := func(r metav1.APIResource) apidiscoveryv2.ResourceScope {
		if r.Namespaced {
			return apidiscoveryv2.ScopeNamespace
		}
		return apidiscoveryv2.ScopeCluster
	}
	for _, r := range list {
		if strings.Contains(r.Name, "/") {
			continue
		}
		kind := &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		if custom[gv.WithResource(r.Name).GroupResource()] {
			kind.Group, kind.Version = gv.Group, gv.Version
		}
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource:         r.Name,
			Scope:            scope(r),
			ResponseKind:     kind,
			Verbs:            r.Verbs,
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
			SingularResource: r.SingularName,
		})
		parents[r.Name] = len(out) - 1
	}
	for _, r := range list {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, exists := parents[parent]
		if !exists {
			out = append(out, apidiscoveryv2.APIResourceDiscovery{Resource: parent, Scope: scope(r), ResponseKind: &metav1.GroupVersionKind{}})
			i = len(out) - 1
			parents[parent] = i
		}
		s := apidiscoveryv2.APISubresourceDiscovery{Subresource: sub, Verbs: r.Verbs, ResponseKind: &metav1.GroupVersionKind{}}
		if r.Kind != "" {
			s.ResponseKind = &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		}
		if custom[gv.WithResource(parent).GroupResource()] && sub == "status" {
			s.ResponseKind.Group, s.ResponseKind.Version = gv.Group, gv.Version
		}
		out[i].Subresources = append(out[i].Subresources, s)
	}
	// The legacy list of a CRD group keeps the CRD lister's order, but
	// the discovery controller sorts the aggregated one by resource.
	allCustom := len(out) > 0
	for _, r := range out {
		allCustom = allCustom && custom[gv.WithResource(r.Resource).GroupResource()]
	}
	if allCustom {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	}
	return out
}

// renderAggregated renders both versions of the aggregated document. The
// v2beta1 types have the same fields as v2, so only the apiVersion
// differs. The ETag is the server's: SHA-512 of the v2 document, in hex.
// nullCreation writes each group's zero creationTimestamp as null, as
// servers before 1.34 did.
func renderAggregated(items []apidiscoveryv2.APIGroupDiscovery, nullCreation bool) (AggregatedDoc, error) {
	if items == nil {
		items = []apidiscoveryv2.APIGroupDiscovery{}
	}
	var list any = &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    items,
	}
	setAPIVersion := func(v string) { list.(*apidiscoveryv2.APIGroupDiscoveryList).APIVersion = v }
	if nullCreation {
		legacy := &legacyGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
			Items: make([]legacyGroupDiscovery, len(items))}
		for i, it := range items {
			legacy.Items[i] = legacyGroupDiscovery{Metadata: legacyGroupMeta{Name: it.Name}, Versions: it.Versions}
		}
		list, setAPIVersion = legacy, func(v string) { legacy.APIVersion = v }
	}
	v2, err := json.Marshal(list)
	if err != nil {
		return AggregatedDoc{}, err
	}
	setAPIVersion("apidiscovery.k8s.io/v2beta1")
	v2beta1, err := json.Marshal(list)
	if err != nil {
		return AggregatedDoc{}, err
	}
	return AggregatedDoc{V2: append(v2, '\n'), V2beta1: append(v2beta1, '\n'), ETag: fmt.Sprintf("%X", sha512.Sum512(v2))}, nil
}

// legacyGroupDiscoveryList is an APIGroupDiscoveryList as apimachinery
// before v0.34 wrote it: ObjectMeta's creationTimestamp had no omitzero,
// so a group's metadata carried "creationTimestamp": null (after its name,
// in ObjectMeta's field order).
type legacyGroupDiscoveryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []legacyGroupDiscovery `json:"items"`
}

type legacyGroupDiscovery struct {
	Metadata legacyGroupMeta                      `json:"metadata,omitempty"`
	Versions []apidiscoveryv2.APIVersionDiscovery `json:"versions,omitempty"`
}

type legacyGroupMeta struct {
	Name              string    `json:"name,omitempty"`
	CreationTimestamp *struct{} `json:"creationTimestamp"`
}

// writesNullCreation says whether a server of version v wrote a zero
// creationTimestamp as null: up to 1.33 (apimachinery v0.33). A bundle
// that does not tell its version is answered as the pinned server does.
func writesNullCreation(v version.Info) bool {
	major, minor, err := deprecation.MajorMinor(v)
	return err == nil && major == 1 && minor <= 33
}

// aggregatedFormats are the versions of aggregated discovery a server of
// version v offered: v2beta1 from 1.27, when AggregatedDiscoveryEndpoint
// went beta and on by default (1.26 had it alpha, off), until
// AggregatedDiscoveryRemoveBetaType turned it off by default in 1.33; v2
// from 1.30. A bundle that does not
// tell its version gets both.
func aggregatedFormats(v version.Info) map[string]bool {
	major, minor, err := deprecation.MajorMinor(v)
	if err != nil || major != 1 {
		return map[string]bool{"v2": true, "v2beta1": true}
	}
	return map[string]bool{"v2": minor >= 30, "v2beta1": minor >= 27 && minor < 33}
}
