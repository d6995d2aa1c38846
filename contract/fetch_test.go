package contract_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

const (
	testToken = "s3cr3t-token"
	// testSig is a query value a signed link carries; errors must not.
	testSig = "sig-value-9f8e"
)

func testBundle(t *testing.T) []byte {
	return contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{
		{Name: "support-bundle-2024-01-02T03_04_05/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
		{Name: "support-bundle-2024-01-02T03_04_05/cluster-resources/pods/default.json", Body: podList},
	}))
}

// privateTemp points os.TempDir at a fresh folder, so that a test can
// see whether a spool was left behind.
func privateTemp(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return dir
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temporary folder: %s", e.Name())
	}
}

func tlsServer(t *testing.T, h http.Handler) (*httptest.Server, contract.HTTPOptions) {
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv, contract.HTTPOptions{RootCAs: pool, Timeout: 5 * time.Second}
}

// TestFetchOpensURL reads a bundle over HTTPS in one GET, names it by its
// URL with the query's values redacted, and leaves nothing on disk: the
// spool has no name from the start.
func TestFetchOpensURL(t *testing.T) {
	tmp := privateTemp(t)
	body := testBundle(t)
	var gets int
	srv, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets++
		if r.URL.Query().Get("sig") != testSig {
			http.Error(w, "no signature", http.StatusForbidden)
			return
		}
		w.Write(body)
	}))
	u := srv.URL + "/bundles/support-bundle-2024-01-02T03_04_05.tar.gz?sig=" + testSig
	b, err := contract.OpenContext(context.Background(), u, contract.OpenOptions{HTTP: o})
	if err != nil {
		t.Fatal(err)
	}
	assertEmpty(t, tmp)
	if want := srv.URL + "/bundles/support-bundle-2024-01-02T03_04_05.tar.gz?REDACTED"; b.Path != want {
		t.Errorf("Path = %q, want %q", b.Path, want)
	}
	if b.Format != contract.FormatTarGz || b.Root != "support-bundle-2024-01-02T03_04_05" {
		t.Errorf("format %s, root %q", b.Format, b.Root)
	}
	got, err := walkAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["cluster-resources/pods/default.json"]; !ok {
		t.Errorf("walk missed the pods: %v", got)
	}
	c, err := b.CollectedAt()
	if err != nil || c.CollectedAtSource != contract.TimeFromFolderName || c.CollectedAt.Format(time.RFC3339) != "2024-01-02T03:04:05Z" {
		t.Errorf("CollectedAt = %v, %v", c, err)
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if gets != 1 {
		t.Errorf("%d GETs, want 1: the archive is read from the spool", gets)
	}
}

// TestFetchTokenStaysHome: the token goes to the URL's own origin, also
// after a redirect within it, and never to another: not another port of
// the same host (Go's client would send it there), nor another host.
func TestFetchTokenStaysHome(t *testing.T) {
	privateTemp(t)
	body := testBundle(t)
	var mu sync.Mutex
	seen := map[string]string{}
	record := func(who string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen[who] = r.Header.Get("Authorization")
	}
	blob, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("blob", r)
		w.Write(body)
	}))
	store, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r.URL.Path, r)
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusFound)
		case "/new":
			http.Redirect(w, r, blob.URL+"/blob?X-Amz-Signature="+testSig, http.StatusFound)
		}
	}))
	o.RootCAs.AddCert(blob.Certificate())
	o.Token = testToken
	b, err := contract.OpenContext(context.Background(), store.URL+"/old", contract.OpenOptions{HTTP: o})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	want := map[string]string{"/old": "Bearer " + testToken, "/new": "Bearer " + testToken, "blob": ""}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("Authorization seen by each: %q, want %q", seen, want)
	}
}

// TestFetchRefusedAfterRedirect: a 401 from the host a redirect led to
// says that the token stays with the URL's own host.
func TestFetchRefusedAfterRedirect(t *testing.T) {
	privateTemp(t)
	blob, _ := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("the token reached the blob host")
		}
		http.Error(w, "who are you", http.StatusUnauthorized)
	}))
	store, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, blob.URL+"/blob?X-Amz-Signature="+testSig, http.StatusFound)
	}))
	o.RootCAs.AddCert(blob.Certificate())
	o.Token = testToken
	_, err := contract.OpenContext(context.Background(), store.URL+"/b.tgz", contract.OpenOptions{HTTP: o})
	want := store.URL + "/b.tgz: 401 Unauthorized from " + blob.URL + "/blob?REDACTED (redirected there): the token is sent only to https://127.0.0.1:" + strings.TrimPrefix(store.URL, "https://127.0.0.1:") + ", never after a redirect to another host: who are you"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// TestFetchHostile: each way a server can fail a download is an error
// naming the URL (its secrets redacted) and the problem, and leaves no
// spool behind.
func TestFetchHostile(t *testing.T) {
	body := testBundle(t)
	stall := func(r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
	cases := []struct {
		name    string
		handler http.HandlerFunc
		token   string
		plain   bool // an http:// server
		allow   bool // AllowHTTP
		limits  contract.Limits
		want    string
	}{
		{name: "truncated body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:len(body)/2])
		}, want: fmt.Sprintf("the download is truncated: the connection ended after %d of the %d bytes the server announced", len(body)/2, len(body))},
		{name: "no answer", handler: func(w http.ResponseWriter, r *http.Request) { stall(r) },
			want: "no answer within 200ms: net/http: timeout awaiting response headers"},
		{name: "stalled body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:10])
			w.(http.Flusher).Flush()
			stall(r)
		}, want: "the download stalled: nothing received for 200ms after 10 bytes"},
		{name: "redirect loop", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
		}, want: "more than 10 redirects (a redirect loop?), the last to https://"},
		{name: "401 without a token", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "missing credentials", http.StatusUnauthorized)
		}, want: ": 401 Unauthorized: the server wants credentials; give a bearer token with --token-file FILE or $BUNDLECTL_TOKEN: missing credentials"},
		{name: "401 with a token", token: testToken, handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad token "+testToken, http.StatusUnauthorized)
		}, want: ": 401 Unauthorized: the server refused the token: bad token REDACTED"},
		{name: "403", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, "<Error>\n  <Code>AccessDenied</Code>\n  <Message>Request has expired</Message>\n</Error>")
		}, want: ": 403 Forbidden: the credentials do not grant access to this bundle (or the link has expired): <Error> <Code>AccessDenied</Code> <Message>Request has expired</Message> </Error>"},
		{name: "404", handler: http.NotFound, want: ": 404 Not Found: 404 page not found"},
		{name: "500", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		}, want: ": 500 Internal Server Error"},
		{name: "not an archive", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><body>Please log in to download this bundle.</body></html>")
		}, want: ": not a tar or gzip-compressed tar archive (the server answered an HTML page: a login page, or a link to a page about the bundle rather than to the bundle?)"},
		{name: "over the size limit", limits: contract.Limits{MaxEntrySize: 100, MaxTotalSize: 100, MaxDecodeSize: 100}, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write(body)
		}, want: fmt.Sprintf(": %d bytes is over the 100-byte limit of a bundle", len(body))},
		{name: "plain http refused", plain: true, handler: func(w http.ResponseWriter, r *http.Request) {
			t.Error("plain http was fetched")
		}, want: ": refusing plain http: the bundle and any token would cross the network unencrypted; use https://, or --allow-http-url on a network you trust"},
		{name: "redirect to plain http refused", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://"+r.Host+"/b.tgz?sig="+testSig, http.StatusFound)
		}, want: "refusing a redirect to plain http (http://"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := privateTemp(t)
			var srv *httptest.Server
			o := contract.HTTPOptions{Timeout: 200 * time.Millisecond, Token: c.token, AllowHTTP: c.allow}
			if c.plain {
				srv = httptest.NewServer(c.handler)
				t.Cleanup(srv.Close)
			} else {
				var so contract.HTTPOptions
				srv, so = tlsServer(t, c.handler)
				o.RootCAs = so.RootCAs
			}
			u := srv.URL + "/b.tgz?sig=" + testSig
			_, err := contract.OpenContext(context.Background(), u, contract.OpenOptions{HTTP: o, Limits: c.limits})
			if err == nil {
				t.Fatal("opened without an error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, srv.URL+"/b.tgz?REDACTED: ") || !strings.Contains(msg, c.want) {
				t.Errorf("error\n%s\nshould name %s/b.tgz?REDACTED and say\n%s", msg, srv.URL, c.want)
			}
			if strings.Contains(msg, testSig) || strings.Contains(msg, testToken) {
				t.Errorf("error %q gives a secret away", msg)
			}
			assertEmpty(t, tmp)
		})
	}
}

// TestFetchPlainHTTPAllowed: --allow-http-url fetches over plain HTTP.
func TestFetchPlainHTTPAllowed(t *testing.T) {
	body := testBundle(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	b, err := contract.OpenContext(context.Background(), srv.URL+"/b.tgz", contract.OpenOptions{HTTP: contract.HTTPOptions{AllowHTTP: true}})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
}

// TestFetchInterrupted: Ctrl-C (the command's context ending) stops a
// download at once, and leaves no spool behind.
func TestFetchInterrupted(t *testing.T) {
	tmp := privateTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	// The start of a tar archive, so that the download is taken for one
	// (zeros would be refused as an empty archive before the cancel).
	var start bytes.Buffer
	tw := tar.NewWriter(&start)
	if err := tw.WriteHeader(&tar.Header{Name: "support-bundle/x.json", Mode: 0o644, Size: 99000}); err != nil {
		t.Fatal(err)
	}
	tw.Flush()
	start.Write(make([]byte, 1000-start.Len()))
	srv, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(start.Bytes())
		w.(http.Flusher).Flush()
		cancel()
		<-r.Context().Done()
	}))
	_, err := contract.OpenContext(ctx, srv.URL+"/b.tgz", contract.OpenOptions{HTTP: o})
	if err == nil || !strings.Contains(err.Error(), srv.URL+"/b.tgz: download interrupted") || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("error %v, want the download interrupted", err)
	}
	assertEmpty(t, tmp)
}

func TestSourceName(t *testing.T) {
	for _, c := range []struct{ in, name, base string }{
		{"https://user:pw@example.com/a/support-bundle-x.tgz?X-Amz-Signature=abc&b=1#frag", "https://REDACTED@example.com/a/support-bundle-x.tgz?REDACTED", "support-bundle-x.tgz"},
		{"HTTP://example.com/b.tgz", "http://example.com/b.tgz", "b.tgz"},
		{"https://example.com/%zz?token=abc", "https://(unparsable URL)", ""},
		{"dir/bundle.tgz", "dir/bundle.tgz", "bundle.tgz"},
		{"folder/", "folder/", "folder"},
	} {
		if got := contract.SourceName(c.in); got != c.name {
			t.Errorf("SourceName(%q) = %q, want %q", c.in, got, c.name)
		}
		if got := contract.SourceBase(c.in); got != c.base {
			t.Errorf("SourceBase(%q) = %q, want %q", c.in, got, c.base)
		}
	}
}
