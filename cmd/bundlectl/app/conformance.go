package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/conformance"
	"github.com/bundlectl/bundlectl/conformance/cluster"
	"github.com/bundlectl/bundlectl/conformance/kind"
	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
)

type conformanceOptions struct {
	IOStreams
	kind        bool
	local       bool
	kubeVersion string
	kubeconfig  string
	kindName    string
	kindImage   string
	kindVersion string
	kindCLI     string
	keep        bool

	kubectl     string
	checks      []string
	baseline    string
	run         string
	noFixtures  bool
	secrets     bool
	prefix      string
	namespaces  []string
	workDir     string
	parallel    int
	reportMD    string
	junit       string
	printChecks bool

	// What Complete resolves: the release --local runs, the node image
	// --kind runs, the pattern of --run.
	release    string
	nodeImage  string
	runPattern *regexp.Regexp
}

func newConformanceCommand(streams IOStreams) *cobra.Command {
	o := &conformanceOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "conformance (--local | --kind | --kubeconfig PATH)",
		Short: "Prove that kubectl against a served bundle prints what the live cluster printed",
		Long: `Conformance is the live-vs-served contract gate. It starts (or uses) a live
cluster, applies the fixtures (objects of every kind the printers know, with
hard statuses) into namespaces of its own, collects a bundle, and then:

  Gate A  strips the bundle's tables and _meta (a legacy bundle), upgrades it,
          and compares every synthesized Table with the server's, cell by cell.
  Gate B  serves the bundle in process and runs the command matrix (kubectl,
          found in PATH or given by --kubectl, and raw HTTP requests) against
          the live cluster and the served bundle, and compares the outputs.

The only differences forgiven are values that truly move between the
collection and the query, each named in the checks and counted in the
report: server-rendered ages, which must have advanced by the time between
the collection and the query, no less and no more (ages); ages kubectl
computes itself, which may be ahead on the live side, run second, by the
time between the two runs (clientAges); the revision of a list or table
(resourceVersion); managedFields times; klog headers on stderr; the
order of ComponentStatus rows, which the server computes at each request;
a node's heartbeats (heartbeats); and an Event recorded again since the
collection: its count only higher, its last time only later, its rows in
the order kubectl sorts them by that time (eventRepeats); and the status of
a pod written again since, when nothing else of it was (statusWrites).
Known divergences are accepted only through the baseline file, each with a
reason; an entry that no longer happens fails the gate too.

The live cluster:
  --local            kube-apiserver and etcd as local processes (built into
                     the cache on first use, one folder per release), stopped
                     and removed afterwards; the pinned release, or the one
                     --kube-version names (Kubernetes ` + localapiserver.SupportedMinors() + `)
  --kind             a kind cluster, deleted afterwards unless --keep (needs
                     a container runtime); its node image is one of those the
                     kind release bundlectl is built with lists, by digest:
                     Kubernetes ` + strings.Join(kind.Images.Minors(), ", ") + ` (--kind-version, default ` + contract.PinnedMinor + `)
  --kubeconfig PATH  an existing cluster; the fixtures are removed afterwards

The report goes to standard output; --report-md and --junit write it for CI.
The exit code is 0 only when the gate holds.`,
		Args: cobra.NoArgs,
		RunE: runE(o),
	}
	f := cmd.Flags()
	f.BoolVar(&o.local, "local", false, "run kube-apiserver and etcd as local processes (built into the cache on first use)")
	f.StringVar(&o.kubeVersion, "kube-version", "", "with --local, the Kubernetes release to run: v1.31.14, or a minor (1.31) for its newest patch (default "+localapiserver.Version+"; "+localapiserver.SupportedMinors()+")")
	f.BoolVar(&o.kind, "kind", false, "create a kind cluster (needs docker, podman or nerdctl)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "use the existing cluster of this kubeconfig's current context")
	f.StringVar(&o.kindName, "kind-name", "bundlectl-conformance", "name of the kind cluster")
	f.StringVar(&o.kindImage, "kind-image", "", "kind node image, by digest (default "+kind.DefaultImage+")")
	f.StringVar(&o.kindVersion, "kind-version", "", "the Kubernetes minor of the kind node image: kind "+kind.Images.KindRelease+"'s image of it ("+strings.Join(kind.Images.Minors(), ", ")+")")
	f.StringVar(&o.kindCLI, "kind-runtime", "", "container CLI for kind: "+strings.Join(kind.Runtimes, ", ")+" (default $KIND_EXPERIMENTAL_PROVIDER, else the first of docker, podman and nerdctl whose engine answers)")
	f.BoolVar(&o.keep, "keep", false, "keep the kind cluster (or the local cluster's files) after the run")
	f.StringVar(&o.kubectl, "kubectl", "kubectl", "the kubectl binary to run")
	f.StringArrayVar(&o.checks, "checks", nil, "a checks file to add to the built-in matrix (repeatable; see --print-checks)")
	f.StringVar(&o.baseline, "baseline", "", "the baseline of accepted divergences (default the built-in one)")
	f.StringVar(&o.run, "run", "", "run only the cases whose ID matches this regular expression")
	f.BoolVar(&o.noFixtures, "no-fixtures", false, "do not apply the fixtures (for a cluster you care about)")
	f.BoolVar(&o.secrets, "include-secret-values", false, "with --no-fixtures, collect Secrets with their values (otherwise they are masked in the bundle and differ from the live ones)")
	f.StringVar(&o.prefix, "fixture-prefix", conformance.DefaultPrefix, "name of the fixtures run: its namespaces are <prefix>-a, -b and -c")
	f.StringSliceVarP(&o.namespaces, "namespace", "n", nil, "with --no-fixtures, the namespaces to collect and compare (default all)")
	f.StringVar(&o.workDir, "work-dir", "", "keep the bundles and scratch files here (default a temporary dir, removed unless the gate fails)")
	f.IntVar(&o.parallel, "parallel", 0, "cases run at once (default twice the number of CPUs)")
	f.StringVar(&o.reportMD, "report-md", "", "write the report as Markdown (a CI job summary) to this file")
	f.StringVar(&o.junit, "junit", "", "write the report as JUnit XML to this file")
	f.BoolVar(&o.printChecks, "print-checks", false, "print the built-in checks file and exit")
	return cmd
}

// Complete resolves what the flags name: the release of --local, the
// node image of --kind, the pattern of --run.
func (o *conformanceOptions) Complete([]string) error {
	if o.printChecks {
		return nil
	}
	switch {
	case o.local:
		r, err := localapiserver.LookupRelease(o.kubeVersion)
		if err != nil {
			return fmt.Errorf("--kube-version: %w", err)
		}
		o.release = r.Version
	case o.kind:
		image, warning, err := kind.Images.Resolve(o.kindImage, o.kindVersion)
		if err != nil {
			return err
		}
		if warning != "" {
			fmt.Fprintf(o.ErrOut, "bundlectl: warning: %s\n", warning)
		}
		o.nodeImage = image
	}
	if o.run != "" {
		var err error
		if o.runPattern, err = regexp.Compile(o.run); err != nil {
			return fmt.Errorf("--run: %w", err)
		}
	}
	return nil
}

// Validate checks that the flags go together, from what the user gave:
// --kind-image and --kube-version as typed.
func (o *conformanceOptions) Validate() error {
	if o.printChecks {
		return nil
	}
	if len(o.namespaces) > 0 && !o.noFixtures {
		return errors.New("--namespace needs --no-fixtures: with fixtures the gate compares the fixture namespaces")
	}
	n := 0
	for _, set := range []bool{o.local, o.kind, o.kubeconfig != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return errors.New("choose the live cluster: --local, --kind or --kubeconfig PATH")
	case n > 1:
		return errors.New("--local, --kind and --kubeconfig exclude each other")
	case !o.kind && (o.kindImage != "" || o.kindVersion != "" || o.kindCLI != ""):
		return errors.New("--kind-image, --kind-version and --kind-runtime need --kind")
	case !o.local && o.kubeVersion != "":
		return errors.New("--kube-version needs --local (with --kind, --kind-version picks the node image)")
	}
	return nil
}

// provider builds the live cluster's provider (Complete has resolved the
// kind node image); kindDir is where the kind provider writes its
// kubeconfig. outlives says the cluster stays after the run.
func (o *conformanceOptions) provider(kindDir string) (p cluster.Provider, outlives bool) {
	switch {
	case o.local:
		return localapiserver.New(localapiserver.Options{KubeVersion: o.release, BuildOutput: o.ErrOut, Keep: o.keep}), false
	case o.kind:
		return kind.New(kind.Options{Name: o.kindName, Image: o.nodeImage, Keep: o.keep, RuntimeCLI: o.kindCLI, WorkDir: kindDir, Log: o.ErrOut}), o.keep
	}
	return cluster.Existing{Path: o.kubeconfig}, true
}

func (o *conformanceOptions) Run(ctx context.Context) error {
	if o.printChecks {
		_, err := o.Out.Write(conformance.DefaultChecks())
		return err
	}
	// kind's kubeconfig holds the admin credentials of the cluster: it
	// goes with the run (kept with the cluster by --keep).
	kindDir := ""
	if o.kind {
		dir, err := os.MkdirTemp("", "bundlectl-kind-")
		if err != nil {
			return err
		}
		if !o.keep {
			defer os.RemoveAll(dir)
		}
		kindDir = dir
	}
	p, outlives := o.provider(kindDir)
	res, err := conformance.Run(ctx, conformance.Options{
		Provider: p, ClusterOutlivesRun: outlives,
		Kubectl: o.kubectl, Checks: o.checks, Baseline: o.baseline, Run: o.runPattern,
		NoFixtures: o.noFixtures, Prefix: o.prefix, Namespaces: o.namespaces, IncludeSecretValues: o.secrets,
		WorkDir: o.workDir, Parallel: o.parallel, Log: o.ErrOut,
	})
	if err != nil {
		return err
	}
	if err := res.WriteText(o.Out); err != nil {
		return err
	}
	for _, w := range []struct {
		path  string
		write func(*os.File) error
	}{
		{o.reportMD, func(f *os.File) error { return res.WriteMarkdown(f) }},
		{o.junit, func(f *os.File) error { return res.WriteJUnit(f) }},
	} {
		if w.path == "" {
			continue
		}
		if err := writeReport(w.path, w.write); err != nil {
			return err
		}
	}
	if !res.Passed() {
		return exitError{code: 1}
	}
	return nil
}

func writeReport(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
