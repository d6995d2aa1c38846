package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/termtext"
	"github.com/bundlectl/bundlectl/serve/index"
)

// UpgradeFunc upgrades a legacy bundle (one without discovery.json) to
// the contract, into dir (the run's private folder), and returns the
// path of the upgraded bundle, the problems it found (which serve prints
// with the index's warnings, see upgradeWarnings), and a cleanup that
// removes the upgraded bundle. The command layer provides it: the upgrade
// needs k8s.io/kubernetes, which serve must not import.
type UpgradeFunc func(ctx context.Context, b *contract.Bundle, dir string) (path string, problems []contract.Problem, cleanup func(), err error)

// Options configure Run.
type Options struct {
	// Bundles are archives or folders; "-" reads an archive from Stdin.
	Bundles []string
	// Address to listen on; "" is 127.0.0.1.
	Address string
	// Port of the first bundle's server, the next bundles take the next
	// ports; 0 picks free ports.
	Port int
	// InsecureHTTP serves plain HTTP without a token.
	InsecureHTTP bool
	// Kubeconfig is where to write the kubeconfig; "" is the run's
	// private folder. It must not exist (nor be ~/.kube/config) and is
	// removed when Run returns (see kubeconfigFile).
	Kubeconfig string
	// Upgrade is called for legacy bundles; nil refuses them.
	Upgrade UpgradeFunc
	Limits  contract.Limits
	Stdin   io.Reader
	// HTTP says how bundles named by a URL are fetched.
	HTTP contract.HTTPOptions
	// Out gets the summary and the `export KUBECONFIG=` line, ErrOut the
	// warnings about files that could not be served.
	Out, ErrOut io.Writer
	// Ready, if set, is called with the kubeconfig's path once every
	// bundle is served. Run still returns only when ctx ends.
	Ready func(kubeconfig string)
	// Verbose logs one line per request to ErrOut (see NewHandler's
	// access log), each naming its context when several bundles are
	// served.
	Verbose bool
}

// Run loads every bundle, serves each on its own listener (kubectl knows
// one server per context, so one listener per bundle keeps every client
// working), writes a kubeconfig with one context per bundle, and serves
// until ctx ends. Then it stops the servers and removes what it wrote.
func Run(ctx context.Context, o Options) (err error) {
	if len(o.Bundles) == 0 {
		return errors.New("no bundle to serve")
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ErrOut == nil {
		o.ErrOut = io.Discard
	}
	var kf *kubeconfigFile
	if o.Kubeconfig != "" {
		// Refused before the bundles are loaded, which can take a while.
		if kf, err = openKubeconfigFile(o.Kubeconfig); err != nil {
			return err
		}
		defer kf.remove()
	}
	runDir, err := newRunDir()
	if err != nil {
		return fmt.Errorf("making the run's private folder: %w", err)
	}
	defer os.RemoveAll(runDir)
	host := o.Address
	if host == "" {
		host = "127.0.0.1"
	}
	if !isLoopback(host) {
		// Said at once: loading can take a while.
		warnExposed(o.ErrOut, host, o.InsecureHTTP)
	}
	indexes, err := loadBundles(ctx, o, runDir)
	if err != nil {
		return err
	}
	defer func() {
		for _, x := range indexes {
			x.Close()
		}
	}()
	// Loading decoded whole files; hand back to the OS what the index
	// does not keep, so that what serve holds is the index.
	debug.FreeOSMemory()
	var creds *credentials
	if !o.InsecureHTTP {
		if creds, err = newCredentials(certificateHosts(host)); err != nil {
			return err
		}
	}
	stop := make(chan struct{})
	errs := make(chan error, len(indexes))
	names := contextNames(o.Bundles)
	// One writer for every bundle's access log, so that lines never mix.
	accessLog := &lockedWriter{w: o.ErrOut}
	contexts := make([]kubeContext, len(indexes))
	var servers []*http.Server
	defer func() {
		close(stop)
		shutdown(servers)
	}()
	for i, x := range indexes {
		port := 0
		if o.Port != 0 {
			port = o.Port + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("serving %s: %w", x.Name, err)
		}
		hopts := HandlerOptions{Stop: stop}
		if o.Verbose {
			hopts.AccessLog = accessLog
			if len(indexes) > 1 {
				hopts.LogPrefix = names[i] + ": "
			}
		}
		scheme := "http"
		if creds != nil {
			hopts.Token = creds.token
			scheme = "https"
		}
		srv := newServer(NewHandler(x, hopts), creds)
		servers = append(servers, srv)
		go func() {
			serve := func() error { return srv.Serve(ln) }
			if srv.TLSConfig != nil {
				serve = func() error { return srv.ServeTLS(ln, "", "") }
			}
			if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs <- fmt.Errorf("serving %s: %w", x.Name, err)
			}
		}()
		contexts[i] = kubeContext{name: names[i], server: scheme + "://" + clientHost(host, ln.Addr())}
		if creds != nil {
			contexts[i].caPEM, contexts[i].token = creds.caPEM, creds.token
		}
	}
	kubeconfig, err := writeKubeconfig(contexts, kf, runDir)
	if err != nil {
		return err
	}
	for i, x := range indexes {
		printSummary(o.Out, o.ErrOut, x, contexts[i])
	}
	fmt.Fprintf(o.Out, "export KUBECONFIG=%s\n", kubeconfig)
	if o.Ready != nil {
		o.Ready(kubeconfig)
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-errs:
		return err
	}
}

// The connection timeouts of kube-apiserver's secure serving
// (k8s.io/apiserver/pkg/server/secure_serving.go): a connection is closed
// when its TLS handshake and first request headers take longer than
// readHeaderTimeout, or when it waits longer than idleTimeout for its
// next request; without them a local user without the token could hold
// connections, and the server's file descriptors, for ever.
const (
	readHeaderTimeout = 32 * time.Second
	idleTimeout       = 90 * time.Second
)

// newServer is the HTTP server of one bundle: HTTPS (and so HTTP/2) with
// the run's certificate when creds is set, plain HTTP otherwise.
func newServer(h http.Handler, creds *credentials) *http.Server {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 1 << 20}
	if creds != nil {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{creds.cert}, MinVersion: tls.VersionTLS12}
	}
	return srv
}

// writeKubeconfig writes the kubeconfig of contexts to kf, else into the
// run's folder, and returns its path.
func writeKubeconfig(contexts []kubeContext, kf *kubeconfigFile, runDir string) (string, error) {
	data, err := encodeKubeconfig(contexts)
	if err != nil {
		return "", err
	}
	if kf != nil {
		// The export line must hold wherever the user goes next: kf.path
		// is absolute.
		return kf.path, kf.write(data)
	}
	path := filepath.Join(runDir, "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return path, nil
}

// loadBundles loads every bundle of o, in order; on an error, those
// loaded are closed.
func loadBundles(ctx context.Context, o Options, runDir string) ([]*index.Index, error) {
	indexes := make([]*index.Index, 0, len(o.Bundles))
	for _, path := range o.Bundles {
		x, err := loadBundle(ctx, path, o, runDir)
		if err != nil {
			for _, x := range indexes {
				x.Close()
			}
			return nil, err
		}
		indexes = append(indexes, x)
	}
	return indexes, nil
}

// loadBundle opens a bundle, upgrading it first (into runDir) when it is
// legacy, and loads it. The index holds everything it serves (the logs
// in a spool of its own), so the bundle, and an upgraded copy, are
// released as soon as it is loaded.
func loadBundle(ctx context.Context, path string, o Options, runDir string) (*index.Index, error) {
	b, err := contract.OpenContext(ctx, path, contract.OpenOptions{Stdin: o.Stdin, HTTP: o.HTTP, Limits: o.Limits, KeepStream: true})
	if err != nil {
		return nil, err
	}
	name := b.Path // a URL's secrets redacted
	if !b.HasClusterResources {
		b.Close()
		return nil, fmt.Errorf("%s: %s, so there is nothing to serve; bundlectl inspect tells what it holds", name, contract.NoClusterResources)
	}
	var upgradeProblems []contract.Problem
	if b.DiscoveryJSON == nil {
		if o.Upgrade == nil {
			b.Close()
			return nil, fmt.Errorf("%s: bundle is legacy; upgrade hook not configured", name)
		}
		upgradedPath, problems, removeUpgraded, err := o.Upgrade(ctx, b, runDir)
		b.Close()
		if err != nil {
			return nil, fmt.Errorf("upgrading %s: %w", name, err)
		}
		defer removeUpgraded()
		upgradeProblems = problems
		if b, err = contract.Open(upgradedPath, o.Limits); err != nil {
			return nil, fmt.Errorf("opening the upgraded %s: %w", name, err)
		}
		// The upgrade's heap is garbage now, up to twice its largest
		// object; collected before the index is built, it is reused
		// rather than added to: one 400 MB ConfigMap peaked at 1.4 GB
		// without, 0.9 GB with.
		runtime.GC()
	}
	defer b.Close()
	x, err := index.Load(ctx, b)
	if err != nil {
		return nil, err
	}
	x.Name = name
	if upgradeProblems != nil {
		x.Warnings = upgradeWarnings(name, upgradeProblems, x.Warnings)
	}
	return x, nil
}

// isLoopback says whether host is only reachable from this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// warnExposed says, before anything is served, that other machines can
// reach the bundle: a support bundle holds a customer's cluster state.
func warnExposed(w io.Writer, host string, insecure bool) {
	how := "with HTTPS and the token in the kubeconfig"
	if insecure {
		how = "over plain HTTP with no token: anyone who can reach it can read the bundle"
	}
	fmt.Fprintf(w, "warning: --address %s is not a loopback address: other machines can reach the served bundle, %s\n", host, how)
}

// certificateHosts are the names the serving certificate is valid for:
// the address listened on, and every address of the machine when that is
// all of them, so that other machines can verify it too.
func certificateHosts(host string) []string {
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
		return []string{host}
	}
	var hosts []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			hosts = append(hosts, n.IP.String())
		}
	}
	return hosts
}

// clientHost is the address clients dial: the loopback address when
// listening on every interface.
func clientHost(host string, addr net.Addr) string {
	_, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// shutdown stops every server at once: each waits for its connections to
// go idle, which for HTTP/2 clients takes a moment.
func shutdown(servers []*http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Shutdown(ctx)
		}()
	}
	wg.Wait()
}

// printSummary tells what is served where: the cluster's version and
// collection time, because every age in the tables is as of that time.
func printSummary(out, errOut io.Writer, x *index.Index, c kubeContext) {
	counts := x.Counts()
	total := 0
	var parts []string
	for _, rc := range counts {
		total += rc.Objects
		parts = append(parts, fmt.Sprintf("%s %d", rc.Resource, rc.Objects))
	}
	fmt.Fprintf(out, "Serving %s as context %q at %s\n", x.Name, c.name, c.server)
	collected := "collected " + x.CollectedAt.Format(time.RFC3339) + " (ages are as of then)"
	if x.CollectedAt.IsZero() {
		collected = "collection time unknown (the bundle does not tell it)"
	}
	fmt.Fprintf(out, "  Kubernetes %s, %s\n", termtext.Escape(x.Version.GitVersion), collected)
	fmt.Fprintf(out, "  %d objects in %d resources: %s\n", total, len(counts), termtext.Escape(strings.Join(parts, ", ")))
	for _, w := range x.Warnings {
		fmt.Fprintf(errOut, "warning: %s: %s\n", x.Name, termtext.Escape(w))
	}
}

// lockedWriter lets several servers write whole lines to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
