package serve

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
)

// discoveryRestrictions accept only the aggregated discovery kinds the
// server offered, as its aggregated.DiscoveryEndpointRestrictions do.
type discoveryRestrictions struct{ formats map[string]bool }

func (d discoveryRestrictions) AllowsMediaTypeTransform(_, _ string, gvk *schema.GroupVersionKind) bool {
	return gvk != nil && gvk.Group == "apidiscovery.k8s.io" && gvk.Kind == "APIGroupDiscoveryList" && d.formats[gvk.Version]
}

func (discoveryRestrictions) AllowsServerVersion(string) bool { return false }

func (discoveryRestrictions) AllowsStreamSchema(s string) bool { return s == "watch" }

// serveRoot answers /api and /apis: aggregated when the first acceptable
// clause of Accept asks for it, legacy otherwise, 406 when neither can be
// served. Either way the answer varies with Accept.
func (s *server) serveRoot(w http.ResponseWriter, r *http.Request, path string) error {
	w.Header().Set("Vary", "Accept")
	// An empty Accept is accepted without restrictions, so the conversion
	// must be checked too.
	if mt, ok := negotiation.NegotiateMediaTypeOptions(r.Header.Get("Accept"), jsonOnly, discoveryRestrictions{formats: s.x.AggregatedFormats()}); ok && mt.Convert != nil {
		doc := s.x.Aggregated(path)
		quoted := strconv.Quote(doc.ETag)
		w.Header().Set("ETag", quoted)
		w.Header().Set("Cache-Control", "public")
		if r.Header.Get("If-None-Match") == quoted {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		b := &body{}
		if mt.Convert.Version == "v2" {
			b.add(doc.V2)
		} else {
			b.add(doc.V2beta1)
		}
		contentType := jsonType + ";g=apidiscovery.k8s.io;v=" + mt.Convert.Version + ";as=APIGroupDiscoveryList"
		respond(w, r, http.StatusOK, contentType, b, nil, "")
		return nil
	}
	if err := negotiatePlain(r); err != nil {
		return err
	}
	addresses := []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress(r)}}
	var doc any
	if path == "/api" {
		doc = metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: s.x.CoreVersions(), ServerAddressByClientCIDRs: addresses}
	} else {
		// kube-aggregator, which answers /apis on a real cluster, lists
		// groups without a type or addresses.
		groups := make([]metav1.APIGroup, len(s.x.Groups()))
		for i, g := range s.x.Groups() {
			g.Kind, g.APIVersion = "", ""
			g.ServerAddressByClientCIDRs = nil
			groups[i] = g
		}
		doc = metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: groups}
	}
	return writeJSON(w, r, doc)
}

// serveGroup answers /apis/<group>.
func (s *server) serveGroup(w http.ResponseWriter, r *http.Request, group string) error {
	g, ok := s.x.Group(group)
	if !ok {
		return errNoRoute()
	}
	if err := negotiatePlain(r); err != nil {
		return err
	}
	return writeJSON(w, r, g)
}

// serveGroupVersion answers /api/v1 and /apis/<group>/<version>.
func (s *server) serveGroupVersion(w http.ResponseWriter, r *http.Request, gv string) error {
	data, ok := s.x.ResourceList(gv)
	if !ok {
		return errNoRoute()
	}
	if err := negotiatePlain(r); err != nil {
		return err
	}
	b := &body{}
	b.add(data)
	respond(w, r, http.StatusOK, jsonType, b, nil, "")
	return nil
}

// serveVersion answers /version as the server does: indented JSON.
func (s *server) serveVersion(w http.ResponseWriter) error {
	data, err := json.MarshalIndent(s.x.Version, "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", jsonType)
	w.WriteHeader(http.StatusOK)
	w.Write(data)
	return nil
}

// serverAddress is the address the client used, as the server reports it
// in serverAddressByClientCIDRs.
func serverAddress(r *http.Request) string {
	if _, _, err := net.SplitHostPort(r.Host); err == nil {
		return r.Host
	}
	return net.JoinHostPort(r.Host, "443")
}

func writeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b := &body{}
	b.add(append(data, '\n'))
	respond(w, r, http.StatusOK, jsonType, b, nil, "")
	return nil
}
