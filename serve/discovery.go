package serve

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/endpoints/deprecation"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"

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
	aggregated map[string]aggregatedDoc
	formats    map[string]bool
	// custom are the resources of custom resource definitions.
	custom map[schema.GroupResource]bool
}

type aggregatedDoc struct {
	v2, v2beta1 []byte
	etag        string
}

// buildDiscovery renders every discovery document once. custom holds the
// resources served by the apiextensions server (from the bundle's CRDs),
// whose aggregated entries it writes differently from the installer's;
// v is the bundle's Kubernetes version, which decides the aggregated
// formats its server offered.
func buildDiscovery(d *contract.Discovery, v version.Info, custom map[schema.GroupResource]bool) (*discoveryDocs, error) {
	docs := &discoveryDocs{groupByName: map[string]metav1.APIGroup{}, resourceLists: map[string][]byte{}, aggregated: map[string]aggregatedDoc{},
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
	for path, items := range map[string][]apidiscoveryv2.APIGroupDiscovery{"/api": core, "/apis": groups} {
		doc, err := renderAggregated(items)
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
func renderAggregated(items []apidiscoveryv2.APIGroupDiscovery) (aggregatedDoc, error) {
	if items == nil {
		items = []apidiscoveryv2.APIGroupDiscovery{}
	}
	list := apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    items,
	}
	v2, err := json.Marshal(list)
	if err != nil {
		return aggregatedDoc{}, err
	}
	list.APIVersion = "apidiscovery.k8s.io/v2beta1"
	v2beta1, err := json.Marshal(list)
	if err != nil {
		return aggregatedDoc{}, err
	}
	return aggregatedDoc{v2: append(v2, '\n'), v2beta1: append(v2beta1, '\n'), etag: fmt.Sprintf("%X", sha512.Sum512(v2))}, nil
}

// aggregatedFormats are the versions of aggregated discovery a server of
// version v offered: v2beta1 from 1.26 (until AggregatedDiscoveryRemoveBetaType
// turned it off by default in 1.33), v2 from 1.30. A bundle that does not
// tell its version gets both.
func aggregatedFormats(v version.Info) map[string]bool {
	major, minor, err := deprecation.MajorMinor(v)
	if err != nil || major != 1 {
		return map[string]bool{"v2": true, "v2beta1": true}
	}
	return map[string]bool{"v2": minor >= 30, "v2beta1": minor >= 26 && minor < 33}
}

// discoveryRestrictions accept only the aggregated discovery kinds the
// server offered, as its aggregated.DiscoveryEndpointRestrictions do.
type discoveryRestrictions struct{ formats map[string]bool }

func (d discoveryRestrictions) AllowsMediaTypeTransform(_, _ string, gvk *schema.GroupVersionKind) bool {
	return gvk != nil && gvk.Group == "apidiscovery.k8s.io" && gvk.Kind == "APIGroupDiscoveryList" && d.formats[gvk.Version]
}
func (discoveryRestrictions) AllowsServerVersion(string) bool  { return false }
func (discoveryRestrictions) AllowsStreamSchema(s string) bool { return s == "watch" }

// serveRoot answers /api and /apis: aggregated when the first acceptable
// clause of Accept asks for it, legacy otherwise, 406 when neither can be
// served. Either way the answer varies with Accept.
func (s *server) serveRoot(w http.ResponseWriter, r *http.Request, path string) {
	w.Header().Set("Vary", "Accept")
	// An empty Accept is accepted without restrictions, so the conversion
	// must be checked too.
	if mt, ok := negotiation.NegotiateMediaTypeOptions(r.Header.Get("Accept"), jsonOnly, discoveryRestrictions{formats: s.x.discovery.formats}); ok && mt.Convert != nil {
		doc := s.x.discovery.aggregated[path]
		quoted := strconv.Quote(doc.etag)
		w.Header().Set("ETag", quoted)
		w.Header().Set("Cache-Control", "public")
		if r.Header.Get("If-None-Match") == quoted {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		b := &body{}
		if mt.Convert.Version == "v2" {
			b.add(doc.v2)
		} else {
			b.add(doc.v2beta1)
		}
		contentType := jsonType + ";g=apidiscovery.k8s.io;v=" + mt.Convert.Version + ";as=APIGroupDiscoveryList"
		respond(w, r, http.StatusOK, contentType, b, nil, "")
		return
	}
	if err := negotiatePlain(r); err != nil {
		writeError(w, err)
		return
	}
	addresses := []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress(r)}}
	var doc any
	if path == "/api" {
		doc = metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: s.x.discovery.coreVersions, ServerAddressByClientCIDRs: addresses}
	} else {
		// kube-aggregator, which answers /apis on a real cluster, lists
		// groups without a type or addresses.
		groups := make([]metav1.APIGroup, len(s.x.discovery.groups))
		for i, g := range s.x.discovery.groups {
			g.Kind, g.APIVersion = "", ""
			g.ServerAddressByClientCIDRs = nil
			groups[i] = g
		}
		doc = metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: groups}
	}
	writeJSON(w, r, doc)
}

// serveGroup answers /apis/<group>.
func (s *server) serveGroup(w http.ResponseWriter, r *http.Request, group string) {
	g, ok := s.x.discovery.groupByName[group]
	if !ok {
		writeError(w, errNoRoute())
		return
	}
	if err := negotiatePlain(r); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, r, g)
}

// serveGroupVersion answers /api/v1 and /apis/<group>/<version>.
func (s *server) serveGroupVersion(w http.ResponseWriter, r *http.Request, gv string) {
	data, ok := s.x.discovery.resourceLists[gv]
	if !ok {
		writeError(w, errNoRoute())
		return
	}
	if err := negotiatePlain(r); err != nil {
		writeError(w, err)
		return
	}
	b := &body{}
	b.add(data)
	respond(w, r, http.StatusOK, jsonType, b, nil, "")
}

// serveVersion answers /version as the server does: indented JSON.
func (s *server) serveVersion(w http.ResponseWriter) {
	data, err := json.MarshalIndent(s.x.Version, "", "  ")
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", jsonType)
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

// serverAddress is the address the client used, as the server reports it
// in serverAddressByClientCIDRs.
func serverAddress(r *http.Request) string {
	if _, _, err := net.SplitHostPort(r.Host); err == nil {
		return r.Host
	}
	return net.JoinHostPort(r.Host, "443")
}

func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, err)
		return
	}
	b := &body{}
	b.add(append(data, '\n'))
	respond(w, r, http.StatusOK, jsonType, b, nil, "")
}
