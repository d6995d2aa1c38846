package app_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestLoad is the bounded load test of `bundlectl serve`: a generated
// legacy bundle is served as the command serves it (upgraded on load,
// HTTPS on 127.0.0.1 with the run's CA and token), then many clients,
// each with its own HTTP/2 connection built by client-go from the
// kubeconfig, send a mix of kubectl's Table lists (whole and in chunks of
// 500), single gets (JSON and Table), label- and field-selected lists,
// watches and pod logs for a fixed time. Every answer must have the
// status and the bytes the same request got when it was sent alone
// before the load (a watch: the same set of events), no answer may be a
// 5xx, and memory must come back once the load is over.
//
// The default suite runs a short load (200 clients for 3 s on 1,000
// pods); BUNDLECTL_LONG=1 (make load) runs the full one: 200 clients
// for 30 s on contracttest.Large (10,000 pods).
//
// The server runs in this process, so its memory can be measured, and so
// the load raises this process's peak RSS, which on Linux every child
// started later reports as its own (exec hands the parent's high-water
// mark on through vfork). TestHostileBundles bounds its children's peak
// RSS, so TestLoad is in package app_test, whose tests run after those of
// package app, in a file after hostile_test.go.
func TestLoad(t *testing.T) {
	cfg := loadConfig{
		name:     "short",
		bundle:   contracttest.BundleSpec{Pods: 1000, Namespaces: 5, Deployments: 60, Nodes: 10, Events: 500, LogBytesPerPod: 1024, CollectedAt: contracttest.GeneratedAt, Seed: 1},
		clients:  200,
		duration: 3 * time.Second,
		samples:  100,
	}
	if testenv.Long() {
		cfg = loadConfig{name: "long", bundle: contracttest.Large(), clients: 200, duration: 30 * time.Second, samples: 300}
	}
	runLoad(t, cfg)
}

type loadConfig struct {
	name     string
	bundle   contracttest.BundleSpec
	clients  int
	duration time.Duration
	// samples is how many pods get single gets, and how many logs are read.
	samples int
}

// The headers of the two kinds of clients: kubectl asks for Tables (and
// gets rows without managedFields), controllers and informers for JSON.
const (
	loadTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	loadJSONAccept  = "application/json"
	loadKubectlUA   = "kubectl/v1.33.4 (linux/amd64) kubernetes/74cdb42"
	loadInformerUA  = "loadtest/v0.0.0 (linux/amd64) kubernetes/$Format"
)

// The kinds of operations and how often a client picks each.
var loadMix = []struct {
	kind   string
	weight int
}{
	{"table-list", 15},    // kubectl get pods -n NS, kubectl get deploy -A (whole lists)
	{"table-chunked", 10}, // kubectl get pods -A: pages of 500 following continue
	{"get-json", 20},      // client-go Get
	{"get-table", 10},     // kubectl get pod NAME
	{"selector", 20},      // -l and --field-selector, Table and JSON
	{"watch", 10},         // watch=1: the initial ADDED events, then the client leaves
	{"log", 15},           // kubectl logs
}

// loadReq is one request of the load and what it must get.
type loadReq struct {
	path, accept, ua string
	status           int
	watch            bool
	want             []byte     // the body, for a request that is not a watch
	events           [][32]byte // a watch's events: SHA-256 of each line, sorted
}

// loadOp is what a client does at once: one request, or the pages of a
// chunked list in order.
type loadOp struct {
	reqs []*loadReq
}

func runLoad(t *testing.T, cfg loadConfig) {
	// On Linux a child process reports as its own peak RSS (wait4's
	// maxrss) the peak of this process when it started it: exec hands the
	// parent's high-water mark on through vfork. Tests started after this
	// one bound their children's peak, so once the load is over, and the
	// server stopped, the mark is reset to what is resident (registered
	// first, this runs last).
	t.Cleanup(func() {
		settledRSS()
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	})
	setupStart := time.Now()
	dir := t.TempDir()
	bundlePath := filepath.Join(dir, contracttest.BundleRoot(cfg.bundle.CollectedAt)+".tar.gz")
	stats, err := contracttest.WriteBundleFile(bundlePath, cfg.bundle)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := app.ServeForLoad(t, bundlePath)
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rc.Host, "https://127.0.0.1:") || rc.BearerToken == "" || len(rc.CAData) == 0 {
		t.Fatalf("serve's kubeconfig is not loopback HTTPS with a token and a CA: host %q", rc.Host)
	}
	p := &loadPlanner{t: t, cfg: cfg, host: rc.Host, hc: loadHTTPClient(t, rc), stats: stats}
	p.plan(bundlePath)
	utilnet.CloseIdleConnectionsFor(p.hc.Transport)
	var distinct, pages int
	for _, ops := range p.ops {
		for _, op := range ops {
			distinct += len(op.reqs)
			if len(op.reqs) > 1 {
				pages += len(op.reqs)
			}
		}
	}
	t.Logf("%s load: %d pods in %d namespaces (%.1f MB of resource JSON, %d logs), %d distinct requests (%d chunk pages), %d clients for %s; setup %s",
		cfg.name, stats.Objects["Pod"], cfg.bundle.Namespaces, float64(stats.ResourceBytes)/(1<<20), stats.Logs, distinct, pages, cfg.clients, cfg.duration, time.Since(setupStart).Round(time.Millisecond))

	clients := make([]*http.Client, cfg.clients)
	for i := range clients {
		clients[i] = loadHTTPClient(t, rc)
	}
	defer func() {
		for _, c := range clients {
			utilnet.CloseIdleConnectionsFor(c.Transport)
		}
	}()

	goroutinesBefore := runtime.NumGoroutine()
	rssBefore := settledRSS()
	hwmReset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil

	// Every client connects first (TLS, HTTP/2), so that the figures are
	// those of requests on open connections, as kubectl and informers
	// send them.
	connectStart := time.Now()
	var wg sync.WaitGroup
	connectErrs := make([]error, cfg.clients)
	for i := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			connectErrs[i] = loadConnect(clients[i], rc.Host)
		}()
	}
	wg.Wait()
	if err := errors.Join(connectErrs...); err != nil {
		t.Fatalf("connecting: %v", err)
	}
	connected := time.Since(connectStart)

	var (
		results = make([]map[string]*loadStats, cfg.clients)
		fails   = &loadFailures{}
	)
	start := time.Now()
	end := start.Add(cfg.duration)
	for i := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = p.client(clients[i], uint64(i), end, fails)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	peak := procStatusMB("VmHWM")

	total := map[string]*loadStats{}
	for _, r := range results {
		for kind, s := range r {
			if total[kind] == nil {
				total[kind] = &loadStats{}
			}
			total[kind].merge(s)
		}
	}
	all := &loadStats{}
	kinds := make([]string, 0, len(loadMix))
	for _, m := range loadMix {
		kinds = append(kinds, m.kind)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "%-14s %8s %9s %9s %9s %8s %8s %8s %9s\n", "kind", "ops", "requests", "req/s", "MB/s", "p50", "p99", "max", "gzipped")
	for _, kind := range kinds {
		s := total[kind]
		if s == nil {
			t.Errorf("no %s operation ran", kind)
			continue
		}
		all.merge(s)
		s.line(&report, kind, elapsed)
	}
	all.line(&report, "total", elapsed)
	t.Logf("%d clients (connected in %s) for %s:\n%s", cfg.clients, connected.Round(time.Millisecond), elapsed.Round(time.Millisecond), report.String())

	// Every client has left: the server must let go of their connections,
	// watches and buffers.
	for _, c := range clients {
		utilnet.CloseIdleConnectionsFor(c.Transport)
	}
	goroutinesAfter := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); goroutinesAfter > goroutinesBefore+loadGoroutineSlack && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		goroutinesAfter = runtime.NumGoroutine()
	}
	rssAfter := settledRSS()
	peakNote := "not measured (/proc/self/clear_refs not writable)"
	if hwmReset && peak > 0 {
		peakNote = fmt.Sprintf("%.0f MB (+%.0f MB)", peak, peak-rssBefore)
	}
	t.Logf("RSS before the load %.0f MB, peak during it %s, after it %.0f MB (%+.0f MB); goroutines %d before, %d after",
		rssBefore, peakNote, rssAfter, rssAfter-rssBefore, goroutinesBefore, goroutinesAfter)

	for _, kind := range kinds {
		if s := total[kind]; s != nil {
			for _, reason := range slices.Sorted(maps.Keys(s.fails)) {
				t.Errorf("%s: %d requests failed (%s)", kind, s.fails[reason], reason)
			}
		}
	}
	for _, f := range fails.first {
		t.Errorf("first failures: %s", f)
	}
	if all.reqs == 0 {
		t.Fatal("no request was answered")
	}
	if goroutinesAfter > goroutinesBefore+loadGoroutineSlack {
		t.Errorf("%d goroutines after the load, %d before: the server keeps something of the clients that left", goroutinesAfter, goroutinesBefore)
	}
	switch {
	case raceEnabled():
		t.Log("memory bounds not checked: the race detector's shadow memory is never handed back")
	case rssBefore > 0:
		if grown := rssAfter - rssBefore; grown > loadRetainedMB {
			t.Errorf("RSS grew by %.0f MB over the load (%.0f to %.0f MB), more than %d MB", grown, rssBefore, rssAfter, loadRetainedMB)
		}
		if bound := rssBefore + loadPeakPerClientMB*float64(cfg.clients); hwmReset && peak-rssBefore > bound {
			t.Errorf("RSS peaked at %.0f MB during the load, %.0f MB over the %.0f MB before it: more than %.0f MB", peak, peak-rssBefore, rssBefore, bound)
		}
	}
}

// raceEnabled says whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// The bounds on memory. The server answers from its index without
// decoding, so a request holds at most its response's slice headers, a
// compressor and its connection's buffers: what the load adds grows with
// the clients, never with the requests served.
//
//   - After the load (a GC, memory handed back to the OS) RSS must be back
//     within loadRetainedMB of where it was before: pools and a few
//     buffers. A leak of one body per request would be gigabytes over the
//     long run's 20,000 requests; a watch or connection kept after its
//     client left shows in the goroutines, which must be back too.
//   - During the load RSS may grow by what was resident before (GOGC=100
//     lets the heap grow to twice what is live before it collects) plus
//     loadPeakPerClientMB for each client and its request in flight (the
//     clients run in this process too): about 630 MB for the long run
//     (230 MB resident before), whose resource JSON alone is 118 MB: far
//     less than a copy of a large list per client.
const (
	loadRetainedMB      = 64
	loadPeakPerClientMB = 2
	loadGoroutineSlack  = 20
	loadRequestTimeout  = 2 * time.Minute
)

// loadHTTPClient is a client-go HTTP client (bearer token, the run's CA,
// HTTP/2, gzip accepted) with a connection of its own: client-go shares
// one transport between configs that are alike, unless a proxy function
// is set.
func loadHTTPClient(t *testing.T, rc *rest.Config) *http.Client {
	c := rest.CopyConfig(rc)
	c.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		t.Fatal(err)
	}
	return hc
}

// loadConnect opens a client's connection with a request of its own.
func loadConnect(hc *http.Client, host string) error {
	resp, err := hc.Get(host + "/version")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		return fmt.Errorf("GET /version: %s %s", resp.Proto, resp.Status)
	}
	return nil
}

// loadPlanner builds every operation of the load from what the bundle
// holds, and the answer each request must get.
type loadPlanner struct {
	t     *testing.T
	cfg   loadConfig
	host  string
	hc    *http.Client
	stats contracttest.BundleStats
	ops   map[string][]loadOp
	// watches are fetched together: each lasts its timeoutSeconds.
	watches []*loadReq
}

type loadPod struct {
	Metadata struct {
		Name, Namespace string
		Labels          map[string]string
	}
	Spec struct {
		NodeName   string
		Containers []struct{ Name string }
	}
	Status struct{ Phase string }
}

func (p *loadPlanner) add(kind string, reqs ...*loadReq) {
	if p.ops == nil {
		p.ops = map[string][]loadOp{}
	}
	p.ops[kind] = append(p.ops[kind], loadOp{reqs: reqs})
}

func (p *loadPlanner) plan(bundlePath string) {
	t := p.t
	// The pods, as an informer lists them.
	podList := &loadReq{path: "/api/v1/pods", accept: loadJSONAccept, ua: loadInformerUA, status: http.StatusOK}
	p.expect(podList)
	var list struct{ Items []loadPod }
	if err := json.Unmarshal(podList.want, &list); err != nil {
		t.Fatal(err)
	}
	pods := list.Items
	if len(pods) != p.stats.Objects["Pod"] {
		t.Fatalf("serve lists %d pods, the bundle has %d", len(pods), p.stats.Objects["Pod"])
	}
	var namespaces, nodes, apps []string
	seen := map[string]bool{}
	for _, pod := range pods {
		for _, v := range []struct {
			key string
			to  *[]string
		}{{"ns/" + pod.Metadata.Namespace, &namespaces}, {"node/" + pod.Spec.NodeName, &nodes}, {"app/" + pod.Metadata.Labels["app"], &apps}} {
			if !seen[v.key] {
				seen[v.key] = true
				*v.to = append(*v.to, strings.SplitN(v.key, "/", 2)[1])
			}
		}
	}
	podsIn := func(ns string) int {
		n := 0
		for _, pod := range pods {
			if pod.Metadata.Namespace == ns {
				n++
			}
		}
		return n
	}
	table := func(path string) *loadReq {
		return &loadReq{path: path, accept: loadTableAccept, ua: loadKubectlUA, status: http.StatusOK}
	}
	jsonReq := func(path string) *loadReq {
		return &loadReq{path: path, accept: loadJSONAccept, ua: loadInformerUA, status: http.StatusOK}
	}

	// Whole Table lists.
	q := table("/api/v1/pods")
	p.expect(q)
	p.wantRows(q, len(pods))
	p.add("table-list", q)
	for _, ns := range namespaces {
		q := table("/api/v1/namespaces/" + ns + "/pods")
		p.expect(q)
		p.wantRows(q, podsIn(ns))
		p.add("table-list", q)
	}
	for _, path := range []string{"/apis/apps/v1/deployments", "/api/v1/nodes", "/api/v1/events", "/apis/apps/v1/namespaces/" + namespaces[0] + "/replicasets"} {
		q := table(path)
		p.expect(q)
		p.add("table-list", q)
	}

	// Chunked Table lists, as kubectl asks for them by default.
	p.add("table-chunked", p.chunked("/api/v1/pods", len(pods))...)
	p.add("table-chunked", p.chunked("/api/v1/namespaces/"+namespaces[0]+"/pods", podsIn(namespaces[0]))...)
	p.add("table-chunked", p.chunked("/api/v1/events", p.stats.Objects["Event"])...)

	// Single gets of a sample of pods, and of a pod that does not exist.
	step := max(1, len(pods)/p.cfg.samples)
	for i := 0; i < len(pods); i += step {
		pod := pods[i]
		path := "/api/v1/namespaces/" + pod.Metadata.Namespace + "/pods/" + pod.Metadata.Name
		q := jsonReq(path)
		p.expect(q)
		var got loadPod
		if err := json.Unmarshal(q.want, &got); err != nil || got.Metadata.Name != pod.Metadata.Name {
			t.Fatalf("GET %s: %v: not the pod", path, err)
		}
		p.add("get-json", q)
		q = table(path)
		p.expect(q)
		p.wantRows(q, 1)
		p.add("get-table", q)
	}
	for _, q := range []*loadReq{jsonReq("/api/v1/namespaces/" + namespaces[0] + "/pods/no-such-pod"), table("/api/v1/namespaces/" + namespaces[0] + "/pods/no-such-pod")} {
		q.status = http.StatusNotFound
		p.expect(q)
		kind := "get-json"
		if q.accept == loadTableAccept {
			kind = "get-table"
		}
		p.add(kind, q)
	}

	// Label- and field-selected lists, across namespaces and in one.
	sel := func(path string, query url.Values) string { return path + "?" + query.Encode() }
	var selected []string
	for _, a := range apps[:min(6, len(apps))] {
		selected = append(selected, sel("/api/v1/pods", url.Values{"labelSelector": {"app=" + a}}))
	}
	selected = append(selected,
		sel("/api/v1/pods", url.Values{"labelSelector": {"app in (" + strings.Join(apps[:min(3, len(apps))], ",") + ")"}}),
		sel("/api/v1/pods", url.Values{"labelSelector": {"app!=" + apps[0] + ",pod-template-hash"}}),
		sel("/api/v1/pods", url.Values{"fieldSelector": {"status.phase!=Running"}}),
		sel("/api/v1/namespaces/"+namespaces[0]+"/pods", url.Values{"fieldSelector": {"status.phase=Running"}, "labelSelector": {"app=" + apps[0]}}),
		sel("/api/v1/events", url.Values{"fieldSelector": {"type=Warning"}}),
	)
	for _, node := range nodes[:min(4, len(nodes))] {
		selected = append(selected, sel("/api/v1/pods", url.Values{"fieldSelector": {"spec.nodeName=" + node}}))
	}
	for i, path := range selected {
		for _, q := range []*loadReq{table(path), jsonReq(path)} {
			if q.accept == loadJSONAccept && i%2 == 1 {
				continue
			}
			p.expect(q)
			p.add("selector", q)
		}
	}

	// Watches: the initial events, in every form.
	watch := func(path string, query url.Values, accept string, n int) {
		query.Set("watch", "1")
		query.Set("timeoutSeconds", "1")
		q := &loadReq{path: path + "?" + query.Encode(), accept: accept, ua: loadInformerUA, status: http.StatusOK, watch: true}
		if accept == loadTableAccept {
			q.ua = loadKubectlUA
		}
		q.events = make([][32]byte, n) // the count the watch must have, checked once fetched
		p.watches = append(p.watches, q)
		p.add("watch", q)
	}
	for _, ns := range namespaces[:min(3, len(namespaces))] {
		watch("/api/v1/namespaces/"+ns+"/pods", url.Values{}, loadJSONAccept, podsIn(ns))
	}
	watch("/api/v1/namespaces/"+namespaces[0]+"/pods", url.Values{}, loadTableAccept, podsIn(namespaces[0]))
	watch("/api/v1/namespaces/"+namespaces[1%len(namespaces)]+"/pods", url.Values{"sendInitialEvents": {"true"}, "allowWatchBookmarks": {"true"}, "resourceVersionMatch": {"NotOlderThan"}}, loadJSONAccept, podsIn(namespaces[1%len(namespaces)])+1)
	appPods := 0
	for _, pod := range pods {
		if pod.Metadata.Labels["app"] == apps[0] {
			appPods++
		}
	}
	watch("/api/v1/pods", url.Values{"labelSelector": {"app=" + apps[0]}}, loadJSONAccept, appPods)
	watch("/api/v1/namespaces/"+pods[0].Metadata.Namespace+"/pods", url.Values{"fieldSelector": {"metadata.name=" + pods[0].Metadata.Name}}, loadTableAccept, 1)
	p.expectWatches()

	// Logs: a sample of those the bundle collected, whole and tailed, and
	// one it did not collect.
	logs := p.bundleLogs(bundlePath)
	if len(logs) == 0 {
		t.Fatal("the generated bundle has no logs")
	}
	logStep := max(1, len(logs)/p.cfg.samples)
	for i := 0; i < len(logs); i += logStep {
		l := logs[i]
		query := url.Values{"container": {l.container}}
		if l.previous {
			query.Set("previous", "true")
		}
		base := "/api/v1/namespaces/" + l.namespace + "/pods/" + l.pod + "/log"
		q := &loadReq{path: base + "?" + query.Encode(), accept: loadJSONAccept, ua: loadKubectlUA, status: http.StatusOK}
		p.expect(q)
		if !bytes.Equal(q.want, l.data) {
			t.Fatalf("GET %s: not the log the bundle holds (%d bytes, want %d)", q.path, len(q.want), len(l.data))
		}
		p.add("log", q)
		if i%2 == 0 {
			query.Set("tailLines", "10")
			q := &loadReq{path: base + "?" + query.Encode(), accept: loadJSONAccept, ua: loadKubectlUA, status: http.StatusOK}
			p.expect(q)
			if !bytes.HasSuffix(l.data, q.want) || bytes.Count(q.want, []byte("\n")) > 10 {
				t.Fatalf("GET %s: not the last 10 lines of the log", q.path)
			}
			p.add("log", q)
		}
	}
	withLogs := map[string]bool{}
	for _, l := range logs {
		withLogs[l.namespace+"/"+l.pod] = true
	}
	for _, pod := range pods {
		if !withLogs[pod.Metadata.Namespace+"/"+pod.Metadata.Name] {
			q := &loadReq{path: "/api/v1/namespaces/" + pod.Metadata.Namespace + "/pods/" + pod.Metadata.Name + "/log?container=" + pod.Spec.Containers[0].Name,
				accept: loadJSONAccept, ua: loadKubectlUA, status: http.StatusNotFound}
			p.expect(q)
			p.add("log", q)
			break
		}
	}
	for _, m := range loadMix {
		if len(p.ops[m.kind]) == 0 {
			t.Fatalf("no %s operation planned", m.kind)
		}
	}
}

// expect sends a request alone and keeps its answer as the one it must
// get under load.
func (p *loadPlanner) expect(q *loadReq) {
	p.t.Helper()
	status, body, err := p.fetch(q)
	if err != nil {
		p.t.Fatalf("GET %s: %v", q.path, err)
	}
	if status != q.status {
		p.t.Fatalf("GET %s (Accept %s): %d, want %d\n%.2000s", q.path, q.accept, status, q.status, body)
	}
	q.want = body
}

func (p *loadPlanner) fetch(q *loadReq) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, p.host+q.path, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", q.accept)
	req.Header.Set("User-Agent", q.ua)
	resp, err := p.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// expectWatches fetches every watch at once, each to its end (the server
// closes it after timeoutSeconds), and keeps its events.
func (p *loadPlanner) expectWatches() {
	errs := make([]error, len(p.watches))
	var wg sync.WaitGroup
	for i, q := range p.watches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, body, err := p.fetch(q)
			switch {
			case err != nil:
				errs[i] = err
				return
			case status != q.status:
				errs[i] = fmt.Errorf("%d, want %d\n%.2000s", status, q.status, body)
				return
			}
			lines := bytes.SplitAfter(body, []byte("\n"))
			if len(lines[len(lines)-1]) == 0 {
				lines = lines[:len(lines)-1]
			}
			if len(lines) != len(q.events) {
				errs[i] = fmt.Errorf("%d events, want %d", len(lines), len(q.events))
				return
			}
			for j, l := range lines {
				var ev struct{ Type string }
				if err := json.Unmarshal(l, &ev); err != nil || ev.Type != "ADDED" && !(ev.Type == "BOOKMARK" && j == len(lines)-1) {
					errs[i] = fmt.Errorf("event %d is not an ADDED event (nor the last a BOOKMARK): %v %.200s", j, err, l)
					return
				}
				q.events[j] = sha256.Sum256(l)
			}
			sortSums(q.events)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			p.t.Fatalf("watch %s: %v", p.watches[i].path, err)
		}
	}
}

// chunked walks a Table list in pages of 500, as kubectl does.
func (p *loadPlanner) chunked(path string, objects int) []*loadReq {
	var reqs []*loadReq
	rows := 0
	cont := ""
	for {
		query := url.Values{"limit": {"500"}}
		if cont != "" {
			query.Set("continue", cont)
		}
		q := &loadReq{path: path + "?" + query.Encode(), accept: loadTableAccept, ua: loadKubectlUA, status: http.StatusOK}
		p.expect(q)
		reqs = append(reqs, q)
		var page struct {
			Metadata struct{ Continue string }
			Rows     []json.RawMessage
		}
		if err := json.Unmarshal(q.want, &page); err != nil {
			p.t.Fatalf("GET %s: %v", q.path, err)
		}
		rows += len(page.Rows)
		if cont = page.Metadata.Continue; cont == "" {
			break
		}
	}
	if rows != objects {
		p.t.Fatalf("%s in pages of 500: %d rows, the bundle has %d objects", path, rows, objects)
	}
	return reqs
}

func (p *loadPlanner) wantRows(q *loadReq, n int) {
	p.t.Helper()
	var tbl struct {
		Kind string
		Rows []json.RawMessage
	}
	if err := json.Unmarshal(q.want, &tbl); err != nil || tbl.Kind != "Table" || len(tbl.Rows) != n {
		p.t.Fatalf("GET %s: %s of %d rows (%v), want a Table of %d", q.path, tbl.Kind, len(tbl.Rows), err, n)
	}
}

type bundleLog struct {
	namespace, pod, container string
	previous                  bool
	data                      []byte
}

// bundleLogs reads every container log of the bundle, in archive order
// (the generator's, always the same).
func (p *loadPlanner) bundleLogs(path string) []bundleLog {
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		p.t.Fatal(err)
	}
	defer b.Close()
	var logs []bundleLog
	err = b.Walk(func(e *contract.Entry) error {
		rest, ok := strings.CutPrefix(e.Rel, contract.ClusterResourcesDir+"/pods/logs/")
		if !ok || !e.IsRegular() {
			return nil
		}
		parts := strings.Split(rest, "/")
		if len(parts) != 3 || !strings.HasSuffix(parts[2], ".log") {
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			return err
		}
		container, previous := strings.CutSuffix(strings.TrimSuffix(parts[2], ".log"), "-previous")
		logs = append(logs, bundleLog{namespace: parts[0], pod: parts[1], container: container, previous: previous, data: data})
		return nil
	})
	if err != nil {
		p.t.Fatal(err)
	}
	return logs
}

// client runs one client until end: it picks an operation by the mix,
// runs it, checks every answer and counts.
func (p *loadPlanner) client(hc *http.Client, seed uint64, end time.Time, fails *loadFailures) map[string]*loadStats {
	r := rand.New(rand.NewPCG(seed, 0x10ad))
	total := 0
	for _, m := range loadMix {
		total += m.weight
	}
	stats := map[string]*loadStats{}
	buf := make([]byte, 32<<10)
	for time.Now().Before(end) {
		n := r.IntN(total)
		kind := ""
		for _, m := range loadMix {
			if n < m.weight {
				kind = m.kind
				break
			}
			n -= m.weight
		}
		ops := p.ops[kind]
		op := ops[r.IntN(len(ops))]
		s := stats[kind]
		if s == nil {
			s = &loadStats{fails: map[string]int{}}
			stats[kind] = s
		}
		s.ops++
		for _, q := range op.reqs {
			t0 := time.Now()
			n, gz, reason, err := p.send(hc, q, buf)
			s.lat = append(s.lat, time.Since(t0))
			s.reqs++
			s.bytes += n
			if gz {
				s.gzipped++
			}
			if reason != "" {
				s.fails[reason]++
				fails.add(fmt.Sprintf("%s GET %s (Accept %s): %s: %v", kind, q.path, q.accept, reason, err))
				break
			}
		}
	}
	return stats
}

// send sends one request and checks its answer: the failure's reason is
// "" when it is the one expected.
func (p *loadPlanner) send(hc *http.Client, q *loadReq, buf []byte) (n int64, gzipped bool, reason string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), loadRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.host+q.path, nil)
	if err != nil {
		return 0, false, "request", err
	}
	req.Header.Set("Accept", q.accept)
	req.Header.Set("User-Agent", q.ua)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, false, "transport error", err
	}
	defer resp.Body.Close()
	gzipped = resp.Uncompressed
	switch {
	case resp.StatusCode >= 500:
		return 0, gzipped, "5xx", fmt.Errorf("status %d", resp.StatusCode)
	case resp.StatusCode != q.status:
		return 0, gzipped, "wrong status", fmt.Errorf("status %d, want %d", resp.StatusCode, q.status)
	case resp.ProtoMajor != 2:
		return 0, gzipped, "not HTTP/2", errors.New(resp.Proto)
	}
	if q.watch {
		// Read the initial events, then leave, as kubectl get -w does on
		// Ctrl-C, before the server's timeout.
		br := bufio.NewReaderSize(resp.Body, 32<<10)
		h := sha256.New()
		got := make([][32]byte, 0, len(q.events))
		for len(got) < len(q.events) {
			frag, err := br.ReadSlice('\n')
			h.Write(frag)
			n += int64(len(frag))
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				return n, gzipped, "wrong body", fmt.Errorf("%d events of %d, then %w", len(got), len(q.events), err)
			}
			var sum [32]byte
			h.Sum(sum[:0])
			h.Reset()
			got = append(got, sum)
		}
		cancel()
		sortSums(got)
		if !slices.Equal(got, q.events) {
			return n, gzipped, "wrong body", errors.New("not the events of the same watch alone")
		}
		return n, gzipped, "", nil
	}
	c := &compareWriter{want: q.want, at: -1}
	n, err = io.CopyBuffer(c, resp.Body, buf)
	switch {
	case err != nil:
		return n, gzipped, "transport error", err
	case c.at >= 0 || n != int64(len(c.want)):
		at := c.at
		if at < 0 {
			at = min(n, int64(len(c.want)))
		}
		return n, gzipped, "wrong body", fmt.Errorf("%d bytes, not the %d of the same request alone (they differ from byte %d)", n, len(c.want), at)
	}
	return n, gzipped, "", nil
}

// compareWriter compares what is written with want as it comes, so that
// no client holds a whole body; at is where they first differ, -1 while
// they do not.
type compareWriter struct {
	want []byte
	off  int64
	at   int64
}

func (c *compareWriter) Write(p []byte) (int, error) {
	if c.at < 0 {
		want := c.want[min(c.off, int64(len(c.want))):]
		for i, b := range p {
			if i >= len(want) || want[i] != b {
				c.at = c.off + int64(i)
				break
			}
		}
	}
	c.off += int64(len(p))
	return len(p), nil
}

func sortSums(s [][32]byte) {
	slices.SortFunc(s, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
}

// loadStats counts a kind of operation for one client, or for all.
type loadStats struct {
	ops, reqs, bytes, gzipped int64
	lat                       []time.Duration
	fails                     map[string]int
}

func (s *loadStats) merge(o *loadStats) {
	s.ops += o.ops
	s.reqs += o.reqs
	s.bytes += o.bytes
	s.gzipped += o.gzipped
	s.lat = append(s.lat, o.lat...)
	if s.fails == nil {
		s.fails = map[string]int{}
	}
	for k, v := range o.fails {
		s.fails[k] += v
	}
}

func (s *loadStats) line(w io.Writer, kind string, elapsed time.Duration) {
	slices.Sort(s.lat)
	pct := func(f float64) time.Duration {
		if len(s.lat) == 0 {
			return 0
		}
		return s.lat[min(len(s.lat)-1, int(f*float64(len(s.lat))))].Round(time.Millisecond)
	}
	fmt.Fprintf(w, "%-14s %8d %9d %9.1f %9.1f %8s %8s %8s %9d\n", kind, s.ops, s.reqs, float64(s.reqs)/elapsed.Seconds(),
		float64(s.bytes)/(1<<20)/elapsed.Seconds(), pct(0.5), pct(0.99), pct(1), s.gzipped)
}

// loadFailures keeps the first failures, to tell what went wrong.
type loadFailures struct {
	mu    sync.Mutex
	first []string
}

func (f *loadFailures) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.first) < 10 {
		f.first = append(f.first, s)
	}
}

// settledRSS is the resident set once garbage is collected and free
// memory handed back to the OS, in MB (0 where /proc is not there).
func settledRSS() float64 {
	runtime.GC()
	debug.FreeOSMemory()
	return procStatusMB("VmRSS")
}

// procStatusMB reads a field of /proc/self/status in MB.
func procStatusMB(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
