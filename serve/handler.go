package serve

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// HandlerOptions configure NewHandler.
type HandlerOptions struct {
	// Token is the bearer token every request but the health checks must
	// carry; empty disables authentication (tests only).
	Token string
	// Stop, when closed, ends open watches (the server is shutting down).
	Stop <-chan struct{}
}

// server answers the Kubernetes API from an Index.
type server struct {
	x     *Index
	opts  HandlerOptions
	infos *request.RequestInfoFactory
}

// NewHandler returns the read-only API server for an index.
func NewHandler(x *Index, opts HandlerOptions) http.Handler {
	return &server{x: x, opts: opts, infos: &request.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	}}
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if isHealthCheck(path) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write([]byte("ok"))
		return
	}
	if !s.authenticated(r) {
		writeStatus(w, &metav1.Status{Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"})
		return
	}
	switch {
	case path == "/version":
		s.serveVersion(w)
		return
	case path == "/api" || path == "/apis":
		s.serveRoot(w, r, path)
		return
	case strings.HasPrefix(path, "/openapi/"):
		s.serveOpenAPI(w, r, path)
		return
	}
	info, err := s.infos.NewRequestInfo(forRequestInfo(r))
	if err != nil {
		writeError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	if !info.IsResourceRequest {
		s.serveNonResource(w, r, path)
		return
	}
	s.serveResource(w, r, info)
}

// forRequestInfo keeps only the query RequestInfo needs to tell a watch
// from a list: it also parses the selectors (for authorization, which a
// snapshot does not do) and logs through klog when they are malformed,
// while the list handler answers those with a 400 anyway.
func forRequestInfo(r *http.Request) *http.Request {
	u := *r.URL
	u.RawQuery = url.Values{"watch": r.URL.Query()["watch"]}.Encode()
	return &http.Request{Method: r.Method, URL: &u}
}

// isHealthCheck says whether the path is one of the probes that answer
// without credentials, as on a real server.
func isHealthCheck(path string) bool {
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// authenticated checks the bearer token as the server's bearer token
// authenticator reads it: the scheme in any case, then the token.
func (s *server) authenticated(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	parts := strings.SplitN(strings.TrimSpace(r.Header.Get("Authorization")), " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(parts[1]), []byte(s.opts.Token)) == 1
}

// serveNonResource answers the discovery documents of one group or group
// version; every other path is the server's 404.
func (s *server) serveNonResource(w http.ResponseWriter, r *http.Request, path string) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, errNoRoute())
		return
	}
	switch {
	case len(parts) == 2 && parts[0] == "api":
		s.serveGroupVersion(w, r, parts[1])
	case len(parts) == 2 && parts[0] == "apis":
		s.serveGroup(w, r, parts[1])
	case len(parts) == 3 && parts[0] == "apis":
		s.serveGroupVersion(w, r, parts[1]+"/"+parts[2])
	default:
		writeError(w, errNoRoute())
	}
}

// apiRequest is a resource request resolved against discovery.
type apiRequest struct {
	info      *request.RequestInfo
	gvr       schema.GroupVersionResource
	api       metav1.APIResource
	res       *resource
	namespace string
	name      string
	sub       string
}

// serveResource routes a resource request: reviews are answered, writes
// refused, connections refused at once, and reads served from the index.
func (s *server) serveResource(w http.ResponseWriter, r *http.Request, info *request.RequestInfo) {
	gv := schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	if review, ok := reviews[gv.WithResource(info.Resource)]; ok && len(info.Parts) == 1 {
		s.serveReview(w, r, review, gv)
		return
	}
	if !s.x.hasGroupVersion(gv.String()) {
		writeError(w, errNoRoute())
		return
	}
	req := &apiRequest{info: info, gvr: gv.WithResource(info.Resource), namespace: info.Namespace}
	// The path, not RequestInfo.Name, names the object: RequestInfo also
	// takes a name from a metadata.name field selector, for authorization.
	if len(info.Parts) > 1 {
		req.name = info.Parts[1]
	}
	if len(info.Parts) > 2 && info.Verb != "proxy" {
		req.sub = info.Parts[2]
	}
	api, res, ok := s.x.lookup(info.APIGroup, info.APIVersion, info.Resource, "")
	// Only proxying takes a path after the subresource.
	if !ok || len(info.Parts) > 3 && info.Verb != "proxy" && req.sub != "proxy" {
		writeError(w, errNoRoute())
		return
	}
	req.api, req.res = api, res
	if info.Resource == "namespaces" {
		req.namespace = ""
	}
	// Paths the server has no route for: a namespaced object without its
	// namespace, a cluster-scoped resource under a namespace.
	if api.Namespaced && req.namespace == "" && req.name != "" || !api.Namespaced && req.namespace != "" {
		writeError(w, errNoRoute())
		return
	}
	if info.Verb == "proxy" {
		writeError(w, errNotServed("proxying", res.gr, req.name))
		return
	}
	if req.sub != "" {
		s.serveSubresource(w, r, req)
		return
	}
	switch info.Verb {
	case "get":
		s.get(w, r, req)
	case "list":
		s.list(w, r, req)
	case "watch":
		s.watch(w, r, req)
	default:
		refuseWrite(w, info.Verb, res.gr, req.name)
	}
}

// serveSubresource serves pods/log and the status subresources, and
// refuses the others with a clear message.
func (s *server) serveSubresource(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	if _, _, ok := s.x.lookup(req.gvr.Group, req.gvr.Version, req.gvr.Resource, req.sub); !ok {
		writeError(w, errNoRoute())
		return
	}
	switch req.sub {
	case "exec", "attach", "portforward", "proxy":
		writeError(w, errNotServed(req.sub, req.res.gr, req.name))
		return
	}
	if req.info.Verb != "get" {
		refuseWrite(w, req.info.Verb, req.res.gr, req.name)
		return
	}
	switch {
	case req.sub == "log" && req.gvr.GroupResource() == podsResource:
		s.serveLog(w, r, req)
	case req.sub == "status":
		s.get(w, r, req)
	default:
		writeError(w, errNotServed("the "+req.sub+" subresource", req.res.gr, req.name))
	}
}

// refuseWrite answers every write with 405, naming the methods allowed.
func refuseWrite(w http.ResponseWriter, verb string, gr schema.GroupResource, name string) {
	w.Header().Set("Allow", "GET, HEAD")
	writeError(w, errReadOnly(verb, gr, name))
}
