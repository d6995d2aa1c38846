package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// startServe runs `bundlectl serve` on the upgraded archive and waits for
// its kubeconfig; the function returned stops it.
func (r *runner) startServe(ctx context.Context, bundle string) (func(), error) {
	kubeconfig := filepath.Join(r.dir, "serve.kubeconfig")
	cmd := exec.Command(r.o.Bundlectl, "serve", "--write-kubeconfig", kubeconfig, bundle)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(kubeconfig); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			stop()
			return nil, ctx.Err()
		case err := <-exited:
			return nil, fmt.Errorf("bundlectl serve exited: %v\n%s", err, out.String())
		case <-tick.C:
		}
	}
	// The file appears complete: serve writes it to a temporary name
	// first? Read until it parses.
	var err error
	for range 50 {
		if r.served, err = newSide("bundlectl", kubeconfig, filepath.Join(r.dir, "home-bundlectl"), cmd.Process.Pid); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// checkSame makes sure both sides serve the same objects: the same number
// of rows, the same names, namespaces, READY and STATUS columns in
// kubectl's output, and about the same bytes per object. It also warms
// both: connections, discovery caches, the servers' first requests.
func (r *runner) checkSame(ctx context.Context) error {
	var outs [2]bytes.Buffer
	var listBytes, tableBytes, kubectlTableBytes [2]int
	for i, s := range []*side{r.served, r.peer} {
		c, err := s.newClient(r.kubectlUA)
		if err != nil {
			return err
		}
		body, err := s.get(ctx, c, "/api/v1/pods", kubectlAccept)
		c.CloseIdleConnections()
		if err != nil {
			return err
		}
		kubectlTableBytes[i] = len(body)
		if err := s.kubectl(ctx, r.o.Kubectl, &outs[i], "get", "pods", "-A"); err != nil {
			return err
		}
		body, err = s.get(ctx, s.client, "/api/v1/pods", "application/json")
		if err != nil {
			return err
		}
		listBytes[i] = len(body)
		body, err = s.get(ctx, s.client, "/api/v1/pods", kubectlAccept)
		if err != nil {
			return err
		}
		tableBytes[i] = len(body)
		rows, err := tableRows(body)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if want := r.rep.Bundle.Objects["Pod"]; rows != want {
			return fmt.Errorf("%s: %d rows in the Table of pods, the bundle has %d pods", s.name, rows, want)
		}
	}
	a, b := columns(outs[0].String(), 4), columns(outs[1].String(), 4)
	if a != b {
		return fmt.Errorf("kubectl get pods -A: NAMESPACE, NAME, READY and STATUS differ between bundlectl and kube-apiserver:\n%s", firstDiff(a, b))
	}
	// Every generated pod has managedFields: a Table for kubectl that is
	// not smaller means bundlectl did not take the client for kubectl, and
	// the kubectl figures would measure nothing of their own.
	if kubectlTableBytes[0] >= tableBytes[0] {
		return fmt.Errorf("bundlectl answered User-Agent %q with a Table of %d bytes, not smaller than the %d of another client's", r.kubectlUA, kubectlTableBytes[0], tableBytes[0])
	}
	pods := r.rep.Bundle.Objects["Pod"]
	r.rep.Checks = append(r.rep.Checks,
		fmt.Sprintf("`kubectl get pods -A` prints the same NAMESPACE, NAME, READY and STATUS columns from both (%d lines)", strings.Count(a, "\n")),
		fmt.Sprintf("bytes per pod: JSON list %d (bundlectl) and %d (kube-apiserver); Table row with its metadata %d and %d; the same for kubectl's User-Agent (%s) %d and %d",
			listBytes[0]/pods, listBytes[1]/pods, tableBytes[0]/pods, tableBytes[1]/pods, r.kubectlUA, kubectlTableBytes[0]/pods, kubectlTableBytes[1]/pods))
	return nil
}

// columns keeps the first n columns of kubectl's table output.
func columns(out string, n int) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > n {
			f = f[:n]
		}
		b.WriteString(strings.Join(f, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  bundlectl:      %s\n  kube-apiserver: %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(al), len(bl))
}

// measureServers measures every server figure, alternately.
func (r *runner) measureServers(ctx context.Context) error {
	o := r.o
	get := func(path, accept string) func(s *side, _ int) (float64, error) {
		return func(s *side, _ int) (float64, error) {
			return timed(func() error { _, err := s.get(ctx, s.client, path, accept); return err })
		}
	}
	gets, err := r.getPaths(ctx)
	if err != nil {
		return err
	}
	stopFloor, err := r.startFloorFor(ctx, gets)
	if err != nil {
		return err
	}
	defer stopFloor()
	kubectlClient, concurrentClients, closeClients, err := r.warmClients(ctx)
	defer closeClients()
	if err != nil {
		return err
	}
	tenX := Target{MinRatio: 10, Text: "ratio ≥ 10"}
	if _, err := r.figure("table-list-s", "a Table LIST of all pods with kubectl's Accept header, unchunked", o.Reps, tenX, true,
		get("/api/v1/pods", kubectlAccept)); err != nil {
		return err
	}
	if _, err := r.figure("table-list-kubectl-s", "the same with kubectl's User-Agent as well, which bundlectl answers with row metadata without managedFields (kubectl prints nothing of them) and kube-apiserver as any client", o.Reps, Target{}, true,
		func(s *side, _ int) (float64, error) {
			return timed(func() error { _, err := s.get(ctx, kubectlClient[s], "/api/v1/pods", kubectlAccept); return err })
		}); err != nil {
		return err
	}
	if _, err := r.figure("table-list-chunked-s", "the same, in pages of 500 as kubectl asks (limit=500, then continue)", o.Reps, Target{}, false,
		func(s *side, _ int) (float64, error) {
			return timed(func() error { _, err := s.chunked(ctx, "/api/v1/pods", kubectlAccept, kubectlChunk); return err })
		}); err != nil {
		return err
	}
	if _, err := r.figure("json-list-s", "a JSON LIST of all pods (application/json)", o.Reps, tenX, true,
		get("/api/v1/pods", "application/json")); err != nil {
		return err
	}
	// Each pod's GET getRounds times: a GET is a fraction of a
	// millisecond, and the median of one GET per pod moved by 0.2 of the
	// ratio to the floor between runs.
	if _, err := r.figure("table-get-s", fmt.Sprintf("a single Table GET of a pod, median of %d GETs of %d pods", getRounds*len(gets), len(gets)), getRounds*len(gets), Target{MinRatio: 5, Text: "ratio ≥ 5"}, true,
		func(s *side, i int) (float64, error) { return get(gets[i%len(gets)], kubectlAccept)(s, i) }); err != nil {
		return err
	}
	node, app, err := r.selectors(ctx)
	if err != nil {
		return err
	}
	if _, err := r.figure("field-selected-s", "a Table LIST of all pods with fieldSelector=spec.nodeName="+node, o.Reps, Target{}, false,
		get("/api/v1/pods?fieldSelector="+url.QueryEscape("spec.nodeName="+node), kubectlAccept)); err != nil {
		return err
	}
	if _, err := r.figure("label-selected-s", "a Table LIST of all pods with labelSelector=app="+app, o.Reps, Target{}, false,
		get("/api/v1/pods?labelSelector="+url.QueryEscape("app="+app), kubectlAccept)); err != nil {
		return err
	}
	for _, c := range []struct {
		suffix, what string
		target       Target
		ua           string
	}{
		{"", "", Target{MinRatio: 20, Text: "ratio ≥ 20 (20× the requests per second)"}, benchUserAgent},
		{"-kubectl", ", with kubectl's User-Agent as well", Target{}, r.kubectlUA},
	} {
		clients := concurrentClients[c.ua]
		fig, err := r.figure(fmt.Sprintf("table-list-%d-concurrent%s-s", o.Concurrent, c.suffix),
			fmt.Sprintf("%d Table LISTs of all pods at once, each on its own connection%s: the time until the last ends", o.Concurrent, c.what),
			o.ConcurrentReps, c.target, true,
			func(s *side, _ int) (float64, error) { return s.concurrent(ctx, clients[s], "/api/v1/pods") })
		if err != nil {
			return err
		}
		fig.Extra = fmt.Sprintf("%.1f and %.2f requests/s", float64(o.Concurrent)/fig.Bundlectl, float64(o.Concurrent)/fig.PeerValue)
	}
	closeClients()
	if _, err := r.figure("kubectl-get-pods-A-s", "the wall time of `kubectl get pods -A` (warm discovery cache, output to a pipe)", o.KubectlReps,
		Target{MaxValue: 2.5, Text: "≤ 2.5 s"}, false,
		func(s *side, _ int) (float64, error) {
			return timed(func() error { return s.kubectl(ctx, r.o.Kubectl, io.Discard, "get", "pods", "-A") })
		}); err != nil {
		return err
	}
	return r.rssFigure()
}

// startFloorFor starts the floor server (Options.Floor) for the requests
// the figures make, gets among them; stop stops it.
func (r *runner) startFloorFor(ctx context.Context, gets []string) (stop func(), err error) {
	if r.o.Floor == nil {
		return func() {}, nil
	}
	// /version warms the clients' connections.
	requests := []floorRequest{{"/api/v1/pods", "application/json", benchUserAgent}}
	for _, ua := range []string{benchUserAgent, r.kubectlUA} {
		requests = append(requests, floorRequest{"/api/v1/pods", kubectlAccept, ua}, floorRequest{"/version", "application/json", ua})
	}
	for _, p := range gets {
		requests = append(requests, floorRequest{p, kubectlAccept, benchUserAgent})
	}
	floor, stop, err := r.startFloor(ctx, requests)
	if err != nil {
		return nil, err
	}
	r.floor = floor
	return stop, nil
}

// warmClients makes each side's client with kubectl's User-Agent, and the
// concurrent figures' clients (a connection each), warmed by a GET of
// /version; closeClients closes their connections.
func (r *runner) warmClients(ctx context.Context) (kubectlClient map[*side]*http.Client, concurrentClients map[string]map[*side][]*http.Client, closeClients func(), err error) {
	kubectlClient = map[*side]*http.Client{}
	concurrentClients = map[string]map[*side][]*http.Client{benchUserAgent: {}, r.kubectlUA: {}}
	// The servers' RSS is measured without these connections.
	closeClients = func() {
		for _, c := range kubectlClient {
			c.CloseIdleConnections()
		}
		for _, bySide := range concurrentClients {
			for _, cs := range bySide {
				for _, c := range cs {
					c.CloseIdleConnections()
				}
			}
		}
	}
	for _, s := range []*side{r.served, r.peer, r.floor} {
		if s == nil {
			continue
		}
		newClient := func(ua string) (*http.Client, error) {
			c, err := s.newClient(ua)
			if err != nil {
				return nil, err
			}
			_, err = s.get(ctx, c, "/version", "application/json")
			return c, err
		}
		if kubectlClient[s], err = newClient(r.kubectlUA); err != nil {
			return nil, nil, closeClients, err
		}
		for ua, clients := range concurrentClients {
			for range r.o.Concurrent {
				c, err := newClient(ua)
				if err != nil {
					return nil, nil, closeClients, err
				}
				clients[s] = append(clients[s], c)
			}
		}
	}
	return kubectlClient, concurrentClients, closeClients, nil
}

// rssFigure adds each server's resident memory after the run.
func (r *runner) rssFigure() error {
	var rss [2]float64
	for i, s := range []*side{r.served, r.peer} {
		v, err := procStatus(s.pid, "VmRSS")
		if err != nil {
			return err
		}
		rss[i] = v
	}
	json := float64(r.rep.Bundle.ResourceBytes) / 1e6
	r.rep.Figures = append(r.rep.Figures, Figure{Name: "rss-MB", What: "each server's resident memory after the run (kube-apiserver without etcd)",
		Peer: "kube-apiserver", Bundlectl: rss[0], PeerValue: rss[1],
		Target: Target{MaxValue: 2 * json, Text: fmt.Sprintf("≤ 2× the bundle's JSON (%.0f MB)", 2*json)}})
	r.logf("%s", r.rep.Figures[len(r.rep.Figures)-1].Line())
	return nil
}

// getRounds is how many times table-get-s asks for each pod of getPaths.
const getRounds = 10

// getPaths picks Gets pods spread over the list, the same on both sides.
func (r *runner) getPaths(ctx context.Context) ([]string, error) {
	body, err := r.served.get(ctx, r.served.client, "/api/v1/pods", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")
	if err != nil {
		return nil, err
	}
	var l struct {
		Items []struct {
			Metadata struct{ Name, Namespace string } `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, err
	}
	if len(l.Items) == 0 {
		return nil, errors.New("no pods")
	}
	var paths []string
	for i := range r.o.Gets {
		m := l.Items[i*len(l.Items)/r.o.Gets].Metadata
		paths = append(paths, "/api/v1/namespaces/"+m.Namespace+"/pods/"+m.Name)
	}
	return paths, nil
}

// selectors picks a node and an app label for the selected lists.
func (r *runner) selectors(ctx context.Context) (node, app string, err error) {
	body, err := r.served.get(ctx, r.served.client, "/api/v1/pods?limit=1", "application/json")
	if err != nil {
		return "", "", err
	}
	var l struct {
		Items []struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				NodeName string `json:"nodeName"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return "", "", err
	}
	if len(l.Items) == 0 || l.Items[0].Spec.NodeName == "" || l.Items[0].Metadata.Labels["app"] == "" {
		return "", "", errors.New("the first pod has no node or no app label")
	}
	return l.Items[0].Spec.NodeName, l.Items[0].Metadata.Labels["app"], nil
}
