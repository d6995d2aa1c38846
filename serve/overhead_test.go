package serve

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkServeOverTLS is what bench-peers' table-get-s measures, in one
// process: a single Table GET of a pod over HTTPS and HTTP/2 on loopback,
// one request at a time on a kept-alive connection, each for another of
// 20 pods. "Chain" is the server Run starts (its http.Server, TLS config
// and certificate, and NewHandler with the token); "Bare" is the same
// http.Server and certificate with a handler that only replays the bytes
// and headers Chain answered, as internal/test/peers' floor server does. The
// difference of the two is what serving costs above the floor.
func BenchmarkServeOverTLS(b *testing.B) {
	x := benchIndex(b)
	creds, err := newCredentials([]string{"127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	chain := NewHandler(x, HandlerOptions{Token: creds.token})
	var paths []string
	for i := range 20 {
		paths = append(paths, fmt.Sprintf("/api/v1/namespaces/ns-%03d/pods/app-%d-7d9f8b6c5-x%05d", i%100, i%50, i))
	}
	accept := strings.TrimPrefix(tableAccept, "Accept: ")
	chainURL := startTLS(b, chain, creds)
	client := tlsClient(b, creds)
	// The floor's answers, recorded from the chain as the client got them.
	type answer struct {
		header http.Header
		body   []byte
	}
	recorded := map[string]answer{}
	for _, p := range paths {
		h, body := tlsGet(b, client, chainURL+p, accept, creds.token)
		h.Del("Date")
		recorded[p] = answer{h, body}
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := recorded[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.Write(a.body)
	})
	bareURL := startTLS(b, bare, creds)
	for _, bc := range []struct {
		name string
		url  string
	}{{"Chain", chainURL}, {"Bare", bareURL}} {
		b.Run(bc.name, func(b *testing.B) {
			c := tlsClient(b, creds)
			tlsGet(b, c, bc.url+paths[0], accept, creds.token) // the connection
			i := 0
			for b.Loop() {
				tlsGet(b, c, bc.url+paths[i%len(paths)], accept, creds.token)
				i++
			}
		})
	}
}

// startTLS serves h as Run does, on a loopback port, until the benchmark
// ends, and returns its URL.
func startTLS(b testing.TB, h http.Handler, creds *credentials) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := newServer(h, creds)
	go srv.ServeTLS(ln, "", "")
	b.Cleanup(func() { srv.Close() })
	return "https://" + ln.Addr().String()
}

// tlsClient trusts the run's CA and speaks HTTP/2, as client-go does.
func tlsClient(b testing.TB, creds *credentials) *http.Client {
	b.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(creds.caPEM) {
		b.Fatal("no CA certificate")
	}
	t := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	b.Cleanup(t.CloseIdleConnections)
	return &http.Client{Transport: t}
}

func tlsGet(b *testing.B, c *http.Client, url, accept, token string) (http.Header, []byte) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		b.Fatalf("GET %s: %s over %s: %.300s", url, resp.Status, resp.Proto, body)
	}
	return resp.Header, body
}
