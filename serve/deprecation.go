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
		if h, err := utilnet.NewWarningHeader(299, "-", text); err == nil {
			w.Header().Add("Warning", h)
		}
	}
}
