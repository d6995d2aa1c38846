// Package kind provides the live cluster of the conformance gate with
// sigs.k8s.io/kind: a Kubernetes node in a container, which is what users
// run in CI (GitHub Actions runners have Docker).
package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"

	"github.com/bundlectl/bundlectl/conformance/cluster"
)

// Options configure the kind provider.
type Options struct {
	Name    string // cluster name, default "bundlectl-conformance"
	Image   string // node image, default DefaultImage (see Images.Resolve)
	Keep    bool   // leave the cluster running after Delete, and after a failed Create
	WorkDir string // where the kubeconfig is written
	// WaitReady is how long the control-plane node may take to be Ready
	// once kind has started it; default 5 minutes.
	WaitReady time.Duration
	// RuntimeCLI is the container CLI: docker, podman, nerdctl, finch or
	// nerdctl.lima. Default $KIND_EXPERIMENTAL_PROVIDER (as the kind
	// command reads it), else the first of docker, podman and nerdctl
	// whose engine answers.
	RuntimeCLI string
	// Log receives kind's progress and warnings; nil discards them.
	Log io.Writer
	// probe checks that the runtime's engine answers; tests replace it.
	probe func(ctx context.Context, cli string) error
}

// Provider creates and deletes one kind cluster.
type Provider struct {
	opts       Options
	provider   *kindcluster.Provider
	kubeconfig string
}

// New returns a provider; nothing is started until Create.
func New(opts Options) *Provider {
	if opts.Name == "" {
		opts.Name = "bundlectl-conformance"
	}
	if opts.Image == "" {
		opts.Image = DefaultImage
	}
	if opts.WaitReady == 0 {
		opts.WaitReady = 5 * time.Minute
	}
	if opts.probe == nil {
		opts.probe = probeEngine
	}
	return &Provider{opts: opts}
}

// Name names the provider in reports.
func (p *Provider) Name() string { return "kind" }

// ErrNoContainerRuntime means no container engine answers: kind cannot run.
var ErrNoContainerRuntime = errors.New("no container runtime is running (docker, podman or nerdctl): kind needs one; use --local to run the gate against a local kube-apiserver instead")

// kind's own rule for cluster names (it refuses others after starting).
var validName = regexp.MustCompile(`^[a-z0-9.-]+$`)

// Create checks for a running container engine first, so a machine
// without one fails at once instead of after kind's own timeouts, then
// creates the cluster, writes its kubeconfig and waits until the
// control-plane node is Ready. A cluster of the same name is never
// touched; whatever a failed Create started is deleted unless Keep.
func (p *Provider) Create(ctx context.Context) (*cluster.Cluster, error) {
	name := p.opts.Name
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("kind: cluster name %q: kind accepts lower-case letters, digits, '.' and '-' only", name)
	}
	cli, err := p.detectRuntime(ctx)
	if err != nil {
		return nil, err
	}
	p.provider = kindcluster.NewProvider(kindcluster.ProviderWithLogger(newLogger(p.opts.Log)), runtimeOption(cli))
	// kind refuses a name in use too, but a failed Create is cleaned up
	// by deleting the cluster of that name: it must be ours.
	nodes, err := p.provider.ListNodes(name)
	if err != nil {
		p.provider = nil
		return nil, fmt.Errorf("kind: listing the nodes of cluster %q with %s: %w", name, cli, err)
	}
	if len(nodes) > 0 {
		p.provider = nil
		return nil, fmt.Errorf("kind: a cluster named %q already exists; delete it (kind delete cluster --name %s) or choose another --kind-name", name, name)
	}
	dir := p.opts.WorkDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bundlectl-kind-"); err != nil {
			return nil, fmt.Errorf("kind: %w", err)
		}
	}
	p.kubeconfig = filepath.Join(dir, "kubeconfig")
	// kind's own wait (CreateWithWaitForReady) is not used: it returns
	// success when it times out, and polls by running kubectl in the
	// node without a pause.
	err = p.provider.Create(name,
		kindcluster.CreateWithNodeImage(p.opts.Image),
		kindcluster.CreateWithKubeconfigPath(p.kubeconfig),
		kindcluster.CreateWithDisplayUsage(false),
		kindcluster.CreateWithDisplaySalutation(false),
	)
	if err == nil {
		err = p.waitReady(ctx)
	}
	if err != nil {
		err = fmt.Errorf("kind: creating cluster %q with image %s: %w", name, p.opts.Image, err)
		// kind removes its nodes on most failures but not all (a
		// kubeconfig it cannot write leaves the node running); the gate
		// deletes only clusters that Create returned.
		if p.opts.Keep {
			return nil, fmt.Errorf("%w (the cluster is kept: --keep; its kubeconfig is %s)", err, p.kubeconfig)
		}
		if derr := p.provider.Delete(name, p.kubeconfig); derr != nil {
			err = errors.Join(err, fmt.Errorf("kind: deleting cluster %q after the failure: %w", name, derr))
		}
		p.provider = nil
		return nil, err
	}
	return &cluster.Cluster{Name: name, Kubeconfig: p.kubeconfig, Version: parseImageRef(p.opts.Image).tag, Created: true}, nil
}

// Delete removes the cluster unless Keep was asked for.
func (p *Provider) Delete(ctx context.Context) error {
	if p.provider == nil || p.opts.Keep {
		return nil
	}
	if err := p.provider.Delete(p.opts.Name, p.kubeconfig); err != nil {
		return fmt.Errorf("kind: deleting cluster %q: %w", p.opts.Name, err)
	}
	return nil
}

// waitReady waits up to WaitReady for every control-plane node to be
// Ready, asking the API server through the kubeconfig kind wrote: the
// path the gate uses next.
func (p *Provider) waitReady(ctx context.Context) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfig)
	if err != nil {
		return fmt.Errorf("reading the kubeconfig kind wrote: %w", err)
	}
	cfg.Timeout = 10 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(p.opts.WaitReady)
	for {
		err := controlPlaneReady(ctx, cs)
		if err == nil {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("the control plane is not ready after %s: %w", p.opts.WaitReady, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(time.Second, time.Until(deadline))):
		}
	}
}

func controlPlaneReady(ctx context.Context, cs kubernetes.Interface) error {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/control-plane"})
	if err != nil {
		return err
	}
	if len(nodes.Items) == 0 {
		return errors.New("no control-plane node has registered")
	}
	for _, n := range nodes.Items {
		ready := false
		for _, c := range n.Status.Conditions {
			if c.Type != corev1.NodeReady {
				continue
			}
			if c.Status != corev1.ConditionTrue {
				return fmt.Errorf("node %s is not Ready: %s: %s", n.Name, c.Reason, c.Message)
			}
			ready = true
		}
		if !ready {
			return fmt.Errorf("node %s has no Ready condition yet", n.Name)
		}
	}
	return nil
}

// Runtimes are the container CLIs kind drives; the first three are
// probed in this order when none is chosen.
var Runtimes = []string{"docker", "podman", "nerdctl", "finch", "nerdctl.lima"}

func runtimeOption(cli string) kindcluster.ProviderOption {
	switch cli {
	case "podman":
		return kindcluster.ProviderWithPodman()
	case "docker":
		return kindcluster.ProviderWithDocker()
	}
	return kindcluster.ProviderWithNerdctl(cli)
}

func (p *Provider) detectRuntime(ctx context.Context) (string, error) {
	clis := Runtimes[:3]
	chosen, how := p.opts.RuntimeCLI, "--kind-runtime"
	if chosen == "" {
		chosen, how = os.Getenv("KIND_EXPERIMENTAL_PROVIDER"), "KIND_EXPERIMENTAL_PROVIDER"
	}
	if chosen != "" {
		if !slices.Contains(Runtimes, chosen) {
			return "", fmt.Errorf("kind: %s=%s: want one of %s", how, chosen, strings.Join(Runtimes, ", "))
		}
		clis = []string{chosen}
	}
	var reasons []string
	for _, cli := range clis {
		err := p.opts.probe(ctx, cli)
		if err == nil {
			return cli, nil
		}
		reasons = append(reasons, fmt.Sprintf("%s: %v", cli, err))
	}
	return "", fmt.Errorf("%w (%s)", ErrNoContainerRuntime, strings.Join(reasons, "; "))
}

// probeEngine asks the engine itself, not just the CLI: a docker client
// with no daemon (as on these build machines) must not count, and kind
// itself only checks the CLI's version.
func probeEngine(ctx context.Context, cli string) error {
	if _, err := exec.LookPath(cli); err != nil {
		return errors.New("not installed")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// podman's info has no ServerVersion; nerdctl and finch answer as docker.
	format := "{{.ServerVersion}}"
	if cli == "podman" {
		format = "{{.Version.Version}}"
	}
	out, err := exec.CommandContext(ctx, cli, "info", "--format", format).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("engine not reachable: %s", msg)
	}
	return nil
}
