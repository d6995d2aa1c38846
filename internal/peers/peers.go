package peers

import (
	"bufio"
	"bytes"
	"compress/gzip"
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
	"runtime"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/internal/contracttest"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/peakrss"
)

// Options configure Run.
type Options struct {
	// Bundlectl is the bundlectl binary; upgrade and serve run as child
	// processes, as users run them, so that each has an RSS of its own.
	Bundlectl string
	// PeakRSS is the launcher that measures the upgrade's peak RSS
	// (peakrss.Launcher, built).
	PeakRSS string
	// Kubectl is the real kubectl.
	Kubectl string
	// BinDir holds kube-apiserver and etcd (localapiserver.BinDir); "" is the
	// default cache, built if missing.
	BinDir string
	// WorkDir is where the bundles and the servers' files go; "" is a new
	// temporary folder, removed at the end.
	WorkDir string
	// Spec is the generated bundle, default contracttest.Large().
	Spec *contracttest.BundleSpec
	// Reps is how many times each list figure is measured on each side
	// (default 9); Gets the number of pods asked for one by one (20, each
	// getRounds times); Concurrent the number of concurrent Table LISTs
	// (20), run ConcurrentReps times (3);
	// KubectlReps the timed `kubectl get pods -A` runs (5); UpgradeReps
	// the upgrades and gzip round trips (3).
	Reps, Gets, Concurrent, ConcurrentReps, KubectlReps, UpgradeReps int
	// LoadWorkers write the objects into kube-apiserver (default 24).
	LoadWorkers int
	// Floor, when set, is the command that runs ServeFloor(dir) in a
	// process of its own; the list, GET and concurrent figures then get
	// a floor (floor.go). nil measures no floor.
	Floor func(dir string) *exec.Cmd
	// Log gets the progress; nil discards it.
	Log io.Writer
}

func (o *Options) defaults() {
	if o.Spec == nil {
		s := contracttest.Large()
		o.Spec = &s
	}
	for _, d := range []struct {
		v   *int
		def int
	}{{&o.Reps, 9}, {&o.Gets, 20}, {&o.Concurrent, 20}, {&o.ConcurrentReps, 3}, {&o.KubectlReps, 5}, {&o.UpgradeReps, 3}, {&o.LoadWorkers, 24}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// ServiceClusterIPRange is the peer's service range: the generator gives
// Services addresses in 10.96.0.0/12, the local provider's default is a
// /16 that holds only some of them.
const ServiceClusterIPRange = "10.96.0.0/12"

type runner struct {
	o      Options
	rep    *Report
	dir    string
	phase  time.Time
	served *side
	peer   *side
	floor  *side // nil without Options.Floor
	// kubectlUA is the User-Agent of Options.Kubectl.
	kubectlUA string
}

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.o.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// done ends a phase of the run.
func (r *runner) done(name string) {
	d := time.Since(r.phase)
	r.rep.Phases = append(r.rep.Phases, Phase{Name: name, Duration: d})
	r.logf("%s: %s", name, d.Round(100*time.Millisecond))
	r.phase = time.Now()
}

// Run runs the whole benchmark and returns its report.
func Run(ctx context.Context, o Options) (_ *Report, err error) {
	o.defaults()
	if o.Bundlectl == "" || o.Kubectl == "" || o.PeakRSS == "" {
		return nil, errors.New("peers: Options.Bundlectl, Options.PeakRSS and Options.Kubectl are required")
	}
	r := &runner{o: o, rep: &Report{Date: time.Now()}, phase: time.Now()}
	r.rep.Machine = machine()
	r.rep.Machine.KubectlPath = o.Kubectl
	var v struct {
		ClientVersion struct{ GitVersion, GitCommit, Platform string } `json:"clientVersion"`
	}
	if out, err := exec.CommandContext(ctx, o.Kubectl, "version", "--client", "-o", "json").Output(); err == nil && json.Unmarshal(out, &v) == nil {
		r.rep.Machine.Kubectl = "kubectl " + v.ClientVersion.GitVersion
	}
	r.kubectlUA = kubectlUserAgent(v.ClientVersion.GitVersion, v.ClientVersion.GitCommit, v.ClientVersion.Platform)
	r.rep.Machine.APIServer = localapiserver.Version
	r.dir = o.WorkDir
	if r.dir == "" {
		if r.dir, err = os.MkdirTemp("", "bundlectl-bench-peers-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(r.dir)
	}

	legacy := filepath.Join(r.dir, contracttest.BundleRoot(o.Spec.CollectedAt)+".tar.gz")
	stats, err := contracttest.WriteBundleFile(legacy, *o.Spec)
	if err != nil {
		return nil, fmt.Errorf("generating the bundle: %w", err)
	}
	r.rep.Bundle = BundleInfo{Objects: stats.Objects, ResourceBytes: stats.ResourceBytes, ArchiveBytes: stats.ArchiveBytes, LargestFile: stats.LargestFile}
	r.done("generating the bundle")

	upgraded := filepath.Join(r.dir, "upgraded.tar.gz")
	if err := r.measureUpgrade(ctx, legacy, upgraded); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(upgraded); err == nil {
		r.rep.Bundle.UpgradedBytes = fi.Size()
	}
	r.done("upgrade and gzip round trips")

	objects, err := readObjects(legacy)
	if err != nil {
		return nil, fmt.Errorf("reading the generated objects: %w", err)
	}
	stopPeer, err := r.startPeer(ctx, "bench-peers")
	if stopPeer != nil {
		defer func() {
			if derr := stopPeer(); err == nil {
				err = derr
			}
		}()
	}
	if err != nil {
		return nil, err
	}
	r.done("starting kube-apiserver")
	apiPID := r.peer.pid
	etcdPID, err := childPID("etcd")
	if err != nil {
		return nil, err
	}
	apiCPU, etcdCPU := cpuSeconds(apiPID), cpuSeconds(etcdPID)
	writes, err := loadObjects(ctx, r.peer.cfg, objects, o.LoadWorkers)
	if err != nil {
		return nil, fmt.Errorf("loading the objects into kube-apiserver: %w", err)
	}
	r.rep.Checks = append(r.rep.Checks, fmt.Sprintf("kube-apiserver: %d objects loaded with %d protobuf writes in %s (kube-apiserver used %.0f s of CPU, etcd %.0f s)",
		countObjects(objects), writes, time.Since(r.phase).Round(time.Second), cpuSeconds(apiPID)-apiCPU, cpuSeconds(etcdPID)-etcdCPU))
	objects = nil
	r.done("loading kube-apiserver")

	stopServe, err := r.startServe(ctx, upgraded)
	if err != nil {
		return nil, err
	}
	defer stopServe()
	r.done("starting bundlectl serve")

	if rss, err := procStatus(r.served.pid, "VmRSS"); err == nil {
		r.rep.Checks = append(r.rep.Checks, fmt.Sprintf("bundlectl serve held %.0f MB RSS once loaded, before any request", rss))
	}
	if err := r.checkSame(ctx); err != nil {
		return nil, err
	}
	if err := r.measureServers(ctx); err != nil {
		return nil, err
	}
	r.done("measuring the servers")
	if rss, err := procStatus(etcdPID, "VmRSS"); err == nil {
		r.rep.Checks = append(r.rep.Checks, fmt.Sprintf("etcd, beside kube-apiserver, held %.0f MB RSS at the end (not counted in the peer's RSS)", rss))
	}
	r.rep.Machine.LoadAfter = loadavg()
	return r.rep, nil
}

// startPeer starts the peer, kube-apiserver of the --local provider with
// the release's default APIs, as r.peer. stop deletes it; it is set once
// the provider has been asked to create it, even when that failed.
func (r *runner) startPeer(ctx context.Context, name string) (stop func() error, err error) {
	provider := localapiserver.New(localapiserver.Options{
		Name:         name,
		BinDir:       r.o.BinDir,
		WorkDir:      r.dir,
		FeatureGates: []string{}, // the release's defaults: nothing here needs more
		// The generated Services' addresses.
		APIServerFlags: []string{"--service-cluster-ip-range=" + ServiceClusterIPRange},
		BuildOutput:    r.o.Log,
	})
	c, err := provider.Create(ctx)
	if err != nil {
		return nil, err
	}
	stop = func() error { return provider.Delete(context.Background()) }
	pid, err := childPID("kube-apiserver")
	if err != nil {
		return stop, err
	}
	r.peer, err = newSide("kube-apiserver", c.Kubeconfig, filepath.Join(r.dir, "home-apiserver"), pid)
	return stop, err
}

func countObjects(m map[string][]json.RawMessage) int {
	n := 0
	for _, items := range m {
		n += len(items)
	}
	return n
}

// measureUpgrade times `bundlectl upgrade` against a gzip round trip of
// the same archive in process (compress/gzip, default level, as
// BenchmarkUpgrade) and against gzip(1), in turn, and keeps the
// upgrade's peak RSS, the untimed first run's too.
func (r *runner) measureUpgrade(ctx context.Context, in, out string) error {
	var up, goGzip, cliGzip, rss []float64
	upgrade := func() (time.Duration, error) {
		start := time.Now()
		peak, b, err := peakrss.Run(ctx, r.o.PeakRSS, r.o.Bundlectl, "upgrade", "--force", in, out)
		if err != nil {
			return 0, fmt.Errorf("bundlectl upgrade: %w\n%s", err, b)
		}
		rss = append(rss, float64(peak)/1e6)
		return time.Since(start), nil
	}
	// The executable as read from disk, not as the linker left it in the
	// page cache (peakrss.FromDisk); the first run, which reads it, is
	// not timed.
	if err := peakrss.FromDisk(r.o.Bundlectl); err != nil {
		return err
	}
	if _, err := upgrade(); err != nil {
		return err
	}
	measures := []func() error{
		func() error {
			d, err := upgrade()
			up = append(up, d.Seconds())
			return err
		},
		func() error {
			s, err := timed(func() error { return gzipRoundTrip(in) })
			goGzip = append(goGzip, s)
			return err
		},
		func() error {
			s, err := timed(func() error { return gzipCLIRoundTrip(ctx, in) })
			cliGzip = append(cliGzip, s)
			return err
		},
	}
	for i := range r.o.UpgradeReps {
		for j := range measures {
			// A rotation, so that each comes first in turn.
			if err := measures[(i+j)%len(measures)](); err != nil {
				return err
			}
		}
	}
	upgradeTarget := Target{MinRatio: 0.6, Text: "ratio ≥ 0.6 (upgrade at least 60% of a gzip round trip's speed, issue #20)"}
	r.rep.Figures = append(r.rep.Figures,
		Figure{Name: "upgrade-s", What: "`bundlectl upgrade` of the archive, against a decompress-and-recompress of it with compress/gzip (default level) in process",
			Peer: "gzip round trip", Bundlectl: median(up), PeerValue: median(goGzip), BundlectlSamples: up, PeerSamples: goGzip, Target: upgradeTarget},
		Figure{Name: "upgrade-vs-gzip-cli-s", What: "the same upgrade, against `gzip -dc | gzip -c` (gzip(1), level 6)",
			Peer: "gzip(1)", Bundlectl: median(up), PeerValue: median(cliGzip), BundlectlSamples: up, PeerSamples: cliGzip},
		Figure{Name: "upgrade-peak-rss-MB", What: "the upgrade's peak RSS",
			Bundlectl: maxOf(rss), BundlectlSamples: rss,
			Target: Target{MaxValue: 100 + float64(r.rep.Bundle.LargestFile)/1e6, Text: "≤ 100 MB + the largest file (`make bench-long`'s target)"}},
	)
	return nil
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// gzipRoundTrip decompresses the archive and compresses it again at the
// default level, as BenchmarkUpgrade does.
func gzipRoundTrip(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(io.Discard)
	if _, err := io.Copy(zw, zr); err != nil {
		return err
	}
	return zw.Close()
}

// gzipCLIRoundTrip is `gzip -dc path | gzip -c > /dev/null`.
func gzipCLIRoundTrip(ctx context.Context, path string) error {
	d := exec.CommandContext(ctx, "gzip", "-dc", path)
	c := exec.CommandContext(ctx, "gzip", "-c")
	pipe, err := d.StdoutPipe()
	if err != nil {
		return err
	}
	c.Stdin = pipe
	if err := d.Start(); err != nil {
		return err
	}
	if err := c.Run(); err != nil {
		d.Wait()
		return fmt.Errorf("gzip -c: %w", err)
	}
	if err := d.Wait(); err != nil {
		return fmt.Errorf("gzip -dc: %w", err)
	}
	return nil
}

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

// alternate measures each side reps times, in an order that rotates so
// that each comes first in turn, and returns each side's samples in the
// order of sides. It also adds up the CPU time each server process used
// meanwhile, and the time it waited for the peer to settle.
//
// After a request of the peer's that took longer than settleAfter, the
// next side is measured only once the peer's process has fallen idle
// (settle): kube-apiserver goes on using the CPU for tens of
// milliseconds after it has answered a LIST of 10,000 pods, on the same
// two cores, and whichever side came next was measured against that.
func (r *runner) alternate(sides []*side, reps int, f func(s *side, i int) (float64, error)) (samples [][]float64, cpu []float64, settled time.Duration, err error) {
	samples, cpu = make([][]float64, len(sides)), make([]float64, len(sides))
	for i := range reps {
		for j := range sides {
			k := (i + j) % len(sides)
			s := sides[k]
			before := cpuSeconds(s.pid)
			v, err := f(s, i)
			if err != nil {
				return nil, nil, 0, err
			}
			cpu[k] += cpuSeconds(s.pid) - before
			samples[k] = append(samples[k], v)
			if s == r.peer && v > settleAfter.Seconds() {
				settled += settle(s.pid)
			}
		}
	}
	return samples, cpu, settled, nil
}

// How settle tells that a process is idle: no CPU tick of it in
// settleWindow, polled every settlePoll; it waits no longer than
// settleMax.
const (
	settleAfter  = 50 * time.Millisecond
	settlePoll   = 20 * time.Millisecond
	settleWindow = 100 * time.Millisecond
	settleMax    = 10 * time.Second
)

// settle waits until the process pid has used no CPU for settleWindow, or
// settleMax has passed, and returns how long it waited beyond the window.
func settle(pid int) time.Duration {
	start := time.Now()
	last, quietSince := cpuSeconds(pid), start
	for time.Since(start) < settleMax {
		time.Sleep(settlePoll)
		now := cpuSeconds(pid)
		if now != last {
			last, quietSince = now, time.Now()
			continue
		}
		if time.Since(quietSince) >= settleWindow {
			break
		}
	}
	return max(0, time.Since(start)-settleWindow)
}

// figure measures bundlectl and its peer, and the floor too when
// withFloor and the run has one.
func (r *runner) figure(name, what string, reps int, target Target, withFloor bool, f func(s *side, i int) (float64, error)) (*Figure, error) {
	sides := []*side{r.served, r.peer}
	if withFloor && r.floor != nil {
		sides = append(sides, r.floor)
	}
	samples, cpu, settled, err := r.alternate(sides, reps, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a, b := samples[0], samples[1]
	fig := Figure{Name: name, What: what, Peer: "kube-apiserver", Bundlectl: median(a), PeerValue: median(b), BundlectlSamples: a, PeerSamples: b, Target: target,
		BundlectlCPU: cpu[0] / float64(reps), PeerCPU: cpu[1] / float64(reps), PeerSettle: settled}
	if len(samples) == 3 {
		fig.Floor, fig.FloorSamples = median(samples[2]), samples[2]
	}
	r.rep.Figures = append(r.rep.Figures, fig)
	rss, _ := procStatus(r.served.pid, "VmRSS")
	r.logf("%s (floor %s; bundlectl serve's RSS now %.0f MB; waited %s for the peer to settle)", fig.Line(), num(fig.Floor), rss, settled.Round(time.Millisecond))
	return &r.rep.Figures[len(r.rep.Figures)-1], nil
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
	if o.Floor != nil {
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
			return err
		}
		defer stop()
		r.floor = floor
	}
	// Each side's clients with kubectl's User-Agent, and the concurrent
	// figures' clients (a connection each), warmed.
	kubectlClient := map[*side]*http.Client{}
	concurrentClients := map[string]map[*side][]*http.Client{benchUserAgent: {}, r.kubectlUA: {}}
	// The servers' RSS is measured without these connections.
	closeClients := func() {
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
	defer closeClients()
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
			return err
		}
		for ua, clients := range concurrentClients {
			for range o.Concurrent {
				c, err := newClient(ua)
				if err != nil {
					return err
				}
				clients[s] = append(clients[s], c)
			}
		}
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

// machine describes this machine.
func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), LoadBefore: loadavg()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				var kb float64
				fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
				m.MemoryGB = kb * 1024 / 1e9
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	return m
}

// loadavg is the first three fields of /proc/loadavg.
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}
