package contract

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// TokenEnv is the environment variable a bearer token for bundle URLs is
// read from when no --token-file is given.
const TokenEnv = "BUNDLECTL_TOKEN"

// DefaultFetchTimeout is how long a bundle's server may take to answer,
// and to send each next part of the body, before the download fails as
// stalled. It bounds silence, not the whole download: a large bundle on
// a slow link takes as long as it takes.
const DefaultFetchTimeout = 30 * time.Second

// maxRedirects is the redirects followed before a download fails: Go's
// and curl's default, far more than a store's redirect to its blob host.
const maxRedirects = 10

// HTTPOptions say how a bundle named by a URL is fetched.
type HTTPOptions struct {
	// Token is sent as "Authorization: Bearer" to the URL's own origin
	// (scheme, host and port) only: never after a redirect to another
	// (a store that redirects to a signed blob URL must not hand the blob
	// host its token). It is never printed, nor put in an error.
	Token string
	// RootCAs verify the server; nil is the system's roots.
	RootCAs *x509.CertPool
	// AllowHTTP permits plain http:// URLs and redirects to them; without
	// it they are refused, since the bundle (a customer's cluster state)
	// and the token would cross the network unencrypted.
	AllowHTTP bool
	// Timeout bounds the wait for the response headers and for each read
	// of the body; 0 is DefaultFetchTimeout.
	Timeout time.Duration
}

// IsURL says whether a bundle is named by an http:// or https:// URL
// rather than a path (a file named so is opened as ./http:...).
func IsURL(name string) bool {
	l := strings.ToLower(name)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// SourceName is how a bundle source is named in messages and reports: a
// URL with its user information and its query (a signed link's
// signature, an access key; a bare "?secret" too) replaced by REDACTED,
// anything else as given.
func SourceName(name string) string {
	if !IsURL(name) {
		return name
	}
	u, err := url.Parse(name)
	if err != nil {
		// Nothing of an unreadable URL is safe to repeat but its scheme.
		scheme, _, _ := strings.Cut(name, ":")
		return scheme + "://(unparsable URL)"
	}
	return redact(u)
}

// SourceBase is the last element of a source's path, without a URL's
// query: what the bundle file or folder is called, which names a served
// context and may tell the collection time; "" for a URL that cannot
// be parsed.
func SourceBase(name string) string {
	if IsURL(name) {
		u, err := url.Parse(name)
		if err != nil {
			return ""
		}
		return path.Base(u.Path)
	}
	return filepath.Base(filepath.Clean(name))
}

func redact(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User("REDACTED")
	}
	if c.RawQuery != "" || c.ForceQuery {
		c.RawQuery, c.ForceQuery = "REDACTED", false
	}
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// origin is what a token is bound to: scheme, host and port.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// bearer adds the token to requests for one origin only. Go's client
// also drops Authorization on redirects, but keeps it for another port of
// the same host, a subdomain, and plain http on the same host; a token
// must reach none of them.
type bearer struct {
	next   http.RoundTripper
	origin string
	token  string
}

func (t *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Del("Authorization")
	if t.token != "" && origin(req.URL) == t.origin {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	return t.next.RoundTrip(req)
}

// errStalled ends a download whose server went silent.
var errStalled = errors.New("stalled")

// fetch downloads the bundle at rawURL into the spool, in one GET.
//
// Every command reads an archive more than once: a first pass checks
// every header and finds the root and the small files the stream needs
// first (troubleshoot writes the CRDs after the custom resources), then
// one or two more stream it (upgrade also looks for the nodes' kubelet
// version). A URL could be read again with GETs made conditional by
// If-Match on the first one's ETag, but that moves the bundle over the
// network two or three times, needs a store that sends a strong ETag,
// and finds a bundle replaced midway only after minutes of work; a
// spool moves it once, and what is read is exactly what was checked.
// The spool is private and nameless (see spoolFrom), as for stdin.
func (b *Bundle) fetch(ctx context.Context, rawURL string, o HTTPOptions) error {
	u, err := url.Parse(rawURL)
	secrets := secretsOf(o.Token, u)
	fail := func(format string, args ...any) error {
		msg := maskSecrets(scrubURLs(fmt.Sprintf(format, args...)), secrets)
		return &EntryError{Bundle: b.Path, Err: errors.New(msg)}
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the url.Error repeats the URL, secrets and all
		}
		return fail("not a valid URL: %v", err)
	}
	if u.Host == "" {
		return fail("the URL names no host")
	}
	if u.User != nil {
		// Sent as Basic auth it would reach every host a redirect leads
		// to as the URL's own, and typed on a command line it is in the
		// shell's history and in ps: refused, never silently dropped.
		return fail("the URL holds a user name or password (user:password@host), which bundlectl does not send: give a bearer token with --token-file FILE or $%s, or use a signed link", TokenEnv)
	}
	if !o.AllowHTTP && !strings.EqualFold(u.Scheme, "https") {
		return fail("refusing plain http: the bundle and any token would cross the network unencrypted; use https://, or --allow-http-url on a network you trust")
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultFetchTimeout
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	transport.ResponseHeaderTimeout = timeout
	transport.TLSHandshakeTimeout = timeout
	// The bytes as stored: a .tar.gz must not be un-gzipped on the way
	// by a server that also compresses its answers.
	transport.DisableCompression = true
	defer transport.CloseIdleConnections()
	client := &http.Client{
		Transport: &bearer{next: transport, origin: origin(u), token: o.Token},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects (a redirect loop?), the last to %s", maxRedirects, redact(req.URL))
			}
			if !o.AllowHTTP && !strings.EqualFold(req.URL.Scheme, "https") {
				return fmt.Errorf("refusing a redirect to plain http (%s): the bundle would cross the network unencrypted; --allow-http-url allows it", redact(req.URL))
			}
			return nil
		},
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fail("%v", err)
	}
	// What a store's access log shows of the request.
	req.Header.Set("User-Agent", "bundlectl")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		switch {
		case ctx.Err() != nil:
			return fail("download interrupted: %v", context.Cause(ctx))
		case ue != nil && ue.Timeout():
			return fail("no answer within %s: %v", timeout, err)
		}
		return fail("%v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		final := u
		if resp.Request != nil {
			final = resp.Request.URL
		}
		return fail("%s", statusProblem(resp, u, o.Token, append(secrets, secretsOf("", final)...)))
	}
	if resp.ContentLength > b.limits.MaxTotalSize {
		return fail("%d bytes is over the %d-byte limit of a bundle", resp.ContentLength, b.limits.MaxTotalSize)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		b.notArchiveHint = " (the server answered an HTML page: a login page, or a link to a page about the bundle rather than to the bundle?)"
	}
	idle := time.AfterFunc(timeout, func() { cancel(errStalled) })
	defer idle.Stop()
	body := &idleReader{r: resp.Body, timer: idle, d: timeout}
	err = b.spoolFrom(body)
	switch {
	case errors.Is(context.Cause(ctx), errStalled):
		return fail("the download stalled: nothing received for %s after %d bytes", timeout, body.n)
	case err != nil && ctx.Err() != nil:
		return fail("download interrupted after %d bytes: %v", body.n, context.Cause(ctx))
	case errors.As(err, new(*notArchiveError)):
		return fail("%v", err)
	case errors.Is(err, io.ErrUnexpectedEOF) && resp.ContentLength >= 0:
		return fail("the download is truncated: the connection ended after %d of the %d bytes the server announced", body.n, resp.ContentLength)
	case err != nil:
		return fail("downloading after %d bytes: %v", body.n, err)
	case resp.ContentLength >= 0 && body.n != resp.ContentLength:
		return fail("the download is truncated: %d of the %d bytes the server announced", body.n, resp.ContentLength)
	}
	return nil
}

// idleReader restarts the stall timer whenever bytes arrive.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
	n     int64
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.n += int64(n)
		r.timer.Reset(r.d)
	}
	return n, err
}

// statusProblem says what an answer other than 200 means to the person
// fetching the bundle, with the start of a text body (S3's XML errors say
// "Request has expired"), every secret taken out of it before it is
// shortened, should the server echo one.
func statusProblem(resp *http.Response, asked *url.URL, token string, secrets []string) string {
	msg := maskServerText(resp.Status, secrets) // the server's text too
	if resp.Request != nil && origin(resp.Request.URL) != origin(asked) {
		msg += " from " + redact(resp.Request.URL) + " (redirected there)"
	}
	switch sentToken := token != "" && (resp.Request == nil || origin(resp.Request.URL) == origin(asked)); resp.StatusCode {
	case http.StatusUnauthorized:
		if sentToken {
			msg += ": the server refused the token"
		} else if token != "" {
			msg += ": the token is sent only to " + origin(asked) + ", never after a redirect to another host"
		} else {
			msg += ": the server wants credentials; give a bearer token with --token-file FILE or $" + TokenEnv
		}
	case http.StatusForbidden:
		msg += ": the credentials do not grant access to this bundle (or the link has expired)"
	}
	if text := bodyText(resp, secrets); text != "" {
		msg += ": " + text
	}
	return msg
}

// maxBodyShown is how much of an error body a message shows, in
// characters; maxBodyRead how much of it is read and masked first,
// far more than a secret copied into the part shown can reach past.
const (
	maxBodyShown = 200
	maxBodyRead  = 64 << 10
)

// bodyText is the start of a textual error body on one line, its
// secrets masked (and URLs named without their queries) before it is
// shortened; "" for other bodies.
func bodyText(resp *http.Response, secrets []string) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !strings.HasPrefix(mt, "text/") && !strings.HasSuffix(mt, "json") && !strings.HasSuffix(mt, "xml") || mt == "text/html" {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxBodyRead))
	text := maskServerText(scrubURLs(strings.ToValidUTF8(string(data), "\ufffd")), secrets)
	text = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, text)), " ")
	if r := []rune(text); len(r) > maxBodyShown {
		text = string(r[:maxBodyShown]) + "..."
	}
	return text
}
