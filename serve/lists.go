package serve

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bundlectl/bundlectl/serve/index"
)

// get serves one object, as itself, as a Table or as its metadata.
func (s *server) get(w http.ResponseWriter, r *http.Request, req *apiRequest) error {
	t, err := negotiateResource(r)
	if err != nil {
		return err
	}
	if _, err := parseResourceVersion(queryValue(r, "resourceVersion")); err != nil {
		return err
	}
	o := req.res.Find(req.namespace, req.name)
	if o == nil {
		s.warnNotCollected(w, req)
		return apierrors.NewNotFound(req.res.GR, req.name)
	}
	return s.writeObject(w, r, req.res, req.api.Kind, t, o)
}

// writeObject answers a GET of an object of res (of the given kind) in
// the form t asked for.
func (s *server) writeObject(w http.ResponseWriter, r *http.Request, res *index.Resource, kind string, t target, o *index.Object) error {
	b := pooledBody()
	defer b.release()
	if err := s.appendObject(b, r, res, kind, t, o); err != nil {
		return err
	}
	respond(w, r, http.StatusOK, jsonType, b, nil, "")
	return nil
}

// appendObject renders an object in the form t asked for. It is apart
// from writeObject, whose frame stays on the stack while the answer is
// written, for the reason findObject is: merged, a single Table GET took
// 1.6% more time.
func (s *server) appendObject(b *body, r *http.Request, res *index.Resource, kind string, t target, o *index.Object) error {
	switch t.kind {
	case "":
		appendTyped(b, o)
		b.add(newline)
	case "PartialObjectMetadata":
		appendPartial(b, o, t.groupVersion)
		b.add(newline)
	case "Table":
		policy, err := includeObject(r)
		if err != nil {
			return err
		}
		s.appendTable(b, res, t.groupVersion, objectListMeta(b, o), []*index.Object{o}, rowPolicy(r, policy), false, false)
		b.add(newline)
	default:
		return errNotAcceptable(fmt.Sprintf("you requested %s, but the requested object is not a list (*v1.%s)", t.kind, kind))
	}
	return nil
}

// list serves a list, selected and paginated, as a typed list, a Table or
// a PartialObjectMetadataList.
func (s *server) list(w http.ResponseWriter, r *http.Request, req *apiRequest) error {
	opts, err := listOptions(r, false)
	if err != nil {
		return err
	}
	t, err := negotiateResource(r)
	if err != nil {
		return err
	}
	sel, err := s.selection(req, opts)
	if err != nil {
		return err
	}
	s.warnNotCollected(w, req)
	all := req.res.NamespaceRange(req.namespace)
	objs := sel.Filter(all)
	page, pm, err := s.paginate(objs, opts, req, sel.Empty())
	if err != nil {
		return err
	}
	meta := s.listMeta(pm)
	// A whole, unfiltered list is cached compressed; anything else is
	// compressed per request.
	var cache *gzipCache
	cacheKey := ""
	if sel.Empty() && len(page) == len(all) {
		cache = &s.gzipped
		cacheKey = strings.Join([]string{req.res.GR.String(), t.kind, t.groupVersion, req.gvr.Version, req.namespace, r.URL.Query().Get("includeObject"), strconv.FormatBool(isKubectl(r.UserAgent()))}, "|")
		// Only a request that succeeded fills the cache, so a hit is
		// answered before the body is put together again.
		if z, ok := cache.lookup(cacheKey); ok && acceptsGzip(r) && !isPretty(r) {
			writeGzipped(w, http.StatusOK, jsonType, z)
			return nil
		}
	}
	b := &body{}
	switch t.kind {
	case "":
		if req.res.Custom {
			appendUnstructuredList(b, req.api.Kind+"List", req.gvr.GroupVersion().String(), s.unstructuredListMeta(pm), page)
			break
		}
		if len(page) == 0 && req.res.OmitsEmptyItems(req.gvr.Version) {
			appendItemlessList(b, req.api.Kind+"List", req.gvr.GroupVersion().String(), meta)
			break
		}
		appendList(b, req.api.Kind+"List", req.gvr.GroupVersion().String(), meta, page, func(o *index.Object) { b.add(o.Item) })
	case "PartialObjectMetadataList":
		appendList(b, "PartialObjectMetadataList", t.groupVersion, meta, page, func(o *index.Object) { appendPartial(b, o, t.groupVersion) })
	case "Table":
		policy, err := includeObject(r)
		if err != nil {
			return err
		}
		s.appendTable(b, req.res, t.groupVersion, meta, req.res.RowOrder(page), rowPolicy(r, policy), true, false)
		b.add(newline)
	default:
		return errNotAcceptable(fmt.Sprintf("you requested %s, but the requested object is a list (*v1.%sList)", t.kind, req.api.Kind))
	}
	respond(w, r, http.StatusOK, jsonType, b, cache, cacheKey)
	return nil
}

// listOptions decodes and validates the query as the server does, with the
// same codec, so that malformed selectors get the same 400s. watch is set
// for watches asked for by path (/api/v1/watch/...).
func listOptions(r *http.Request, watch bool) (*metainternalversion.ListOptions, error) {
	opts := &metainternalversion.ListOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	opts.Watch = opts.Watch || watch
	metainternalversion.SetListOptionsDefaults(opts, true)
	if errs := validation.ValidateListOptions(opts, true); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	return opts, nil
}

func (s *server) selection(req *apiRequest, opts *metainternalversion.ListOptions) (*index.Selection, error) {
	sel, msg := req.res.Select(req.gvr.Version, opts.LabelSelector, opts.FieldSelector)
	if msg != "" {
		return nil, apierrors.NewBadRequest(msg)
	}
	return sel, nil
}

// pageMeta is what a page of a list says beyond the snapshot's
// resourceVersion: where the next page starts, and how many objects are
// left when the server can tell.
type pageMeta struct {
	cont      string
	remaining *int64
}

// objectListMeta is the ListMeta of the Table a single GET returns, which
// carries the object's resourceVersion: what json.Marshal of a
// metav1.ListMeta writes, without its reflection on every GET, and
// written in the body's scratch, without an allocation of its own.
func objectListMeta(b *body, o *index.Object) []byte {
	if o.ResourceVersion == "" {
		return emptyObject
	}
	start := len(b.scratch)
	b.scratch = append(b.scratch, `{"resourceVersion":`...)
	b.scratch = appendQuote(b.scratch, o.ResourceVersion)
	b.scratch = append(b.scratch, '}')
	return b.scratch[start:]
}

// listMeta is the metadata of a list response, rendered as the server's
// ListMeta JSON.
func (s *server) listMeta(p pageMeta) []byte {
	meta, _ := json.Marshal(metav1.ListMeta{ResourceVersion: s.x.ResourceVersion, Continue: p.cont, RemainingItemCount: p.remaining})
	return meta
}

// unstructuredListMeta is the metadata of a custom resource list as the
// server writes it: an unstructured map, keys sorted, continue always set.
func (s *server) unstructuredListMeta(p pageMeta) []byte {
	m := map[string]any{"resourceVersion": s.x.ResourceVersion, "continue": p.cont}
	if p.remaining != nil {
		m["remainingItemCount"] = *p.remaining
	}
	meta, _ := json.Marshal(m)
	return meta
}

// parseResourceVersion is the storage's APIObjectVersioner: "" and "0"
// are 0, anything else a decimal uint64, or the storage's invalid-value
// error, which is no API status: a get or a watch answers it as a 500
// with its text, a list wraps it in a BadRequest.
func parseResourceVersion(rv string) (uint64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())}.ToAggregate()
	}
	return n, nil
}

// paginate applies limit and continue as etcd does: a page ends at limit
// objects, and the continue token names the key after the last one, so a
// chunked kubectl get sees every object once, in order.
func (s *server) paginate(objs []*index.Object, opts *metainternalversion.ListOptions, req *apiRequest, exact bool) ([]*index.Object, pageMeta, error) {
	prefix := ""
	if req.res.Namespaced && req.namespace != "" {
		prefix = req.namespace + "/"
	}
	if opts.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return nil, pageMeta{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		start, err := decodeContinue(opts.Continue)
		if err != nil {
			return nil, pageMeta{}, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		from := prefix + start
		objs = objs[sort.Search(len(objs), func(i int) bool { return objs[i].Key >= from }):]
	} else if _, err := parseResourceVersion(opts.ResourceVersion); err != nil {
		return nil, pageMeta{}, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	if opts.Limit <= 0 || int64(len(objs)) <= opts.Limit {
		return objs, pageMeta{}, nil
	}
	page := objs[:opts.Limit]
	last := strings.TrimPrefix(page[len(page)-1].Key, prefix)
	rv, _ := strconv.ParseInt(s.x.ResourceVersion, 10, 64)
	cont := encodeContinue(last+"\x00", max(rv, 1))
	var remaining *int64
	if exact {
		n := int64(len(objs)) - opts.Limit
		remaining = &n
	}
	return page, pageMeta{cont: cont, remaining: remaining}, nil
}

// continueToken is the server's (k8s.io/apiserver/pkg/storage/continue.go).
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

var errInvalidContinue = errors.New("continue key is not valid")

func encodeContinue(start string, rv int64) string {
	data, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rv, StartKey: start})
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeContinue checks a token as the server does and returns its start
// key, relative to the listed namespace.
func decodeContinue(token string) (string, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	if c.APIVersion != "meta.k8s.io/v1" {
		return "", fmt.Errorf("%w: server does not recognize this encoded version %v", errInvalidContinue, c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", fmt.Errorf("%w: incorrect encoded start resourceVersion (version meta.k8s.io/v1)", errInvalidContinue)
	}
	if c.StartKey == "" {
		return "", fmt.Errorf("%w: encoded start key empty (version meta.k8s.io/v1)", errInvalidContinue)
	}
	if cleaned := path.Clean("/" + strings.TrimPrefix(c.StartKey, "/")); cleaned != "/"+strings.TrimPrefix(c.StartKey, "/") {
		return "", fmt.Errorf("%w: %v", errInvalidContinue, c.StartKey)
	}
	return strings.TrimPrefix(c.StartKey, "/"), nil
}

// appendList renders a list envelope the way the server's encoder writes
// it: kind, apiVersion, metadata, items.
func appendList(b *body, kind, apiVersion string, meta []byte, objs []*index.Object, item func(*index.Object)) {
	appendListHead(b, kind, apiVersion, meta)
	b.addString(`,"items":[`)
	b.grow(4*len(objs) + 1)
	for i, o := range objs {
		if i > 0 {
			b.add(comma)
		}
		item(o)
	}
	b.addString("]}\n")
}

// appendItemlessList renders an empty list of a type whose items are
// omitempty, as the server's encoder writes it: without items.
func appendItemlessList(b *body, kind, apiVersion string, meta []byte) {
	appendListHead(b, kind, apiVersion, meta)
	b.addString("}\n")
}

// appendListHead opens a list envelope: kind, apiVersion, metadata.
func appendListHead(b *body, kind, apiVersion string, meta []byte) {
	b.addString(`{"kind":` + quote(kind) + `,"apiVersion":` + quote(apiVersion) + `,"metadata":`)
	b.add(meta)
}

// appendUnstructuredList renders a custom resource list as the server
// encodes an unstructured list: keys sorted (apiVersion, items, kind,
// metadata), items as stored, each with its type.
func appendUnstructuredList(b *body, kind, apiVersion string, meta []byte, objs []*index.Object) {
	b.addString(`{"apiVersion":` + quote(apiVersion) + `,"items":[`)
	b.grow(2*len(objs) + 1)
	for i, o := range objs {
		if i > 0 {
			b.add(comma)
		}
		b.add(o.Item)
	}
	b.addString(`],"kind":` + quote(kind) + `,"metadata":`)
	b.add(meta)
	b.addString("}\n")
}

// appendPartial renders an object as PartialObjectMetadata: its whole
// ObjectMeta, as the server's meta.AsPartialObjectMetadata keeps it.
func appendPartial(b *body, o *index.Object, groupVersion string) {
	b.add(partialHead(groupVersion))
	b.add(o.Metadata())
	b.add(closeBrace)
}

// partialHead opens a PartialObjectMetadata, up to its metadata.
func partialHead(groupVersion string) []byte {
	switch groupVersion {
	case metaV1:
		return partialV1
	case metaV1beta1:
		return partialBeta1
	}
	return partialPrefix(groupVersion)
}

// quote writes s as a JSON string, as json.Marshal does. Names and
// resourceVersions are plain ASCII and need no escaping; they skip
// encoding/json, which costs a single GET more than the rest of its
// envelope.
func quote(s string) string {
	if !plainString(s) {
		q, _ := json.Marshal(s)
		return string(q)
	}
	return `"` + s + `"`
}

// appendQuote appends s to dst as quote writes it.
func appendQuote(dst []byte, s string) []byte {
	if !plainString(s) {
		q, _ := json.Marshal(s)
		return append(dst, q...)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainString says whether json.Marshal writes s as it is, quoted.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// appendTyped appends the object with its kind and apiVersion.
func appendTyped(b *body, o *index.Object) {
	head, tail := o.Typed()
	if head != nil {
		b.add(head)
	}
	b.add(tail)
}
