// Package kind provides the live cluster of the conformance gate with
// sigs.k8s.io/kind: a Kubernetes node in a container, which is what users
// run in CI (GitHub Actions runners have Docker).
package kind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	kindcluster "sigs.k8s.io/kind/pkg/cluster"

	"github.com/bundlectl/bundlectl/conformance/cluster"
)

// Options configure the kind provider.
type Options struct {
	Name       string        // cluster name, default "bundlectl-conformance"
	Image      string        // node image, default DefaultImage (see Images.Resolve)
	Keep       bool          // leave the cluster running after Delete
	WorkDir    string        // where the kubeconfig is written
	WaitReady  time.Duration // how long to wait for the control plane
	RuntimeCLI string        // container CLI to probe, default: docker, then podman, then nerdctl
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

// Create checks for a running container engine first, so a machine
// without one fails at once instead of after kind's own timeouts, then
// creates the cluster and writes its kubeconfig.
func (p *Provider) Create(ctx context.Context) (*cluster.Cluster, error) {
	cli, err := p.detectRuntime(ctx)
	if err != nil {
		return nil, err
	}
	var opt kindcluster.ProviderOption
	switch cli {
	case "podman":
		opt = kindcluster.ProviderWithPodman()
	case "nerdctl":
		opt = kindcluster.ProviderWithNerdctl("")
	default:
		opt = kindcluster.ProviderWithDocker()
	}
	p.provider = kindcluster.NewProvider(opt)
	dir := p.opts.WorkDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bundlectl-kind-"); err != nil {
			return nil, fmt.Errorf("kind: %w", err)
		}
	}
	p.kubeconfig = filepath.Join(dir, "kubeconfig")
	err = p.provider.Create(p.opts.Name,
		kindcluster.CreateWithNodeImage(p.opts.Image),
		kindcluster.CreateWithKubeconfigPath(p.kubeconfig),
		kindcluster.CreateWithWaitForReady(p.opts.WaitReady),
		kindcluster.CreateWithDisplayUsage(false),
		kindcluster.CreateWithDisplaySalutation(false),
	)
	if err != nil {
		return nil, fmt.Errorf("kind: creating cluster %q with image %s: %w", p.opts.Name, p.opts.Image, err)
	}
	return &cluster.Cluster{Name: p.opts.Name, Kubeconfig: p.kubeconfig, Version: parseImageRef(p.opts.Image).tag}, nil
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

func (p *Provider) detectRuntime(ctx context.Context) (string, error) {
	clis := []string{"docker", "podman", "nerdctl"}
	if p.opts.RuntimeCLI != "" {
		clis = []string{p.opts.RuntimeCLI}
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
// with no daemon (as on these build machines) must not count.
func probeEngine(ctx context.Context, cli string) error {
	if _, err := exec.LookPath(cli); err != nil {
		return errors.New("not installed")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, cli, "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("engine not reachable: %s", msg)
	}
	return nil
}
