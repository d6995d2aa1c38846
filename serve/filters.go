package serve

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// The filters in front of the router, each one small handler as in
// kube-apiserver's chain. A request passes, in order: the access log,
// which sees every answer; the health checks, which answer without
// credentials; the bearer token; the GETs of one object, answered from
// routes made once (objects.go); and the request info, which the router
// reads from the request's context.

// withAccessLog writes one line per request to log, when it is set: the
// method, the path and query, the status, the bytes sent and the time it
// took ("GET /api/v1/pods?limit=500 200 5123B 1.234ms"), and what the
// handler noted (noteAccess: the file a log was read from), once the
// answer is complete (a watch's when it ends). Off, it adds nothing.
func withAccessLog(next http.Handler, log io.Writer, prefix string) http.Handler {
	if log == nil {
		return next
	}
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		lw := &loggedResponse{ResponseWriter: w}
		var note string
		defer func() {
			line := fmt.Sprintf("%s%s %s %d %dB %s", prefix, r.Method, r.URL.RequestURI(), lw.status(), lw.bytes, time.Since(start).Round(time.Microsecond))
			if note != "" {
				line += " " + note
			}
			line = termtext.Escape(line) + "\n" // the note names a bundle's file
			mu.Lock()
			defer mu.Unlock()
			io.WriteString(log, line)
		}()
		next.ServeHTTP(lw, r.WithContext(context.WithValue(r.Context(), accessNoteKey{}, &note)))
	})
}

type accessNoteKey struct{}

// noteAccess adds a note to the request's access log line, such as the
// file of the bundle a log was read from; nothing when the log is off.
func noteAccess(r *http.Request, note string) {
	if p, ok := r.Context().Value(accessNoteKey{}).(*string); ok {
		*p = note
	}
}

// loggedResponse records the status and size of an answer.
type loggedResponse struct {
	http.ResponseWriter
	code  int
	bytes int64
}

func (l *loggedResponse) WriteHeader(code int) {
	if l.code == 0 {
		l.code = code
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *loggedResponse) Write(p []byte) (int, error) {
	if l.code == 0 {
		l.code = http.StatusOK
	}
	n, err := l.ResponseWriter.Write(p)
	l.bytes += int64(n)
	return n, err
}

// Flush keeps watches streaming through the log.
func (l *loggedResponse) Flush() {
	if l.code == 0 {
		l.code = http.StatusOK
	}
	if f, ok := l.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (l *loggedResponse) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// status is the code sent: 200 when the handler wrote nothing.
func (l *loggedResponse) status() int {
	if l.code == 0 {
		return http.StatusOK
	}
	return l.code
}

var healthChecks = []string{"/healthz", "/livez", "/readyz"}

// withHealthChecks answers the probes a real server answers without
// credentials.
func withHealthChecks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isHealthCheck(strings.TrimSuffix(r.URL.Path, "/")) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write([]byte("ok"))
	})
}

// isHealthCheck says whether the path is one of the probes, or below one.
func isHealthCheck(path string) bool {
	for _, p := range healthChecks {
		if rest, ok := strings.CutPrefix(path, p); ok && (rest == "" || rest[0] == '/') {
			return true
		}
	}
	return false
}

// withBearerToken lets through only requests carrying the run's token, as
// the server's bearer token authenticator reads it: the scheme in any
// case, then the token. An empty token lets everything through (tests).
// A connection that sent a request without it is closed after the 401
// (HTTP/2: a GOAWAY, then closed once idle): a client that has the token
// sends it with its first request, and one that does not must not keep
// connections open.
func withBearerToken(next http.Handler, token string) http.Handler {
	if token == "" {
		return next
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hasBearerToken(r.Header.Get("Authorization"), want) {
			w.Header().Set("Connection", "close")
			writeError(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hasBearerToken says whether an Authorization header carries the token:
// split on spaces in at most three parts, the scheme, the token and the
// rest. The token sent is compared, in constant time, from a copy on the
// stack (the run's token is 64 bytes): []byte(got) allocated it, and the
// token too, on every request.
func hasBearerToken(header string, token []byte) bool {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return false
	}
	got, _, _ := strings.Cut(rest, " ")
	var buf [64]byte
	return subtle.ConstantTimeCompare(append(buf[:0], got...), token) == 1
}

// withRequestInfo puts in the request's context what the apiserver's
// RequestInfoFactory makes of it: API group, version, resource, verb,
// namespace and name.
func withRequestInfo(next http.Handler, infos *request.RequestInfoFactory) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := infos.NewRequestInfo(forRequestInfo(r))
		if err != nil {
			writeError(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		next.ServeHTTP(w, r.WithContext(request.WithRequestInfo(r.Context(), info)))
	})
}

// forRequestInfo keeps only the query RequestInfo needs to tell a watch
// from a list: it also parses the selectors (for authorization, which a
// snapshot does not do) and logs through klog when they are malformed,
// while the list handler answers those with a 400 anyway.
func forRequestInfo(r *http.Request) *http.Request {
	if r.URL.RawQuery == "" {
		// Nothing to strip (a single GET): RequestInfo reads only the
		// method and the URL, so the request itself will do.
		return r
	}
	u := *r.URL
	u.RawQuery = url.Values{"watch": r.URL.Query()["watch"]}.Encode()
	return &http.Request{Method: r.Method, URL: &u}
}
