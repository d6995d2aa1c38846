package serve

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/bundlectl/bundlectl/serve/index"
)

// A snapshot never changes, so a watch is its initial state followed by
// silence: the current objects as ADDED events when the client asked for
// them (no resourceVersion, "0", or sendInitialEvents), the bookmark that
// ends them when it allows bookmarks, then an open connection until the
// client leaves or its timeout ends. Closing early would make informers
// and k9s relist in a loop.

// minRequestTimeout is the server's default --min-request-timeout: a watch
// without timeoutSeconds lasts between one and two times it.
const minRequestTimeout = 30 * time.Minute

// initialEventsEnd is the annotation of the bookmark that ends the initial
// events of a watch list (k8s.io/apiserver/pkg/storage).
const initialEventsEnd = "k8s.io/initial-events-end"

func (s *server) watch(w http.ResponseWriter, r *http.Request, req *apiRequest) error {
	opts, err := listOptions(r, true)
	if err != nil {
		return err
	}
	t, err := negotiateResource(r)
	if err != nil {
		return err
	}
	if req.name != "" {
		// A watch of one object is a watch of the list with its name selected.
		if opts.FieldSelector != nil && !opts.FieldSelector.Empty() {
			if n, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); !ok || n != req.name {
				return apierrors.NewBadRequest("fieldSelector metadata.name doesn't match requested name")
			}
		} else {
			opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", req.name)
		}
	}
	sel, err := s.selection(req, opts)
	if err != nil {
		return err
	}
	var include metav1.IncludeObjectPolicy
	if t.kind == "Table" {
		policy, err := includeObject(r)
		if err != nil {
			return err
		}
		include = rowPolicy(r, policy)
	}
	since, err := parseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	s.warnNotCollected(w, req)
	flusher, ok := w.(http.Flusher)
	if !ok {
		return apierrors.NewInternalError(errNoFlusher)
	}
	timeout := watchTimeout(opts.TimeoutSeconds)
	timer := time.NewTimer(timeout)
	defer timer.Stop()

	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	if timeout < 0 {
		return nil
	}

	ev := &eventWriter{s: s, req: req, t: t, include: include}
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents ||
		opts.SendInitialEvents == nil && (opts.ResourceVersion == "" || opts.ResourceVersion == "0")
	for _, o := range sel.Filter(req.res.NamespaceRange(req.namespace)) {
		if !initial && !newerThan(o, since) {
			continue
		}
		if ev.write(w, "ADDED", o) != nil {
			return nil
		}
	}
	if initial && opts.AllowWatchBookmarks {
		if ev.bookmark(w) != nil {
			return nil
		}
	}
	flusher.Flush()
	select {
	case <-r.Context().Done():
	case <-timer.C:
	case <-s.opts.Stop:
	}
	return nil
}

// watchTimeout is how long a watch lasts, as kube-apiserver's
// handleWatch reckons it: timeoutSeconds in seconds, multiplied as an
// int64 (so that 9223372037 and more wrap around, there as here), and
// between one and two minRequestTimeouts when that is 0 or unset. A
// negative one has ended before the watch starts: the server answers 200
// and ends the stream at once (seen on v1.37.1: empty, or by a race a
// first event or a "context deadline exceeded" ERROR), and so does this,
// with no event.
func watchTimeout(seconds *int64) time.Duration {
	var timeout time.Duration
	if seconds != nil {
		timeout = time.Duration(*seconds) * time.Second
	}
	if timeout == 0 {
		timeout = time.Duration(float64(minRequestTimeout) * (rand.Float64() + 1))
	}
	return timeout
}

var errNoFlusher = errors.New("unable to start watch - can't get http.Flusher")

// newerThan says whether an object changed after the resourceVersion a
// watch starts from; objects without a numeric resourceVersion never did.
func newerThan(o *index.Object, since uint64) bool {
	rv, err := strconv.ParseUint(o.ResourceVersion, 10, 64)
	return err == nil && rv > since
}

// eventWriter renders watch events in the negotiated form. Table events
// carry the column definitions in the first event only, as the server's
// watch encoder does.
type eventWriter struct {
	s       *server
	req     *apiRequest
	t       target
	include metav1.IncludeObjectPolicy
	sent    bool
}

func (e *eventWriter) write(w http.ResponseWriter, typ string, o *index.Object) error {
	b := &body{}
	b.addString(`{"type":"` + typ + `","object":`)
	switch e.t.kind {
	case "Table":
		meta, _ := json.Marshal(metav1.ListMeta{ResourceVersion: o.ResourceVersion})
		e.s.appendTable(b, e.req.res, e.t.groupVersion, meta, []*index.Object{o}, e.include, false, e.sent)
	case "PartialObjectMetadata":
		appendPartial(b, o, e.t.groupVersion)
	default:
		appendTyped(b, o)
	}
	b.addString("}\n")
	e.sent = true
	return b.writeTo(w)
}

// bookmark ends the initial events: an empty object of the kind holding
// only the snapshot's resourceVersion and the annotation.
func (e *eventWriter) bookmark(w http.ResponseWriter) error {
	meta, _ := json.Marshal(metav1.ObjectMeta{ResourceVersion: e.s.x.ResourceVersion, Annotations: map[string]string{initialEventsEnd: "true"}})
	b := &body{}
	b.addString(`{"type":"BOOKMARK","object":`)
	switch e.t.kind {
	case "Table":
		rv, _ := json.Marshal(metav1.ListMeta{ResourceVersion: e.s.x.ResourceVersion})
		b.addString(`{"kind":"Table","apiVersion":` + quote(e.t.groupVersion) + `,"metadata":`)
		b.add(rv)
		b.addString(`,"columnDefinitions":null,"rows":[]}`)
	case "PartialObjectMetadata":
		b.addString(`{"kind":"PartialObjectMetadata","apiVersion":` + quote(e.t.groupVersion) + `,"metadata":`)
		b.add(meta)
		b.addString("}")
	default:
		b.addString(`{"kind":` + quote(e.req.api.Kind) + `,"apiVersion":` + quote(e.req.gvr.GroupVersion().String()) + `,"metadata":`)
		b.add(meta)
		b.addString("}")
	}
	b.addString("}\n")
	return b.writeTo(w)
}
