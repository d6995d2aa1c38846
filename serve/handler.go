package serve

import (
	"io"
	"net/http"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/bundlectl/bundlectl/serve/index"
)

// HandlerOptions configure NewHandler.
type HandlerOptions struct {
	// Token is the bearer token every request but the health checks must
	// carry; empty disables authentication (tests only).
	Token string
	// Stop, when closed, ends open watches (the server is shutting down).
	Stop <-chan struct{}
	// AccessLog, when set, gets one line per request (see withAccessLog),
	// each starting with LogPrefix.
	AccessLog io.Writer
	LogPrefix string
}

// server answers the Kubernetes API from an Index.
type server struct {
	x     *index.Index
	opts  HandlerOptions
	infos *request.RequestInfoFactory
	// objects are the routes of a GET of one object (withObjectGets).
	objects map[objectKey]*objectRoute
	// gzipped keeps the compressed bodies of whole lists (see gzipCache).
	gzipped gzipCache
}

// NewHandler returns the read-only API server for an index: the chain of
// filters (filters.go) in front of the router.
func NewHandler(x *index.Index, opts HandlerOptions) http.Handler {
	s := newAPIServer(x, opts)
	var h http.Handler = http.HandlerFunc(s.route)
	h = withRequestInfo(h, s.infos)
	h = s.withObjectGets(h)
	h = withBearerToken(h, opts.Token)
	h = withHealthChecks(h)
	return withAccessLog(h, opts.AccessLog, opts.LogPrefix)
}

func newAPIServer(x *index.Index, opts HandlerOptions) *server {
	return &server{x: x, opts: opts, objects: objectRoutes(x), infos: &request.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	}}
}

// route answers a request the filters let through. Every handler returns
// the error it answers with, and writeError, the one place that writes
// errors, turns it into the response.
func (s *server) route(w http.ResponseWriter, r *http.Request) {
	if err := s.answer(w, r); err != nil {
		writeError(w, err)
	}
}

func (s *server) answer(w http.ResponseWriter, r *http.Request) error {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if !isRead(r) && (path == "/version" || path == "/api" || path == "/apis" || strings.HasPrefix(path, "/openapi/")) {
		return errReadOnlyPath()
	}
	switch {
	case path == "/version":
		return s.serveVersion(w)
	case path == "/api" || path == "/apis":
		return s.serveRoot(w, r, path)
	case strings.HasPrefix(path, "/openapi/"):
		return s.serveOpenAPI(w, r, path)
	}
	info, _ := request.RequestInfoFrom(r.Context())
	if !info.IsResourceRequest {
		return s.serveNonResource(w, r, path)
	}
	return s.serveResource(w, r, info)
}

// serveNonResource answers the discovery documents of one group or group
// version; every other path is the server's 404.
func (s *server) serveNonResource(w http.ResponseWriter, r *http.Request, path string) error {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if parts[0] != "api" && parts[0] != "apis" || parts[0] == "apis" && len(parts) > 1 && !s.x.HasGroup(parts[1]) {
		return errNotFoundPage
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return errNoRoute()
	}
	switch {
	case len(parts) == 2 && parts[0] == "api":
		return s.serveGroupVersion(w, r, parts[1])
	case len(parts) == 2 && parts[0] == "apis":
		return s.serveGroup(w, r, parts[1])
	case len(parts) == 3 && parts[0] == "apis":
		return s.serveGroupVersion(w, r, parts[1]+"/"+parts[2])
	default:
		return errNoRoute()
	}
}

// apiRequest is a resource request resolved against discovery.
type apiRequest struct {
	info      *request.RequestInfo
	gvr       schema.GroupVersionResource
	api       metav1.APIResource
	res       *index.Resource
	namespace string
	name      string
	sub       string
}

// serveResource routes a resource request: reviews are answered, writes
// refused, connections refused at once, and reads served from the index.
func (s *server) serveResource(w http.ResponseWriter, r *http.Request, info *request.RequestInfo) error {
	req, err := s.resolve(w, r, info)
	if err != nil || req == nil {
		return err
	}
	if req.sub != "" {
		return s.serveSubresource(w, r, req)
	}
	switch info.Verb {
	case "get":
		return s.get(w, r, req)
	case "list":
		return s.list(w, r, req)
	case "watch":
		if !isRead(r) {
			// A path under /watch/ takes its verb from the path, not the
			// method; the server routes only GET there.
			return errReadOnlyPath()
		}
		return s.watch(w, r, req)
	default:
		return refuseWrite(info.Verb, req.res.GR, req.name)
	}
}

// resolve finds what a resource request names in discovery and the
// index, and answers what needs no object: reviews (then it returns no
// request), paths without a route, proxying and methods the path does not
// take; serveResource then dispatches what it resolved. (Its frame, large
// with the discovery entries it copies, was once kept apart to spare the
// stack's growth while a handler writes; merged into serveResource, a
// GET through the router measured no different, 1% faster within the
// noise: BENCHMARKS.md.)
func (s *server) resolve(w http.ResponseWriter, r *http.Request, info *request.RequestInfo) (*apiRequest, error) {
	gv := schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	if review, ok := reviews[gv.WithResource(info.Resource)]; ok && len(info.Parts) == 1 {
		return nil, s.serveReview(w, r, review, gv)
	}
	if !s.x.HasGroupVersion(gv.String()) {
		if gv.Group != "" && !s.x.HasGroup(gv.Group) {
			return nil, errNotFoundPage
		}
		return nil, errNoRoute()
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
	api, res, ok := s.x.Lookup(info.APIGroup, info.APIVersion, info.Resource, "")
	// Only proxying takes a path after the subresource.
	if !ok || len(info.Parts) > 3 && info.Verb != "proxy" && req.sub != "proxy" {
		return nil, errNoRoute()
	}
	req.api, req.res = api, res
	s.warnDeprecated(w, gv, info.Resource, req.sub)
	if info.Resource == "namespaces" {
		req.namespace = ""
	}
	// Paths the server has no route for: a namespaced object without its
	// namespace, a cluster-scoped resource under a namespace.
	if api.Namespaced && req.namespace == "" && req.name != "" || !api.Namespaced && req.namespace != "" {
		return nil, errNoRoute()
	}
	if info.Verb == "proxy" {
		return nil, errNotServed("proxying", res.GR, req.name)
	}
	if req.sub != "" {
		return req, nil
	}
	switch routeOf(info.Verb, api, req.name == "") {
	case noRoute:
		return nil, errNoRoute()
	case noMethod:
		return nil, errMethodNotAllowed()
	}
	return req, nil
}

// serveSubresource serves pods/log and the status subresources, and
// refuses the others with a clear message.
func (s *server) serveSubresource(w http.ResponseWriter, r *http.Request, req *apiRequest) error {
	subAPI, _, ok := s.x.Lookup(req.gvr.Group, req.gvr.Version, req.gvr.Resource, req.sub)
	if !ok {
		return errNoRoute()
	}
	switch req.sub {
	case "exec", "attach", "portforward", "proxy":
		return errNotServed(req.sub, req.res.GR, req.name)
	}
	switch routeOf(req.info.Verb, subAPI, false) {
	case noRoute:
		return errNoRoute()
	case noMethod:
		return errMethodNotAllowed()
	}
	if req.info.Verb != "get" {
		return refuseWrite(req.info.Verb, req.res.GR, req.name)
	}
	switch {
	case req.sub == "log" && req.gvr.GroupResource() == podsResource:
		return s.serveLog(w, r, req)
	case req.sub == "status":
		return s.get(w, r, req)
	default:
		return errNotServed("the "+req.sub+" subresource", req.res.GR, req.name)
	}
}

// refuseWrite answers a write the live server would have taken with 405,
// naming the methods allowed.
func refuseWrite(verb string, gr schema.GroupResource, name string) error {
	return withAllow(errReadOnly(verb, gr, name), "GET, HEAD")
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
