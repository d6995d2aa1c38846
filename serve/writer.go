package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// body is a response assembled from slices of the index: nothing is
// copied until it is written, so a list of 10,000 objects costs one
// slice header per object.
type body struct {
	parts [][]byte
	size  int
}

func (b *body) add(p []byte) {
	b.parts = append(b.parts, p)
	b.size += len(p)
}

func (b *body) addString(s string) { b.add([]byte(s)) }

// grow makes room for n more parts.
func (b *body) grow(n int) { b.parts = slices.Grow(b.parts, n) }

// Separators added once per object are shared, so that a list of 10,000
// objects does not allocate 10,000 copies of each.
var (
	comma        = []byte(",")
	closeBrace   = []byte("}")
	null         = []byte("null")
	rowCells     = []byte(`{"cells":`)
	rowConds     = []byte(`,"conditions":`)
	rowObject    = []byte(`,"object":`)
	metaV1       = "meta.k8s.io/v1"
	metaV1beta1  = "meta.k8s.io/v1beta1"
	partialV1    = partialPrefix(metaV1)
	partialBeta1 = partialPrefix(metaV1beta1)
)

func partialPrefix(groupVersion string) []byte {
	return []byte(`{"kind":"PartialObjectMetadata","apiVersion":` + quote(groupVersion) + `,"metadata":`)
}

// bufPool holds the writers that batch a body's many small parts into
// large writes.
var bufPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

func (b *body) bytes() []byte {
	out := make([]byte, 0, b.size)
	for _, p := range b.parts {
		out = append(out, p...)
	}
	return out
}

func (b *body) writeTo(w io.Writer) error {
	if len(b.parts) == 1 {
		_, err := w.Write(b.parts[0])
		return err
	}
	bw := bufPool.Get().(*bufio.Writer)
	defer bufPool.Put(bw)
	bw.Reset(w)
	defer bw.Reset(nil)
	for _, p := range b.parts {
		if _, err := bw.Write(p); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// The server compresses a response only when the client accepts gzip and
// the body is over 128 KiB, at level 1 (apiserver's responsewriters).
const gzipThreshold = 128 << 10

var gzipPool = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

func acceptsGzip(r *http.Request) bool {
	for _, tok := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if strings.TrimSpace(tok) == "gzip" {
			return true
		}
	}
	return false
}

// isPretty is the server's rule for indenting JSON: ?pretty=true, or a
// browser or curl asking.
func isPretty(r *http.Request) bool {
	if p := r.URL.Query().Get("pretty"); p != "" {
		v, _ := strconv.ParseBool(p)
		return v
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// respond writes a JSON body. cache, when not nil, keeps the gzipped body
// under cacheKey: callers pass it only for whole, unfiltered lists.
func respond(w http.ResponseWriter, r *http.Request, code int, contentType string, b *body, cache *gzipCache, cacheKey string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache, private")
	if isPretty(r) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, b.bytes(), "", "  "); err == nil {
			b = &body{}
			b.add(buf.Bytes())
			cache = nil
		}
	}
	if !acceptsGzip(r) || b.size <= gzipThreshold {
		h.Set("Content-Length", strconv.Itoa(b.size))
		w.WriteHeader(code)
		b.writeTo(w)
		return
	}
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	if cache != nil {
		z, ok := cache.get(cacheKey)
		if !ok {
			z = gzipBytes(b)
			cache.put(cacheKey, z)
		}
		h.Set("Content-Length", strconv.Itoa(len(z)))
		w.WriteHeader(code)
		w.Write(z)
		return
	}
	w.WriteHeader(code)
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	zw.Reset(w)
	if b.writeTo(zw) == nil {
		zw.Close()
	}
}

func gzipBytes(b *body) []byte {
	var buf bytes.Buffer
	buf.Grow(b.size / 8)
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	zw.Reset(&buf)
	b.writeTo(zw)
	zw.Close()
	return buf.Bytes()
}
