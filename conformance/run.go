package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"golang.org/x/mod/semver"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/bundlectl/bundlectl/conformance/cluster"
	"github.com/bundlectl/bundlectl/conformance/fixtures"
	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/contract/termtext"
)

// DefaultPrefix names the fixtures run of the gate: its namespaces are
// conformance-a, -b and -c.
const DefaultPrefix = "conformance"

// Options configure Run.
type Options struct {
	// Provider gives the live cluster; Run creates it and deletes it at
	// the end, on failure and on cancellation too.
	Provider cluster.Provider
	// ClusterOutlivesRun says that the cluster stays after Delete (an
	// existing cluster, or kind --keep): the fixtures are then removed at
	// the end. Otherwise they go with the cluster.
	ClusterOutlivesRun bool
	// Kubectl is the kubectl binary, a path or a name looked up in PATH;
	// default "kubectl".
	Kubectl string
	// Checks are checks files added to the embedded matrix.
	Checks []string
	// Run, when set, keeps only the cases whose ID it matches.
	Run *regexp.Regexp
	// Baseline is the baseline file; "" is the embedded one.
	Baseline string
	// NoFixtures skips applying the fixtures: the gate then runs on what
	// the cluster holds, in Namespaces (all namespaces when empty).
	NoFixtures bool
	// Prefix names the fixtures run; default DefaultPrefix.
	Prefix     string
	Namespaces []string
	// IncludeSecretValues collects Secrets with their values with
	// NoFixtures too. With the fixtures, values are always collected:
	// only the fixture namespaces are, and their Secrets hold made-up
	// values, so that what kubectl prints of them can be compared.
	IncludeSecretValues bool
	// WorkDir holds the bundles and kubectl's scratch dirs; it is kept.
	// When empty a temporary dir is used and removed at the end, unless
	// the gate failed.
	WorkDir string
	// Parallel is how many cases run at once; default twice the number
	// of CPUs (kubectl waits on the servers part of the time).
	Parallel int
	// Log receives one line per step; nil discards them.
	Log io.Writer

	// mutateServed, in tests, changes the collected bundle after Gate A
	// and before it is served: a deliberate divergence.
	mutateServed func(bundleDir string) error
	// checksData, in tests, replaces the embedded checks.
	checksData []byte
}

// Result is what a run of the gate found.
type Result struct {
	Provider          string
	Cluster           string
	KubernetesVersion string
	// LiveMinor is the live cluster's Kubernetes minor ("1.37");
	// TablesMinor the one the upgrade rendered Gate A's tables for. When
	// they differ, Gate A compares tables of two releases.
	LiveMinor      string
	TablesMinor    string
	Kubectl        string // the binary
	KubectlVersion string
	CollectedAt    time.Time
	WorkDir        string // kept, or "" when removed

	Fixtures *FixturesResult // nil with NoFixtures
	Collect  *collect.Summary
	// ServeWarnings are what serve could not load from the bundle.
	ServeWarnings []string

	// Tables is Gate A: one case per table the server gave.
	Tables      []*CaseResult
	ExtraTables []string // tables the upgrade made where the server gave none
	// UpgradeProblems are the upgrade's problems (tables it could not make).
	UpgradeProblems []string
	// Cases is Gate B: one case per expanded check.
	Cases []*CaseResult
	// Rounds are the collections after the first, for the cases that
	// diverged while the cluster moved.
	Rounds []Round
	// Rules are the per-resource normalizations of the checks file.
	Rules map[string]ResourceRule

	Baseline string // the baseline's name
	Stale    []BaselineEntry
	Filtered bool // only the cases --run matched ran

	Steps    []Step
	Duration time.Duration
}

// FixturesResult says what the fixtures run did.
type FixturesResult struct {
	Prefix     string
	Namespaces []string
	// IncludeSecretValues collects Secrets with their values with
	// NoFixtures too. With the fixtures, values are always collected:
	// only the fixture namespaces are, and their Secrets hold made-up
	// values, so that what kubectl prints of them can be compared.
	IncludeSecretValues bool
	Objects             int
	Skipped             []string
	// Cluster is fixtures.ClusterKubelet where a kubelet runs the
	// fixtures' workloads (on KubeletNodes), else fixtures.ClusterBare.
	Cluster      string
	KubeletNodes []string
	Removed      string // "removed", "left for the cluster's deletion", or the error
}

// Step is a timed phase of the run.
type Step struct {
	Name     string
	Duration time.Duration
}

// Passed says whether the gate holds: no divergence outside the baseline,
// no stale baseline entry, and at least one case compared.
func (r *Result) Passed() bool {
	if len(r.Stale) > 0 || len(r.Cases)+len(r.Tables) == 0 {
		return false
	}
	for _, c := range r.all() {
		if c.Failed() {
			return false
		}
	}
	return true
}

func (r *Result) all() []*CaseResult {
	return append(append([]*CaseResult(nil), r.Tables...), r.Cases...)
}

// Normalized totals what each normalization forgave over every case.
func (r *Result) Normalized() map[string]int {
	out := map[string]int{}
	for _, c := range r.all() {
		for k, v := range c.Counts {
			out[k] += v
		}
	}
	return out
}

// Run runs the gate: it creates the live cluster, applies the fixtures,
// collects a bundle, checks the upgrade against the server's tables
// (Gate A), serves the bundle and runs the command matrix against both
// (Gate B), and cleans everything up. The error is for a gate that could
// not run; divergences are in the Result (see Result.Passed).
func Run(ctx context.Context, o Options) (res *Result, err error) {
	start := time.Now()
	if o.Provider == nil {
		return nil, errors.New("conformance: no cluster provider")
	}
	o.defaults()
	logf := func(format string, args ...any) {
		if o.Log != nil {
			// Fixtures log what the server said (a CRD's condition).
			fmt.Fprintf(o.Log, "conformance: %s\n", termtext.Escape(fmt.Sprintf(format, args...)))
		}
	}
	res = &Result{Provider: o.Provider.Name(), Filtered: o.Run != nil}
	step := func(name string, t time.Time) {
		res.Steps = append(res.Steps, Step{Name: name, Duration: time.Since(t)})
	}

	// Everything that can be refused is checked before a cluster exists.
	checks, baseline, err := prepare(o, res)
	if err != nil {
		return res, err
	}

	workDir, removeWork, err := makeWorkDir(o.WorkDir)
	if err != nil {
		return res, err
	}
	res.WorkDir = workDir
	bundleDir := filepath.Join(workDir, "bundle")
	defer func() {
		// A temporary work dir is kept only for a post-mortem: when a
		// bundle was collected and the gate failed or broke down.
		_, serr := os.Stat(bundleDir)
		if removeWork && (serr != nil || err == nil && res.Passed()) {
			os.RemoveAll(workDir)
			res.WorkDir = ""
		}
	}()
	k, err := newKubectl(ctx, res, workDir)
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(k.tmpDir)

	// The cluster.
	t := time.Now()
	logf("starting the live cluster (%s)", o.Provider.Name())
	c, err := o.Provider.Create(ctx)
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, deleteCluster(ctx, o.Provider, step)) }()
	res.Cluster = c.Name
	step("start the cluster", t)
	if o.ClusterOutlivesRun {
		logf("the cluster stays after the run; its kubeconfig is %s", c.Kubeconfig)
	}
	cfg, err := collect.LoadConfig(c.Kubeconfig, "")
	if err != nil {
		return res, err
	}
	cfg.QPS, cfg.Burst = 200, 400

	// Fixtures.
	namespaces := o.Namespaces
	prefix := ""
	if !o.NoFixtures {
		t = time.Now()
		applied, remove, aerr := applyFixtures(ctx, o, res, cfg, logf, step)
		defer func() { err = errors.Join(err, remove()) }()
		if aerr != nil {
			return res, aerr
		}
		namespaces, prefix = applied.Namespaces, o.Prefix
		step("apply the fixtures", t)
	}

	// Collect. On a cluster the gate created whose kubelet runs the
	// fixtures, every namespace: describe of a node reads the pods on it
	// in every namespace, its lease and its events (in kube-node-lease
	// and default). The cases still compare the fixture namespaces.
	collected := namespaces
	if c.Created && res.Fixtures != nil && res.Fixtures.Cluster == fixtures.ClusterKubelet {
		collected = nil
	}
	t = time.Now()
	logf("collecting the bundle into %s", bundleDir)
	collectStart := time.Now()
	sum, err := collectFirst(ctx, res, collectOptions(o, cfg, collected, bundleDir))
	if err != nil {
		return res, err
	}
	collectEnd := time.Now()
	step("collect", t)

	// Gate A.
	t = time.Now()
	logf("gate A: upgrading the bundle stripped of its tables and comparing every table")
	ta, err := runGateA(ctx, res, tableGateOptions{collected: bundleDir, workDir: workDir, resources: checks.Resources}, sum)
	if err != nil {
		return res, err
	}
	step("gate A: the transform", t)

	if err := runGateB(ctx, o, res, gateBInputs{
		checks: checks, cfg: cfg, kubeconfig: c.Kubeconfig, k: k, bundleDir: bundleDir, workDir: workDir, upgraded: ta.Upgraded,
		prefix: prefix, namespaces: namespaces, collected: collected, collectStart: collectStart, collectEnd: collectEnd,
	}, logf, step); err != nil {
		return res, err
	}

	res.Stale = baseline.Apply(res.all(), o.Run != nil, LiveCluster{Minor: res.LiveMinor, Served: servedGroupVersions(sum)})
	res.Duration = time.Since(start)
	return res, nil
}

// prepare reads the checks and the baseline and finds kubectl, noting
// them in res: what can be refused before a cluster exists.
func prepare(o Options, res *Result) (*ChecksFile, *Baseline, error) {
	checks, err := loadChecks(o)
	if err != nil {
		return nil, nil, err
	}
	res.Rules = checks.Resources
	baseline, err := LoadBaseline(o.Baseline)
	if err != nil {
		return nil, nil, err
	}
	res.Baseline = baseline.Name()
	if res.Kubectl, err = exec.LookPath(o.Kubectl); err != nil {
		return nil, nil, fmt.Errorf("kubectl: %w (install kubectl or pass --kubectl PATH)", err)
	}
	return checks, baseline, nil
}

// collectFirst collects the bundle both gates compare and notes in res
// what it says of the cluster.
func collectFirst(ctx context.Context, res *Result, co collect.Options) (*collect.Summary, error) {
	sum, err := collect.Run(ctx, co)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	res.Collect = sum
	res.CollectedAt = sum.CollectedAt
	res.KubernetesVersion = sum.KubernetesVersion
	res.LiveMinor = strings.TrimPrefix(semver.MajorMinor(sum.KubernetesVersion), "v")
	return sum, nil
}

// servedGroupVersions are the group versions the live cluster served
// when the bundle was collected, its conversions included.
func servedGroupVersions(sum *collect.Summary) map[string]bool {
	served := map[string]bool{}
	for _, r := range sum.Resources {
		served[schema.GroupVersion{Group: r.Group, Version: r.Version}.String()] = true
	}
	return served
}

// deleteCluster deletes the cluster, given some minutes even when ctx is
// done (a Ctrl-C must not leave it behind).
func deleteCluster(ctx context.Context, p cluster.Provider, step func(string, time.Time)) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	t := time.Now()
	err := p.Delete(dctx)
	step("delete the cluster", t)
	return err
}

// newKubectl is the kubectl of res with a scratch folder in workDir, its
// client version noted in res.
func newKubectl(ctx context.Context, res *Result, workDir string) (*kubectl, error) {
	scratch, err := kubectlScratch(workDir)
	if err != nil {
		return nil, err
	}
	k := &kubectl{bin: res.Kubectl, tmpDir: scratch}
	if res.KubectlVersion, err = k.clientVersion(ctx); err != nil {
		os.RemoveAll(scratch)
		return nil, err
	}
	return k, nil
}

// collectOptions is how the gate collects from cfg: the namespaces
// collected (nil: all) into dest, secrets' values included where the
// fixtures made them (they hold nothing real).
func collectOptions(o Options, cfg *rest.Config, collected []string, dest string) collect.Options {
	return collect.Options{Config: cfg, Namespaces: collected, Dest: dest, IncludeSecretValues: !o.NoFixtures || o.IncludeSecretValues}
}

// runGateA upgrades the collected bundle stripped of its tables and
// compares every table with the server's (tg says where), and records the
// cases, the upgrade's problems and the minor it rendered for in res.
func runGateA(ctx context.Context, res *Result, tg tableGateOptions, sum *collect.Summary) (*tableGateResult, error) {
	// The server renders a table at a moment inside its Date's second,
	// and the upgrade renders as of the start of that second: an age from
	// a timestamp of sub-second precision (an Event's eventTime, a Lease's
	// renewTime) may be one second more on the server. Whole-second
	// timestamps come out equal either way.
	tg.ageSlack = time.Second
	if !sum.TablesSameSecond {
		tg.ageSlack += time.Duration(sum.Seconds * float64(time.Second))
	}
	ta, err := runTableGate(ctx, tg)
	if err != nil {
		return nil, fmt.Errorf("gate A: %w", err)
	}
	for i := range ta.Cases {
		res.Tables = append(res.Tables, &ta.Cases[i])
	}
	res.ExtraTables = ta.Extra
	res.TablesMinor = ta.Upgrade.RenderedFor
	for _, p := range ta.Upgrade.Problems {
		res.UpgradeProblems = append(res.UpgradeProblems, p.Path+": "+p.Message)
	}
	if !ta.Upgrade.CollectedAt.Equal(sum.CollectedAt) {
		res.UpgradeProblems = append(res.UpgradeProblems, fmt.Sprintf("the upgrade read the collection time %s (from %s), the collector recorded %s",
			ta.Upgrade.CollectedAt.Format(time.RFC3339), ta.Upgrade.CollectedAtSource, sum.CollectedAt.Format(time.RFC3339)))
	}
	return ta, nil
}

// gateBCases are the cases of checks for the bundle's inventory, those
// defaults fills in what Options leaves unset.
func (o *Options) defaults() {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Kubectl == "" {
		o.Kubectl = "kubectl"
	}
	if o.Parallel <= 0 {
		o.Parallel = 2 * runtime.NumCPU()
	}
}

// applyFixtures applies the fixtures and records them in res. remove,
// never nil, removes them when the cluster outlives the run (else the
// cluster's deletion does) and says so in res.
func applyFixtures(ctx context.Context, o Options, res *Result, cfg *rest.Config, logf func(string, ...any), step func(string, time.Time)) (applied *fixtures.Applied, remove func() error, err error) {
	logf("applying the fixtures (run %s)", o.Prefix)
	applied, err = fixtures.Apply(ctx, cfg, fixtures.Options{Prefix: o.Prefix, Logf: logf})
	if applied == nil {
		return nil, func() error { return nil }, err
	}
	fr := &FixturesResult{Prefix: o.Prefix, Namespaces: applied.Namespaces, Objects: len(applied.Objects), Skipped: applied.SkippedKinds(), Cluster: applied.Cluster, KubeletNodes: applied.KubeletNodes}
	res.Fixtures = fr
	remove = func() error {
		if !o.ClusterOutlivesRun {
			fr.Removed = "left for the cluster's deletion"
			return nil
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		defer cancel()
		t := time.Now()
		logf("removing the fixtures")
		rerr := applied.Remove(rctx)
		if rerr != nil {
			fr.Removed = rerr.Error()
		} else {
			fr.Removed = "removed"
		}
		step("remove the fixtures", t)
		return rerr
	}
	return applied, remove, err
}

func loadChecks(o Options) (*ChecksFile, error) {
	if o.checksData == nil {
		return LoadChecks(o.Checks)
	}
	f, err := ParseChecks("test checks", o.checksData)
	if err != nil {
		return nil, err
	}
	// The per-resource rules describe the server, not the matrix: tests
	// that replace the checks keep them.
	embedded, err := ParseChecks("checks.yaml (embedded)", defaultChecks)
	if err != nil {
		return nil, err
	}
	if f.Resources == nil {
		f.Resources = embedded.Resources
	}
	for _, path := range o.Checks {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		g, err := ParseChecks(path, data)
		if err != nil {
			return nil, err
		}
		if err := f.merge(path, g); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// kubectlScratch is where each kubectl run gets its HOME and cache dir:
// in memory where Linux offers it (/dev/shm), since every run writes a
// discovery cache of some fifty files and the matrix runs kubectl a
// couple of thousand times; else in the work dir.
func kubectlScratch(workDir string) (string, error) {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "bundlectl-conformance-kubectl-"); err == nil {
			return d, nil
		}
	}
	d := filepath.Join(workDir, "kubectl")
	return d, os.MkdirAll(d, 0o755)
}

func makeWorkDir(dir string) (string, bool, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", false, err
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", false, err
		}
		if len(entries) > 0 {
			return "", false, fmt.Errorf("work dir %s is not empty", dir)
		}
		return dir, false, nil
	}
	d, err := os.MkdirTemp("", "bundlectl-conformance-")
	return d, true, err
}
