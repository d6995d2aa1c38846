package serve

import (
	"net/http"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
)

// Content negotiation is the apiserver's own (k8s.io/apiserver's
// negotiation package) over the one media type bundlectl writes, JSON, so
// that an Accept header picks the same clause here as on a real server:
// kubectl's `as=Table;v=v1;g=meta.k8s.io,...,application/json` gets a
// Table, a protobuf-only client gets 406.

const jsonType = "application/json"

var jsonOnly = []runtime.SerializerInfo{{
	MediaType:        jsonType,
	MediaTypeType:    "application",
	MediaTypeSubType: "json",
	EncodesAsText:    true,
	// Watches are served as newline-delimited JSON; the negotiation only
	// checks that a stream serializer exists.
	StreamSerializer: &runtime.StreamSerializerInfo{EncodesAsText: true},
}}

// errUnacceptable is the server's 406 when no Accept clause can be served.
var errUnacceptable = errNotAcceptable("only the following media types are accepted: " + jsonType)

// target is what a resource request asked to receive.
type target struct {
	// kind is "" (the objects themselves), "Table", "PartialObjectMetadata"
	// or "PartialObjectMetadataList".
	kind string
	// groupVersion is meta.k8s.io/v1 or meta.k8s.io/v1beta1 for the
	// transformed kinds.
	groupVersion string
}

// resourceRestrictions are the RequestScope rules: Tables and partial
// metadata of meta.k8s.io v1 and v1beta1, as JSON.
type resourceRestrictions struct{}

func (resourceRestrictions) AllowsMediaTypeTransform(_, _ string, gvk *schema.GroupVersionKind) bool {
	if gvk == nil {
		return true
	}
	if gvk.GroupVersion() != metav1.SchemeGroupVersion && gvk.GroupVersion() != metav1beta1.SchemeGroupVersion {
		return false
	}
	switch gvk.Kind {
	case "Table", "PartialObjectMetadata", "PartialObjectMetadataList":
		return true
	}
	return false
}
func (resourceRestrictions) AllowsServerVersion(string) bool  { return false }
func (resourceRestrictions) AllowsStreamSchema(s string) bool { return s == "watch" }

// kubectlAccept is the Accept header of kubectl get (and describe, wait,
// ...: every kubectl request that prints); kubectlTarget is what it
// negotiates to.
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

var kubectlTarget, _ = negotiateAccept(kubectlAccept)

func negotiateResource(r *http.Request) (target, error) {
	accept := r.Header.Get("Accept")
	if accept == kubectlAccept {
		// kubectl's own, answered without the lookup in negotiated,
		// whose entries are cold between two GETs.
		return kubectlTarget, nil
	}
	if n, ok := negotiated.Load(accept); ok {
		n := n.(negotiatedTarget)
		return n.target, n.err
	}
	t, err := negotiateAccept(accept)
	if len(accept) <= maxNegotiatedAccept && negotiated.size.Load() < maxNegotiated {
		if _, loaded := negotiated.LoadOrStore(accept, negotiatedTarget{t, err}); !loaded {
			negotiated.size.Add(1)
		}
	}
	return t, err
}

// negotiated remembers negotiateResource's answer per Accept header.
// Clients send the same few headers on every request, and parsing one
// (goautoneg and the apiserver's clause matching) was a fifth of a single
// GET's CPU in the server. The answer depends on the header alone; at
// most maxNegotiated headers of at most maxNegotiatedAccept bytes are
// kept, so that arbitrary headers cannot grow it.
var negotiated struct {
	sync.Map
	size atomic.Int32
}

const (
	maxNegotiated       = 256
	maxNegotiatedAccept = 512
)

type negotiatedTarget struct {
	target target
	err    error
}

func negotiateAccept(accept string) (target, error) {
	mt, ok := negotiation.NegotiateMediaTypeOptions(accept, jsonOnly, resourceRestrictions{})
	if !ok {
		return target{}, errUnacceptable
	}
	if mt.Convert == nil {
		return target{}, nil
	}
	return target{kind: mt.Convert.Kind, groupVersion: mt.Convert.GroupVersion().String()}, nil
}

// negotiatePlain is for documents that have no other form (discovery
// lists, /version, reviews): any clause without a conversion.
func negotiatePlain(r *http.Request) error {
	if _, ok := negotiation.NegotiateMediaTypeOptions(r.Header.Get("Accept"), jsonOnly, negotiation.DefaultEndpointRestrictions); !ok {
		return errUnacceptable
	}
	return nil
}
