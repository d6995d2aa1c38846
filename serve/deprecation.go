package serve

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// warnDeprecated adds the Warning headers of a request to a deprecated API.
func (s *server) warnDeprecated(w http.ResponseWriter, gv schema.GroupVersion, resource, sub string) {
	if sub != "" {
		resource += "/" + sub
	}
	for _, text := range s.x.Deprecations(gv, resource) {
		addWarning(w, text)
	}
}

// warnNotCollected tells a client that what it asks for is empty because
// the bundle did not collect it, not because the cluster had none: a 200
// with an empty list is what clients need, and the warning is what a
// person reads (kubectl prints "Warning: ...").
func (s *server) warnNotCollected(w http.ResponseWriter, req *apiRequest) {
	if text := s.x.NotCollected(req.res, req.namespace); text != "" {
		addWarning(w, text)
	}
}

// addWarning adds a Warning header as the server's warning recorder
// writes it (299, agent "-"), which clients print ("Warning: text").
func addWarning(w http.ResponseWriter, text string) {
	if h, err := utilnet.NewWarningHeader(299, "-", text); err == nil {
		w.Header().Add("Warning", h)
	}
}
