package peers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
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
