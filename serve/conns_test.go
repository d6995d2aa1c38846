package serve

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"
)

// connServer serves the small bundle as Run does (newServer, HTTPS, the
// run's token) with adjust applied to its http.Server, and returns its
// address and credentials.
func connServer(t *testing.T, adjust func(*http.Server)) (string, *credentials) {
	t.Helper()
	creds, err := newCredentials([]string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	srv := newServer(NewHandler(load(t, smallBundle(t)), HandlerOptions{Token: creds.token, Stop: stop}), creds)
	if adjust != nil {
		adjust(srv)
	}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { close(stop); srv.Close() })
	return ln.Addr().String(), creds
}

// dialHTTP1 opens a TLS connection that speaks HTTP/1.1.
func dialHTTP1(t *testing.T, addr string, creds *credentials) *tls.Conn {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(creds.caPEM)
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin says whether the server closed c within d: a read sees
// the end of the stream rather than the deadline.
func closedWithin(c net.Conn, r io.Reader, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestUnauthenticatedConnectionsClosed opens many connections that send
// a request without the token: each gets its 401 and is closed by the
// server at once, where they were kept alive for ever, so that a local
// user without the token could use up the server's file descriptors.
func TestUnauthenticatedConnectionsClosed(t *testing.T) {
	addr, creds := connServer(t, nil)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for range n {
		c := dialHTTP1(t, addr, creds)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := io.WriteString(c, "GET /api/v1/pods HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
				errs <- err.Error()
				return
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != http.StatusUnauthorized {
				errs <- "no 401"
				return
			}
			if !closedWithin(c, br, 10*time.Second) {
				errs <- "still open 10s after its 401"
			}
		}()
	}
	wg.Wait()
	close(errs)
	count := map[string]int{}
	for e := range errs {
		count[e]++
	}
	if len(count) > 0 {
		t.Errorf("of %d connections without the token: %v", n, count)
	}

	// HTTP/2, as kubectl speaks it: the connection that got a 401 is not
	// used again.
	client := tlsClient(t, creds)
	var reused []bool
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/api/v1/pods", nil)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = append(reused, info.Reused) },
		}))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.ProtoMajor != 2 {
			t.Fatalf("%s %d, want HTTP/2 401", resp.Proto, resp.StatusCode)
		}
		time.Sleep(100 * time.Millisecond) // the GOAWAY
	}
	if len(reused) != 2 || reused[1] {
		t.Errorf("HTTP/2 connection reused after a 401: %v", reused)
	}
}

// TestConnectionTimeouts: the server has kube-apiserver's header and
// idle timeouts, and closes a connection that sends nothing, or that
// stays idle after a request, once they pass (shortened here).
func TestConnectionTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler(), nil)
	if srv.ReadHeaderTimeout != 32*time.Second || srv.IdleTimeout != 90*time.Second {
		t.Errorf("ReadHeaderTimeout %v, IdleTimeout %v, want kube-apiserver's 32s and 90s", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}
	addr, creds := connServer(t, func(s *http.Server) {
		s.ReadHeaderTimeout, s.IdleTimeout = 500*time.Millisecond, 500*time.Millisecond
	})
	silent := dialHTTP1(t, addr, creds)
	if !closedWithin(silent, silent, 5*time.Second) {
		t.Error("a connection that sent nothing is still open")
	}
	idle := dialHTTP1(t, addr, creds)
	io.WriteString(idle, "GET /api/v1/namespaces/default/pods/web-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+creds.token+"\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("authenticated GET: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	if !closedWithin(idle, br, 5*time.Second) {
		t.Error("an idle connection is still open")
	}
}
