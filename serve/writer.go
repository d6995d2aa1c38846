package serve

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
)

// body is a response assembled from slices of the index: nothing is
// copied until it is written, so a list of 10,000 objects costs one
// slice header per object.
type body struct {
	parts [][]byte
	size  int
	// scratch holds what a body writes itself rather than takes from the
	// index (a single GET's list metadata): kept with a pooled body, it
	// is written again by the next request, not allocated.
	scratch []byte
}

// bodies recycles the bodies of single objects: a GET is a dozen parts,
// and growing a new slice of them took five allocations per request, each
// in memory the caches have not seen since the last collection.
var bodies = sync.Pool{New: func() any { return new(body) }}

// pooledBody is an empty body to give back with release once written.
func pooledBody() *body { return bodies.Get().(*body) }

// release drops the body's references to the index and recycles it.
func (b *body) release() {
	clear(b.parts)
	b.parts, b.size, b.scratch = b.parts[:0], 0, b.scratch[:0]
	bodies.Put(b)
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
	emptyObject  = []byte("{}")
	newline      = []byte("\n")
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
var bufPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufSize) }}

const bufSize = 64 << 10

// smallBody is the size up to which a body's parts are written to the
// response one by one: the server's response writers buffer that much
// themselves (HTTP/2 in chunks of 4 KB, HTTP/1.1 before chunking), and a
// copy through a 64 KB buffer of our own, cold in the caches when
// requests are few, cost a single GET more than the calls it saves.
const smallBody = 4 << 10

func (b *body) writeTo(w io.Writer) error {
	if len(b.parts) == 1 || b.size <= smallBody {
		for _, p := range b.parts {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	}
	return b.writeBuffered(w)
}

// writeBuffered writes a body of many parts through a pooled buffer.
// (Bodies of up to 64 KB were once put together in the pooled buffer by
// hand, to keep bufio's frames off the request's stack; measured against
// this (BENCHMARKS.md, the single GET's stack workarounds), it made no
// difference.)
func (b *body) writeBuffered(w io.Writer) error {
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
// the body is over 128 KiB (apiserver's responsewriters).
const gzipThreshold = 128 << 10

// A response is compressed at level 1, as the server does, but with
// klauspost/compress, which at that level is twice as fast as
// compress/gzip and compresses better (4.5 MB against 5.2 MB for a 57 MB
// list of 10,000 pods). A whole list is compressed once for every later
// request, so it gets level 6: 180 ms once, 3.0 MB, and a client inflates
// it in half the time a level 1 body takes, which is most of what a large
// list costs it.
const cachedGzipLevel = 6

var gzipPools = map[int]*sync.Pool{gzip.BestSpeed: gzipPool(gzip.BestSpeed), cachedGzipLevel: gzipPool(cachedGzipLevel)}

func gzipPool(level int) *sync.Pool {
	return &sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, level)
		return w
	}}
}

func acceptsGzip(r *http.Request) bool {
	for tok := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		if strings.TrimSpace(tok) == "gzip" {
			return true
		}
	}
	return false
}

// queryValue is r.URL.Query().Get(key), without parsing (and allocating)
// when the request has no query, as a single GET has not.
func queryValue(r *http.Request, key string) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return r.URL.Query().Get(key)
}

// isPretty is the server's rule for indenting JSON: ?pretty=true, or a
// browser or curl asking.
func isPretty(r *http.Request) bool {
	if p := queryValue(r, "pretty"); p != "" {
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
	setHeaders(h, contentType)
	if isPretty(r) || acceptsGzip(r) && b.size > gzipThreshold {
		respondTransformed(w, r, code, contentType, b, cache, cacheKey)
		return
	}
	// The body as it is: most answers. This frame stays on the stack
	// while the answer is written, so the rarer answers are apart
	// (respondTransformed): with them here a single Table GET took 2.8%
	// more time (see findObject).
	h["Content-Length"] = []string{strconv.Itoa(b.size)}
	w.WriteHeader(code)
	b.writeTo(w)
}

// respondTransformed writes a body indented, compressed, or both.
func respondTransformed(w http.ResponseWriter, r *http.Request, code int, contentType string, b *body, cache *gzipCache, cacheKey string) {
	h := w.Header()
	size, write := b.size, b.writeTo
	if size > maxCachedBody {
		// Compressed as it is written, never kept: the cache would hold
		// up to a copy of the list for as long as serve runs.
		cache = nil
	}
	if isPretty(r) {
		// Indented as it is written, never whole: a list of one large
		// object asked for by curl costs no copy of it.
		cache = nil
		size, write = b.indentedSize(), b.writeIndented
	}
	if !acceptsGzip(r) || size <= gzipThreshold {
		h["Content-Length"] = []string{strconv.Itoa(size)}
		w.WriteHeader(code)
		write(w)
		return
	}
	if cache != nil {
		writeGzipped(w, code, contentType, cache.get(cacheKey, func() []byte { return gzipBytes(b, cachedGzipLevel) }))
		return
	}
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	w.WriteHeader(code)
	pool := gzipPools[gzip.BestSpeed]
	zw := pool.Get().(*gzip.Writer)
	defer pool.Put(zw)
	zw.Reset(w)
	if write(zw) == nil {
		zw.Close()
	}
}

// writeIndented writes the body indented as json.Indent(dst, body, "",
// "  ") indents it, which is what the server writes for ?pretty=true.
func (b *body) writeIndented(w io.Writer) error {
	bw := bufPool.Get().(*bufio.Writer)
	defer bufPool.Put(bw)
	bw.Reset(w)
	defer bw.Reset(nil)
	ind := indenter{w: bw}
	for _, p := range b.parts {
		if err := ind.write(p); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// indentedSize is the length of the indented body.
func (b *body) indentedSize() int {
	var n countWriter
	ind := indenter{w: &n}
	for _, p := range b.parts {
		ind.write(p)
	}
	return int(n)
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
func (c *countWriter) WriteByte(byte) error        { *c++; return nil }
func (c *countWriter) WriteString(s string) (int, error) {
	*c += countWriter(len(s))
	return len(s), nil
}

// indenter is json.Indent with the prefix "" and the indent "  ", one
// part of valid JSON at a time: white space between tokens is dropped
// but for what follows the value, an empty object or array stays {} or
// [], and string contents are copied as they are.
type indenter struct {
	w interface {
		io.Writer
		io.ByteWriter
		io.StringWriter
	}
	depth, level     int  // indented levels; brackets open
	needIndent       bool // after { or [, until the next token says whether it is empty
	inString, escape bool
	done             bool // the top-level value has ended
}

func (ind *indenter) write(p []byte) error {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if ind.inString {
			// Copy the run of string bytes up to the closing quote.
			j := i
			for ; j < len(p); j++ {
				if ind.escape {
					ind.escape = false
				} else if p[j] == '\\' {
					ind.escape = true
				} else if p[j] == '"' {
					ind.inString = false
					break
				}
			}
			end := min(j+1, len(p))
			if _, err := ind.w.Write(p[i:end]); err != nil {
				return err
			}
			i = end - 1
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			if ind.done {
				if err := ind.w.WriteByte(c); err != nil {
					return err
				}
			}
			continue
		}
		if ind.needIndent && c != '}' && c != ']' {
			ind.needIndent = false
			ind.depth++
			ind.newline()
		}
		switch c {
		case '{', '[':
			ind.needIndent = true
			ind.level++
			ind.w.WriteByte(c)
		case ',':
			ind.w.WriteByte(c)
			ind.newline()
		case ':':
			ind.w.WriteString(": ")
		case '}', ']':
			if ind.needIndent {
				ind.needIndent = false
			} else {
				ind.depth--
				ind.newline()
			}
			ind.level--
			ind.done = ind.level == 0
			ind.w.WriteByte(c)
		case '"':
			ind.inString = true
			ind.w.WriteByte(c)
		default:
			ind.w.WriteByte(c)
		}
	}
	return nil
}

func (ind *indenter) newline() {
	ind.w.WriteByte('\n')
	for range ind.depth {
		ind.w.WriteString("  ")
	}
}

// The header values of every API answer, shared: set by key, as
// http.Header.Set would set them, without canonicalizing the keys or
// allocating the values on every request. Nothing changes a value in
// place (Add appends to a copy: the slices are full).
var (
	jsonContentType = []string{jsonType}
	noCache         = []string{"no-cache, private"}
)

// setHeaders sets the Content-Type of an answer, with the Cache-Control
// the server sends with every one, and its Date.
func setHeaders(h http.Header, contentType string) {
	if contentType == jsonType {
		h["Content-Type"] = jsonContentType
	} else {
		h["Content-Type"] = []string{contentType}
	}
	h["Cache-Control"] = noCache
	h["Date"] = date(time.Now())
}

// The Date header is the one net/http would add, formatted once a second
// rather than per answer, and set before the answer is written: net/http
// formats it when it writes the headers, which for HTTP/2 is on the
// handler's goroutine, in frames (time.Time.Format) deep enough to grow a
// goroutine's stack under a handler as deep as serve's chain; each growth
// copies the stack (see findObject). Left to net/http, a single Table GET
// took 3.2% more time.
var lastDate atomic.Pointer[dateHeader]

type dateHeader struct {
	second int64
	value  []string
}

// date is the Date header of the second of now.
func date(now time.Time) []string {
	d := lastDate.Load()
	if d == nil || d.second != now.Unix() {
		d = &dateHeader{second: now.Unix(), value: []string{now.UTC().Format(http.TimeFormat)}}
		lastDate.Store(d)
	}
	return d.value
}

// writeGzipped writes a body compressed beforehand.
func writeGzipped(w http.ResponseWriter, code int, contentType string, z []byte) {
	h := w.Header()
	setHeaders(h, contentType)
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(z)))
	w.WriteHeader(code)
	w.Write(z)
}

func gzipBytes(b *body, level int) []byte {
	var buf bytes.Buffer
	buf.Grow(b.size / 16)
	pool := gzipPools[level]
	zw := pool.Get().(*gzip.Writer)
	defer pool.Put(zw)
	zw.Reset(&buf)
	b.writeTo(zw)
	zw.Close()
	return buf.Bytes()
}

// maxCachedBody is the size of the largest list body whose compressed
// copy is cached: 10,000 pods are about 60 MB.
const maxCachedBody = 128 << 20

// gzipCache keeps the compressed bodies of whole, unfiltered lists: they
// are asked for again and again (every informer resync, every kubectl get
// -A) and compressing them costs more than sending them.
type gzipCache struct {
	mu     sync.Mutex
	bodies map[string]*gzipEntry
}

type gzipEntry struct {
	once sync.Once
	done atomic.Bool
	body []byte
}

// lookup returns the body cached under key once it is made.
func (c *gzipCache) lookup(key string) ([]byte, bool) {
	c.mu.Lock()
	e := c.bodies[key]
	c.mu.Unlock()
	if e == nil || !e.done.Load() {
		return nil, false
	}
	return e.body, true
}

// get returns the body cached under key, made by compress the first time:
// concurrent first requests wait for one compression rather than each
// making its own.
func (c *gzipCache) get(key string, compress func() []byte) []byte {
	c.mu.Lock()
	e := c.bodies[key]
	if e == nil {
		if c.bodies == nil {
			c.bodies = map[string]*gzipEntry{}
		}
		e = &gzipEntry{}
		c.bodies[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.body = compress()
		e.done.Store(true)
	})
	return e.body
}
