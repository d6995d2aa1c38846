package serve

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/bundlectl/bundlectl/serve/index"
)

// A GET of one object by its path is what kubectl sends most (`kubectl
// get pod x`, and every describe, edit and wait starts with it), and
// bench-peers' table-get-s measures it against a server that only
// replays bytes. Through the request info and the router it took a
// dozen map lookups, keys built as strings, the discovery entries copied
// and the request copied with a new context, each touching memory the
// caches had lost between two GETs. What all of
// that comes to for a resource at one group version does not depend on
// the request, so it is worked out once, when the handler is made
// (objectRoutes), and withObjectGets answers such a GET from it.

// objectKey names a resource at a group version, as a request's path
// spells it: map lookups with it build no string.
type objectKey struct{ group, version, resource string }

// objectRoute is what the router makes of a GET of one object of a
// resource at a group version.
type objectRoute struct {
	res *index.Resource
	// kind is the resource's kind, for the 406 of a list type asked for.
	kind       string
	namespaced bool
	// warnings are the Warning header values of a deprecated API
	// (warnDeprecated's, formatted once).
	warnings []string
}

// objectRoutes lists the resources the router serves a GET of one
// object of: those discovery lists with the get verb, but reviews.
func objectRoutes(x *index.Index) map[objectKey]*objectRoute {
	routes := map[objectKey]*objectRoute{}
	for gvs, list := range x.Discovery.Resources {
		gv, err := schema.ParseGroupVersion(gvs)
		if err != nil {
			continue
		}
		for _, a := range list {
			if strings.Contains(a.Name, "/") {
				continue
			}
			if _, ok := reviews[gv.WithResource(a.Name)]; ok {
				continue
			}
			api, res, ok := x.Lookup(gv.Group, gv.Version, a.Name, "")
			if !ok || routeOf("get", api, false) != routed {
				continue
			}
			route := &objectRoute{res: res, kind: api.Kind, namespaced: api.Namespaced}
			for _, text := range x.Deprecations(gv, a.Name) {
				if h, err := utilnet.NewWarningHeader(299, "-", text); err == nil {
					route.warnings = append(route.warnings, h)
				}
			}
			routes[objectKey{gv.Group, gv.Version, a.Name}] = route
		}
	}
	return routes
}

// withObjectGets answers a GET of one object that the index holds, when
// the request is no more than that (no query), from the object routes;
// every other request, a missing object's included, goes on to next,
// whose answer is the same for these. It stands after the bearer token
// and before the request info, which it makes no use of.
func (s *server) withObjectGets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.getObject(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// getObject answers r if it is a GET of one object it can answer, and
// says whether it did; it writes nothing when it does not.
func (s *server) getObject(w http.ResponseWriter, r *http.Request) bool {
	route, o, t, ok := s.findObject(w, r)
	if !ok {
		return false
	}
	if err := s.writeObject(w, r, route.res, route.kind, t, o); err != nil {
		writeError(w, err)
	}
	return true
}

// findObject finds what r is a GET of, if it is a GET of one object the
// index holds, with the form it asks for, and then adds the Warning
// headers of a deprecated API to w. It is apart from getObject so
// that its frame is off the stack when the answer is written: a
// request's goroutine starts with a small stack (2 KB, or the average the
// last collection saw, and serve rarely collects), which the server's own
// frames above the handler fill in part, and each time it grows it is
// copied, which in a binary the size of bundlectl's costs a GET more than
// the handler's own work (the runtime looks up every frame's layout in
// tables the caches have lost since the last GET). Merged into getObject,
// a single Table GET took 1.7% more time (BENCHMARKS.md, the single GET's
// stack workarounds, each measured so).
func (s *server) findObject(w http.ResponseWriter, r *http.Request) (*objectRoute, *index.Object, target, bool) {
	if r.Method != http.MethodGet || r.URL.RawQuery != "" {
		return nil, nil, target{}, false
	}
	key, namespace, name, ok := parseObjectPath(r.URL.Path)
	if !ok {
		return nil, nil, target{}, false
	}
	route := s.objects[key]
	// A namespaced object is named under its namespace, a cluster-scoped
	// one outside any; the router answers the other paths with a 404.
	if route == nil || route.namespaced != (namespace != "") {
		return nil, nil, target{}, false
	}
	t, err := negotiateResource(r)
	if err != nil {
		return nil, nil, target{}, false
	}
	o := route.res.Find(namespace, name)
	if o == nil {
		return nil, nil, target{}, false
	}
	if route.warnings != nil {
		h := w.Header()
		for _, v := range route.warnings {
			h.Add("Warning", v)
		}
	}
	return route, o, t, true
}

// parseObjectPath reads the path of one object as the request info
// does, for the paths of a GET of one object: /api/{version} or
// /apis/{group}/{version}, then {resource}/{name} or
// namespaces/{namespace}/{resource}/{name}. Any other path is not one
// (ok is false), nor is one with an empty segment: the request info
// reads those as well, and the router answers them.
func parseObjectPath(path string) (key objectKey, namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(path, "/api/")
	if !ok {
		if rest, ok = strings.CutPrefix(path, "/apis/"); !ok {
			return objectKey{}, "", "", false
		}
		if key.group, rest, ok = strings.Cut(rest, "/"); !ok || key.group == "" {
			return objectKey{}, "", "", false
		}
	}
	var parts [5]string
	n := 0
	for {
		part, tail, more := strings.Cut(rest, "/")
		if part == "" || n == len(parts) {
			return objectKey{}, "", "", false
		}
		parts[n] = part
		n++
		if !more {
			break
		}
		rest = tail
	}
	key.version = parts[0]
	switch {
	case n == 3 && parts[1] != "watch" && parts[1] != "proxy":
		// A cluster-scoped object, or a namespace (namespaces/{name});
		// the request info reads watch/{resource} and proxy/{resource}
		// as verbs.
		key.resource, name = parts[1], parts[2]
	case n == 5 && parts[1] == "namespaces" && parts[3] != "status" && parts[3] != "finalize":
		// The request info reads namespaces/{namespace}/status and
		// finalize as a namespace's subresources.
		namespace, key.resource, name = parts[2], parts[3], parts[4]
	default:
		return objectKey{}, "", "", false
	}
	return key, namespace, name, true
}
