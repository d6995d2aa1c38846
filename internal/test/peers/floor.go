package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"
)

// The floor of a figure is the best any server could do for the same
// requests from the same client on this machine: a server, in a process
// of its own, that answers each request with the bytes bundlectl sent for
// it (headers and gzip body as they went over the wire), recorded before
// the measurements, over the same TLS and HTTP/2 stack. What bundlectl
// takes above the floor is its own work; the floor itself is the client's
// (TLS, inflating, reading the body) and the loopback's.

// floorRequest is a request the floor answers: its path and the headers
// that choose bundlectl's answer.
type floorRequest struct{ path, accept, userAgent string }

// exchange is one recorded response.
type exchange struct {
	Path, Accept, UserAgent string
	Header                  http.Header
	Body                    []byte
}

func exchangeKey(requestURI, accept, userAgent string) string {
	return requestURI + "\n" + accept + "\n" + userAgent
}

// record fetches a path as the measuring client does, and keeps the
// response as it was on the wire: gzip asked for, not decoded.
func (s *side) record(ctx context.Context, fr floorRequest) (exchange, error) {
	c, err := s.newClient(fr.userAgent)
	if err != nil {
		return exchange{}, err
	}
	defer c.CloseIdleConnections()
	body, header, err := s.fetch(ctx, c, fr.path, http.Header{"Accept": {fr.accept}, "Accept-Encoding": {"gzip"}})
	if err != nil {
		return exchange{}, err
	}
	h := header.Clone()
	h.Del("Date")
	return exchange{Path: fr.path, Accept: fr.accept, UserAgent: fr.userAgent, Header: h, Body: body}, nil
}

const (
	floorExchanges  = "exchanges.json"
	floorKubeconfig = "floor.kubeconfig"
)

// ServeFloor is the floor server: it answers the exchanges recorded in
// dir over HTTPS and HTTP/2 on loopback, writes dir/floor.kubeconfig
// once it listens, and serves until stdin closes (its parent ended).
// Requests that were not recorded get 404.
func ServeFloor(dir string, stdin io.Reader) error {
	data, err := os.ReadFile(filepath.Join(dir, floorExchanges))
	if err != nil {
		return err
	}
	var recorded []exchange
	if err := json.Unmarshal(data, &recorded); err != nil {
		return err
	}
	byKey := map[string]exchange{}
	for _, e := range recorded {
		byKey[exchangeKey(e.Path, e.Accept, e.UserAgent)] = e
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, ok := byKey[exchangeKey(r.URL.RequestURI(), r.Header.Get("Accept"), r.UserAgent())]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range e.Header {
			w.Header()[k] = v
		}
		w.Write(e.Body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: floor
  cluster: {server: %q, insecure-skip-tls-verify: true}
contexts:
- name: floor
  context: {cluster: floor}
current-context: floor
`, srv.URL)
	tmp := filepath.Join(dir, floorKubeconfig+".tmp")
	if err := os.WriteFile(tmp, []byte(kubeconfig), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, floorKubeconfig)); err != nil {
		return err
	}
	io.Copy(io.Discard, stdin)
	return nil
}

// startFloor records the exchanges from bundlectl, starts the floor
// server with Options.Floor and returns its side; stop ends it.
func (r *runner) startFloor(ctx context.Context, requests []floorRequest) (_ *side, stop func(), err error) {
	dir := filepath.Join(r.dir, "floor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	var recorded []exchange
	for _, req := range requests {
		e, err := r.served.record(ctx, req)
		if err != nil {
			return nil, nil, fmt.Errorf("recording the floor: %w", err)
		}
		recorded = append(recorded, e)
	}
	data, err := json.Marshal(recorded)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, floorExchanges), data, 0o644); err != nil {
		return nil, nil, err
	}
	cmd := r.o.Floor(dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = r.o.Log, r.o.Log
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting the floor server: %w", err)
	}
	stop = func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	kubeconfig := filepath.Join(dir, floorKubeconfig)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(kubeconfig); err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stop()
			return nil, nil, fmt.Errorf("the floor server wrote no kubeconfig in %s", dir)
		}
	}
	s, err := newSide("floor", kubeconfig, filepath.Join(dir, "home"), cmd.Process.Pid)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return s, stop, nil
}
