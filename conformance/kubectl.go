package conformance

import (
	"bytes"
	"context"
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

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubectlTimeout bounds one kubectl run; nothing the gate asks should
// take more than a few seconds.
const kubectlTimeout = 60 * time.Second

// kubectl runs the real kubectl binary, each time with a cache dir and a
// HOME of its own (so no discovery cache, kuberc or ~/.kube/config is
// shared between runs or read from the user's), and a minimal
// environment.
type kubectl struct {
	bin    string
	tmpDir string
}

func (k *kubectl) run(ctx context.Context, kubeconfig string, args []string) Output {
	start := time.Now()
	dir, err := os.MkdirTemp(k.tmpDir, "kubectl-")
	if err != nil {
		return Output{Err: err}
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, kubectlTimeout)
	defer cancel()
	full := append([]string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(dir, "cache")}, args...)
	cmd := exec.CommandContext(ctx, k.bin, full...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"KUBECONFIG=" + kubeconfig,
		"TZ=UTC",
		"LANG=C.UTF-8",
	}
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	out := Output{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ctx.Err() == nil:
		out.ExitCode = ee.ExitCode()
	case ctx.Err() != nil:
		out.Err = fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), ctx.Err())
	default:
		out.Err = fmt.Errorf("running kubectl: %w", err)
	}
	return out
}

// clientVersion is what `kubectl version --client` says, for the report.
func (k *kubectl) clientVersion(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.bin, "version", "--client")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + k.tmpDir}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s version --client: %w: %s", k.bin, err, strings.TrimSpace(string(out)))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Client Version: "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return strings.TrimSpace(string(out)), nil
}

// rawClient sends the raw requests of the matrix to one side.
type rawClient struct {
	http *http.Client
	base *url.URL
}

func newRawClient(kubeconfig string) (*rawClient, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "bundlectl-conformance"
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, err
	}
	return &rawClient{http: hc, base: base}, nil
}

func (c *rawClient) do(ctx context.Context, r *RequestSpec) Output {
	start := time.Now()
	u, err := c.base.Parse(strings.TrimSuffix(c.base.Path, "/") + r.Path)
	if err != nil {
		return Output{Err: err}
	}
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	ctx, cancel := context.WithTimeout(ctx, kubectlTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return Output{Err: err}
	}
	if r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	if r.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Output{Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Output{Err: err}
	}
	return Output{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: data, Duration: time.Since(start)}
}
