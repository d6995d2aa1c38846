package localapiserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/bundlectl/bundlectl/conformance/cluster"
)

// Version is the Kubernetes release the provider runs by default, the one
// bundlectl is built with (k8s.io/kubernetes in go.mod); Options.KubeVersion
// picks another of Releases.
const Version = "v1.37.1"

// EtcdVersion is the etcd server Version requires; every release runs
// with it.
const EtcdVersion = "v3.7.0"

// DefaultRuntimeConfig serves every API version the release has.
const DefaultRuntimeConfig = "api/all=true"

// DefaultDisabledAdmissionPlugins are the default admission plugins that
// need a controller this provider does not run; see the package doc.
var DefaultDisabledAdmissionPlugins = []string{"ServiceAccount", "ResourceQuota"}

// ServiceClusterIPRange is the --service-cluster-ip-range; the
// "kubernetes" Service gets its first address, 10.96.0.1.
const ServiceClusterIPRange = "10.96.0.0/16"

// AdvertiseAddress is what kube-apiserver publishes in the "kubernetes"
// Endpoints and EndpointSlice. It listens on 127.0.0.1 only, but the
// Endpoints API rejects loopback addresses, so a TEST-NET-1 address
// (RFC 5737, never routed) stands in.
const AdvertiseAddress = "192.0.2.1"

// Options configure the local provider. The zero value works: binaries
// from the shared cache (built on first use), a fresh work dir under the
// system temp dir, the maximal API surface.
type Options struct {
	Name string // cluster name in the kubeconfig and reports, default "bundlectl-local"
	// KubeVersion is the release to run: "v1.31.14", or a minor ("1.31")
	// for its newest patch (LookupRelease); default Version.
	KubeVersion string
	CacheDir    string // bundlectl's cache, default DefaultCacheDir(); binaries in BinDir(CacheDir, release)
	BinDir      string // where kube-apiserver and etcd are, overriding CacheDir
	// NoBuild makes Create fail with ErrNotBuilt instead of running the
	// build script (minutes) when the binaries are missing.
	NoBuild     bool
	BuildOutput io.Writer // the build script's output; nil discards it

	WorkDir string // parent of the temp dir Create makes, default os.TempDir()
	// Keep leaves the work dir (kubeconfig, certificates, etcd data, logs)
	// on disk after Delete, for a post-mortem. The processes are stopped
	// all the same: they cannot outlive bundlectl.
	Keep bool
	// LogDir is where etcd.log and kube-apiserver.log go (overwritten at
	// each Create), default the work dir.
	LogDir string

	// FeatureGates for kube-apiserver, "Name=bool" each; nil means the
	// release's (Release.FeatureGates), an empty non-nil slice the
	// release's defaults.
	FeatureGates []string
	// RuntimeConfig for kube-apiserver, default DefaultRuntimeConfig.
	RuntimeConfig string
	// DisabledAdmissionPlugins, nil means DefaultDisabledAdmissionPlugins.
	DisabledAdmissionPlugins []string
	// APIServerFlags are appended after the provider's own flags, so a
	// flag given here overrides the provider's value.
	APIServerFlags []string

	ReadyTimeout time.Duration // how long to wait for /readyz, default 2 minutes
	StopGrace    time.Duration // SIGTERM to SIGKILL, default 10 seconds

	// hook is called at named points of Create; tests use it.
	hook func(stage string)
	// freePorts picks the loopback ports; tests replace it.
	freePorts func(n int) ([]int, error)
}

// Provider runs one local control plane: etcd and kube-apiserver. It is
// not safe for concurrent use; Create once, then Delete.
type Provider struct {
	opts    Options
	release Release
	err     error // from resolving Options.KubeVersion, returned by Create

	bins      Binaries
	workDir   string
	logDir    string
	logs      []*os.File
	etcd      *process
	etcdURL   string
	apiserver *process
	created   bool
}

// New returns a provider; nothing is started until Create.
func New(opts Options) *Provider {
	if opts.Name == "" {
		opts.Name = "bundlectl-local"
	}
	release, err := LookupRelease(opts.KubeVersion)
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	if opts.BinDir == "" {
		opts.BinDir = BinDir(opts.CacheDir, release.Version)
	}
	if opts.FeatureGates == nil {
		opts.FeatureGates = release.FeatureGates
	}
	if opts.RuntimeConfig == "" {
		opts.RuntimeConfig = DefaultRuntimeConfig
	}
	if opts.DisabledAdmissionPlugins == nil {
		opts.DisabledAdmissionPlugins = DefaultDisabledAdmissionPlugins
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 2 * time.Minute
	}
	if opts.StopGrace == 0 {
		opts.StopGrace = 10 * time.Second
	}
	if opts.freePorts == nil {
		opts.freePorts = freePorts
	}
	return &Provider{opts: opts, release: release, err: err}
}

// Release is the release the provider runs.
func (p *Provider) Release() Release { return p.release }

// Name names the provider in reports.
func (p *Provider) Name() string { return "local" }

// WorkDir is the folder Create made (empty before Create).
func (p *Provider) WorkDir() string { return p.workDir }

// EtcdURL is etcd's client URL on loopback (plain HTTP, no auth), for a
// test that stores an object as an older release wrote it, which no API
// request can (empty before Create).
func (p *Provider) EtcdURL() string { return p.etcdURL }

// LogFiles are the paths of etcd's and kube-apiserver's output.
func (p *Provider) LogFiles() (etcd, apiserver string) {
	if p.logDir == "" {
		return "", ""
	}
	return filepath.Join(p.logDir, "etcd.log"), filepath.Join(p.logDir, "kube-apiserver.log")
}

// Create builds the binaries if needed, starts etcd and kube-apiserver on
// free loopback ports and waits until /readyz answers. If ctx is
// cancelled or a step fails, whatever was started is stopped and the work
// dir removed before Create returns. The processes then run until Delete,
// whatever becomes of ctx.
func (p *Provider) Create(ctx context.Context) (_ *cluster.Cluster, err error) {
	if !supported {
		return nil, fmt.Errorf("local: %w", errUnsupported)
	}
	if p.err != nil {
		return nil, fmt.Errorf("local: %w", p.err)
	}
	if p.created || p.workDir != "" {
		return nil, errors.New("local: Create was already called on this provider")
	}
	version := p.release.Version
	bins, err := FindBinaries(p.opts.BinDir, version)
	if errors.Is(err, ErrNotBuilt) && !p.opts.NoBuild {
		if berr := Build(ctx, p.opts.BinDir, version, p.opts.BuildOutput); berr != nil {
			return nil, fmt.Errorf("local: %w", berr)
		}
		bins, err = FindBinaries(p.opts.BinDir, version)
	}
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	p.bins = bins

	if p.workDir, err = os.MkdirTemp(p.opts.WorkDir, "bundlectl-local-"); err != nil {
		return nil, fmt.Errorf("local: making the work dir: %w", err)
	}
	defer func() {
		if err != nil {
			p.teardown(0, false)
		}
	}()
	if err := p.openLogs(); err != nil {
		return nil, err
	}
	pk, err := writePKI(p.workDir)
	if err != nil {
		return nil, fmt.Errorf("local: writing certificates and keys in %s: %w", p.workDir, err)
	}

	var server string
	for attempt := 1; ; attempt++ {
		server, err = p.start(ctx, pk)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			return nil, err
		}
		// Another program took a port between our probe and the
		// child's bind: start again on new ports.
		p.stopProcesses(0)
		if err := os.RemoveAll(filepath.Join(p.workDir, "etcd")); err != nil {
			return nil, fmt.Errorf("local: %w", err)
		}
	}

	kubeconfig := filepath.Join(p.workDir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, p.opts.Name, server, pk); err != nil {
		return nil, fmt.Errorf("local: writing the kubeconfig: %w", err)
	}
	p.created = true
	return &cluster.Cluster{Name: p.opts.Name, Kubeconfig: kubeconfig, Version: version}, nil
}

// Delete stops kube-apiserver, then etcd (SIGTERM, SIGKILL after
// StopGrace or ctx's deadline, whichever comes first, or at once when ctx
// is done), waits for both, and removes the
// work dir unless Keep. Calling it again, or after a failed Create, does
// nothing.
func (p *Provider) Delete(ctx context.Context) error {
	if p.workDir == "" {
		return nil
	}
	grace := p.opts.StopGrace
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < grace {
		grace = time.Until(deadline)
	}
	if ctx.Err() != nil || grace < 0 {
		grace = 0
	}
	return p.teardown(grace, p.opts.Keep)
}

var errPortTaken = errors.New("port already in use")

// start runs etcd and kube-apiserver and waits for readiness; it returns
// the server URL.
func (p *Provider) start(ctx context.Context, pk *pki) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	ports, err := p.opts.freePorts(3)
	if err != nil {
		return "", fmt.Errorf("local: finding free loopback ports: %w", err)
	}
	etcdClient := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	etcdPeer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	p.etcdURL = etcdClient
	server := "https://127.0.0.1:" + strconv.Itoa(ports[2])

	p.etcd, err = startProcess("etcd", p.bins.Etcd, []string{
		"--name=bundlectl",
		"--data-dir=" + filepath.Join(p.workDir, "etcd"),
		"--listen-client-urls=" + etcdClient,
		"--advertise-client-urls=" + etcdClient,
		"--listen-peer-urls=" + etcdPeer,
		"--initial-advertise-peer-urls=" + etcdPeer,
		"--initial-cluster=bundlectl=" + etcdPeer,
		"--unsafe-no-fsync=true", // a throwaway cluster: speed over durability
		"--log-level=warn",
	}, p.logs[0])
	if err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	p.call("etcd-started")

	// kube-apiserver retries etcd until it answers: starting both at once
	// saves the time etcd takes to come up.
	p.apiserver, err = startProcess("kube-apiserver", p.bins.KubeAPIServer, p.apiserverArgs(pk, etcdClient, ports[2]), p.logs[1])
	if err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	p.call("apiserver-started")

	client := httpClient(pk)
	if err := p.waitReady(ctx, client, server, pk.token); err != nil {
		return "", err
	}
	if err := checkVersion(ctx, client, server, pk.token, p.release.Version); err != nil {
		return "", fmt.Errorf("local: %s: %w", p.bins.KubeAPIServer, err)
	}
	return server, nil
}

func (p *Provider) apiserverArgs(pk *pki, etcdURL string, port int) []string {
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--advertise-address=" + AdvertiseAddress,
		"--tls-cert-file=" + pk.servingCert,
		"--tls-private-key-file=" + pk.servingKey,
		"--client-ca-file=" + pk.caCert,
		"--token-auth-file=" + pk.tokenFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=" + ServiceClusterIPRange,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + pk.saPub,
		"--service-account-signing-key-file=" + pk.saKey,
		"--allow-privileged=true",
		"--profiling=false",
		"--runtime-config=" + p.opts.RuntimeConfig,
	}
	if len(p.opts.FeatureGates) > 0 {
		args = append(args, "--feature-gates="+strings.Join(p.opts.FeatureGates, ","))
	}
	if len(p.opts.DisabledAdmissionPlugins) > 0 {
		args = append(args, "--disable-admission-plugins="+strings.Join(p.opts.DisabledAdmissionPlugins, ","))
	}
	return append(args, p.opts.APIServerFlags...)
}

// waitReady polls /readyz until it answers 200, a process exits, ctx is
// done or ReadyTimeout passes.
func (p *Provider) waitReady(ctx context.Context, client *http.Client, server, token string) error {
	deadline := time.NewTimer(p.opts.ReadyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("local: waiting for kube-apiserver: %w", ctx.Err())
		case <-p.etcd.done:
			return p.exitError(p.etcd, 0)
		case <-p.apiserver.done:
			return p.exitError(p.apiserver, 1)
		case <-deadline.C:
			_, apiLog := p.LogFiles()
			return fmt.Errorf("local: kube-apiserver not ready after %s (last /readyz: %s); the end of %s:\n%s",
				p.opts.ReadyTimeout, last, apiLog, tail(apiLog, 20))
		case <-tick.C:
		}
		status, body, err := get(ctx, client, server+"/readyz?verbose", token)
		switch {
		case err != nil:
			last = err.Error()
		case status == http.StatusOK:
			return nil
		default:
			last = fmt.Sprintf("%d: %s", status, failingChecks(body))
		}
	}
}

// exitError describes a child that exited while Create waited for it.
func (p *Provider) exitError(proc *process, logIndex int) error {
	logPath := p.logs[logIndex].Name()
	t := tail(logPath, 20)
	err := fmt.Errorf("local: %s exited during start-up (%v); the end of %s:\n%s", proc.name, proc.err, logPath, t)
	if strings.Contains(t, "address already in use") {
		return fmt.Errorf("%w: %w", errPortTaken, err)
	}
	return err
}

func (p *Provider) openLogs() error {
	p.logDir = p.opts.LogDir
	if p.logDir == "" {
		p.logDir = p.workDir
	} else if err := os.MkdirAll(p.logDir, 0o755); err != nil {
		return fmt.Errorf("local: %w", err)
	}
	etcdLog, apiLog := p.LogFiles()
	for _, path := range []string{etcdLog, apiLog} {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("local: opening the process log: %w", err)
		}
		p.logs = append(p.logs, f)
	}
	return nil
}

// stopProcesses stops kube-apiserver first, so it does not spend its
// shutdown retrying a vanished etcd.
func (p *Provider) stopProcesses(grace time.Duration) {
	for _, proc := range []*process{p.apiserver, p.etcd} {
		if proc != nil {
			proc.stop(grace)
		}
	}
	p.apiserver, p.etcd = nil, nil
}

// teardown stops the processes, closes the logs and removes the work dir
// unless keep; afterwards the provider is as after a failed Create.
func (p *Provider) teardown(grace time.Duration, keep bool) error {
	p.stopProcesses(grace)
	for _, f := range p.logs {
		f.Close()
	}
	p.logs = nil
	var err error
	if !keep {
		if rerr := os.RemoveAll(p.workDir); rerr != nil {
			err = fmt.Errorf("local: removing the work dir: %w", rerr)
		}
	}
	p.workDir, p.created = "", false
	return err
}

func (p *Provider) call(stage string) {
	if p.opts.hook != nil {
		p.opts.hook(stage)
	}
}

// freePorts asks the kernel for n distinct free loopback ports. They are
// released before the children bind them; Create starts again on new
// ports if one is taken in between.
func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func httpClient(pk *pki) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pk.caCertPEM)
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
}

func get(ctx context.Context, client *http.Client, url, token string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body, err
}

// failingChecks picks the "[-]name failed" lines of a verbose /readyz.
func failingChecks(body []byte) string {
	var failed []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "[-]") {
			failed = append(failed, strings.TrimPrefix(line, "[-]"))
		}
	}
	if len(failed) == 0 {
		return strings.TrimSpace(string(body))
	}
	return strings.Join(failed, "; ")
}

// checkVersion makes sure the binary in the cache is the release the
// provider promises; a stale cache would otherwise pass silently.
func checkVersion(ctx context.Context, client *http.Client, server, token, want string) error {
	status, body, err := get(ctx, client, server+"/version", token)
	if err != nil {
		return fmt.Errorf("reading /version: %w", err)
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &v) != nil {
		return fmt.Errorf("reading /version: %d %s", status, body)
	}
	if v.GitVersion != want {
		return fmt.Errorf("serves %s, not %s: rebuild it with the build script", v.GitVersion, want)
	}
	return nil
}

func writeKubeconfig(path, name, server string, pk *pki) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: pk.caCertPEM}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: pk.token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600) // holds the admin token
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
