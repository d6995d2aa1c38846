package serve

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"slices"
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
	if !isRead(r) && (path == "/version" || path == "/api" || path == "/apis" || strings.HasPrefix(path, "/openapi/")) {
		refuseMethod(w)
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

var healthChecks = []string{"/healthz", "/livez", "/readyz"}

// isHealthCheck says whether the path is one of the probes that answer
// without credentials, as on a real server.
func isHealthCheck(path string) bool {
	for _, p := range healthChecks {
		if rest, ok := strings.CutPrefix(path, p); ok && (rest == "" || rest[0] == '/') {
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
	if parts[0] != "api" && parts[0] != "apis" || parts[0] == "apis" && len(parts) > 1 && !s.x.hasGroup(parts[1]) {
		notFoundPage(w)
		return
	}
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
		if gv.Group != "" && !s.x.hasGroup(gv.Group) {
			notFoundPage(w)
			return
		}
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
	s.warnDeprecated(w, gv, info.Resource, req.sub)
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
	switch routeOf(info.Verb, api, req.name == "") {
	case noRoute:
		writeError(w, errNoRoute())
		return
	case noMethod:
		writeError(w, errMethodNotAllowed())
		return
	}
	switch info.Verb {
	case "get":
		s.get(w, r, req)
	case "list":
		s.list(w, r, req)
	case "watch":
		if !isRead(r) {
			// A path under /watch/ takes its verb from the path, not the
			// method; the server routes only GET there.
			refuseMethod(w)
			return
		}
		s.watch(w, r, req)
	default:
		refuseWrite(w, info.Verb, res.gr, req.name)
	}
}

// serveSubresource serves pods/log and the status subresources, and
// refuses the others with a clear message.
func (s *server) serveSubresource(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	subAPI, _, ok := s.x.lookup(req.gvr.Group, req.gvr.Version, req.gvr.Resource, req.sub)
	if !ok {
		writeError(w, errNoRoute())
		return
	}
	switch req.sub {
	case "exec", "attach", "portforward", "proxy":
		writeError(w, errNotServed(req.sub, req.res.gr, req.name))
		return
	}
	switch routeOf(req.info.Verb, subAPI, false) {
	case noRoute:
		writeError(w, errNoRoute())
		return
	case noMethod:
		writeError(w, errMethodNotAllowed())
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

// refuseWrite answers a write the live server would have taken with 405,
// naming the methods allowed.
func refuseWrite(w http.ResponseWriter, verb string, gr schema.GroupResource, name string) {
	w.Header().Set("Allow", "GET, HEAD")
	writeError(w, errReadOnly(verb, gr, name))
}

// route is what kube-apiserver's router does with a request.
type route int

const (
	routed   route = iota
	noRoute        // no route for the path at all: 404
	noMethod       // the path has routes, not for this method: 405
)

var (
	objectVerbs     = []string{"get", "update", "patch", "delete", "watch"}
	collectionVerbs = []string{"list", "watch", "create", "deletecollection"}
)

// routeOf tells how the server routes a verb on a resource's object path
// or collection path: the installer registers a route for each verb that
// discovery lists and that fits the path, and a path with no route at all
// does not exist (create-only reviews have no object path).
func routeOf(verb string, api metav1.APIResource, collection bool) route {
	fits := objectVerbs
	if collection {
		fits = collectionVerbs
	}
	exists := false
	for _, v := range fits {
		if slices.Contains(api.Verbs, v) {
			exists = true
		}
	}
	switch {
	case !exists:
		return noRoute
	case !slices.Contains(fits, verb) || !slices.Contains(api.Verbs, verb):
		return noMethod
	}
	return routed
}

// notFoundPage is the server's answer for a path outside every API (an
// unknown group included): its HTTP mux's plain-text 404.
func notFoundPage(w http.ResponseWriter) {
	http.NotFound(w, nil)
}
