package serve

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// startRun runs Run in the background and returns the kubeconfig once the
// bundles are served; stop ends Run and returns its error.
func startRun(t *testing.T, o Options) (kubeconfig string, out *bytes.Buffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	out = &bytes.Buffer{}
	o.Out, o.ErrOut = out, out
	o.Ready = func(p string) { ready <- p }
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	select {
	case kubeconfig = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Run: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("Run did not start")
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return kubeconfig, out, stop
}

func TestRun(t *testing.T) {
	dir := smallBundle(t)
	kubeconfig, out, stop := startRun(t, Options{Bundles: []string{dir, dir}})
	fi, err := os.Stat(kubeconfig)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig: %v %v", fi.Mode(), err)
	}
	for _, want := range []string{"Kubernetes v1.31.2, collected 2025-11-20T10:00:00Z", "23 objects in 10 resources", "pods 5", "export KUBECONFIG=" + kubeconfig + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Contexts) != 2 || cfg.CurrentContext != "support-bundle-2025-11-20T10_00_00" || cfg.Contexts["support-bundle-2025-11-20T10_00_00-2"] == nil {
		t.Fatalf("contexts %v, current %s", cfg.Contexts, cfg.CurrentContext)
	}
	for name := range cfg.Contexts {
		rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rc.Host, "https://127.0.0.1:") {
			t.Errorf("%s: host %s", name, rc.Host)
		}
		client, err := rest.HTTPClientFor(rc)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(rc.Host + "/api/v1/namespaces/default/pods/web-1")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", name, resp, err)
		}
		resp.Body.Close()
		// The same TLS without the token.
		tlsOnly := *rc
		tlsOnly.BearerToken = ""
		anonymous, _ := rest.HTTPClientFor(&tlsOnly)
		resp, err = anonymous.Get(rc.Host + "/api/v1/pods")
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s without token: %v %v", name, resp, err)
		}
		resp.Body.Close()
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Errorf("kubeconfig left behind: %v", err)
	}
	if strings.Contains(out.String(), "GET /") {
		t.Errorf("requests logged without Verbose:\n%s", out.String())
	}
}

// A bundle that does not tell when it was collected is served, and the
// summary says the time is unknown, where it printed "collected
// 0001-01-01T00:00:00Z".
func TestRunCollectedAtUnknown(t *testing.T) {
	files := servetest.Small()
	d, err := contract.ParseDiscovery(files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	d.CollectedAt = metav1.Time{}
	if files[contract.DiscoveryPath()], err = d.Marshal(); err != nil {
		t.Fatal(err)
	}
	_, out, stop := startRun(t, Options{Bundles: []string{files.WriteDir(t, t.TempDir())}})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if want := "  Kubernetes v1.31.2, collection time unknown (the bundle does not tell it)\n"; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "0001-") {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// With Verbose every request is logged on ErrOut, with the context it
// was sent to when several bundles are served.
func TestRunVerbose(t *testing.T) {
	dir := smallBundle(t)
	kubeconfig, out, stop := startRun(t, Options{Bundles: []string{dir, dir}, InsecureHTTP: true, Verbose: true})
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for name, ctx := range cfg.Contexts {
		resp, err := http.Get(cfg.Clusters[ctx.Cluster].Server + "/api/v1/namespaces/default/pods/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"support-bundle-2025-11-20T10_00_00", "support-bundle-2025-11-20T10_00_00-2"} {
		want := regexp.MustCompile(`(?m)^` + name + `: GET /api/v1/namespaces/default/pods/` + name + ` 404 [0-9]+B [0-9.]+(µs|ms|s)$`)
		if !want.MatchString(out.String()) {
			t.Errorf("no line %s in:\n%s", want, out.String())
		}
	}
}

func TestRunInsecureAndUpgrade(t *testing.T) {
	legacy := servetest.Small()
	delete(legacy, contract.DiscoveryPath())
	legacyDir := legacy.WriteDir(t, t.TempDir())
	upgraded, cleaned := false, false
	kubeconfig, _, stop := startRun(t, Options{
		Bundles:      []string{legacyDir},
		InsecureHTTP: true,
		Upgrade: func(ctx context.Context, b *contract.Bundle, dir string) (string, []contract.Problem, func(), error) {
			upgraded = b.DiscoveryJSON == nil && strings.HasPrefix(filepath.Base(dir), runDirPrefix)
			return smallBundle(t), nil, func() { cleaned = true }, nil
		},
	})
	if !upgraded || !cleaned {
		t.Errorf("upgrade hook called %v (in the run's folder), cleanup called once loaded %v", upgraded, cleaned)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.Host, "http://127.0.0.1:") || cfg.BearerToken != "" {
		t.Errorf("insecure config: %s token %q", cfg.Host, cfg.BearerToken)
	}
	resp, err := http.Get(cfg.Host + "/api/v1/namespaces")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("insecure request: %v %v", resp, err)
	}
	resp.Body.Close()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestContextNames(t *testing.T) {
	got := contextNames([]string{"/a/support-bundle.tar.gz", "/b/support-bundle.tgz", "/c/my bundle/", "x.tar", "-"})
	want := []string{"support-bundle", "support-bundle-2", "my-bundle", "x", "bundle"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%v, want %v", got, want)
	}
}

// TestRunKubeconfigPath writes the kubeconfig where the caller asks (the
// scripts that run serve in the background wait for it there) and removes
// that file, and only it, when Run returns.
func TestRunKubeconfigPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	kubeconfig, out, stop := startRun(t, Options{Bundles: []string{smallBundle(t)}, Kubeconfig: path})
	if kubeconfig != path || !strings.Contains(out.String(), "export KUBECONFIG="+path+"\n") {
		t.Fatalf("kubeconfig %s:\n%s", kubeconfig, out)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig: %v %v", fi, err)
	}
	if _, err := clientcmd.LoadFromFile(path); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("kubeconfig left behind: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("the folder is gone or holds leftovers: %v %v", entries, err)
	}
}

// TestRunRefusesKubeconfigPath never replaces a file, and never writes the
// user's own kubeconfig; both are refused before the bundle is loaded.
func TestRunRefusesKubeconfigPath(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(existing, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		existing:                      "already exists",
		clientcmd.RecommendedHomeFile: "never touches the user's kubeconfig",
	} {
		err := Run(context.Background(), Options{Bundles: []string{"/nonexistent/bundle"}, Kubeconfig: path})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if data, _ := os.ReadFile(existing); string(data) != "mine\n" {
		t.Errorf("the existing file was changed: %q", data)
	}
}

// TestRunNonLoopback listens on every interface: serve warns, the
// kubeconfig still dials the loopback address, and the certificate is
// valid for the machine's other addresses too, so other machines can
// verify it. The default address is loopback and says nothing.
func TestRunNonLoopback(t *testing.T) {
	_, out, stop := startRun(t, Options{Bundles: []string{smallBundle(t)}})
	stop()
	if strings.Contains(out.String(), "warning") {
		t.Errorf("warning on loopback:\n%s", out)
	}

	kubeconfig, out, _ := startRun(t, Options{Bundles: []string{smallBundle(t)}, Address: "0.0.0.0"})
	if !strings.Contains(out.String(), "warning: --address 0.0.0.0 is not a loopback address: other machines can reach the served bundle, with HTTPS and the token in the kubeconfig") {
		t.Errorf("no warning:\n%s", out)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.Host, "https://127.0.0.1:") {
		t.Errorf("host %s", cfg.Host)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(cfg.Host, "https://"), ":")
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
			continue
		}
		remote := *cfg
		remote.Host = "https://" + net.JoinHostPort(n.IP.String(), port)
		client, err := rest.HTTPClientFor(&remote)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(remote.Host + "/api/v1/namespaces/default/pods/web-1")
		if err != nil {
			t.Errorf("%s: %v", remote.Host, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", remote.Host, resp.StatusCode)
		}
	}

	_, out, _ = startRun(t, Options{Bundles: []string{smallBundle(t)}, Address: "0.0.0.0", InsecureHTTP: true})
	if !strings.Contains(out.String(), "over plain HTTP with no token: anyone who can reach it can read the bundle") {
		t.Errorf("no warning for plain HTTP:\n%s", out)
	}
}

// TestRunPort serves the first bundle on the port asked for and the next
// bundles on the next ports.
func TestRunPort(t *testing.T) {
	var port int
	for range 10 {
		// Two free ports in a row, as far as anyone can know in advance.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if next, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+1))); err == nil {
			next.Close()
			break
		}
	}
	kubeconfig, _, _ := startRun(t, Options{Bundles: []string{smallBundle(t), smallBundle(t)}, Port: port, InsecureHTTP: true})
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var servers []string
	for _, name := range []string{"support-bundle-2025-11-20T10_00_00", "support-bundle-2025-11-20T10_00_00-2"} {
		servers = append(servers, cfg.Clusters[name].Server)
	}
	want := []string{fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://127.0.0.1:%d", port+1)}
	if !slices.Equal(servers, want) {
		t.Errorf("servers %v, want %v", servers, want)
	}
}

// TestRunKubeconfigThroughLinks: the kubeconfig is never written through
// a link, and it is removed from the folder it was written to, only if it
// is still the file written, even when a link in its path now leads
// elsewhere: removing by path had removed whatever the path named at exit
// (the user's own kubeconfig, through a folder link changed meanwhile).
func TestRunKubeconfigThroughLinks(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	for _, d := range []string{first, second} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The name itself a link, even to nothing: refused, nothing created.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(second, "target"), dangling); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), Options{Bundles: []string{"/nonexistent/bundle"}, Kubeconfig: dangling})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a link as the kubeconfig: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(second, "target")); !os.IsNotExist(err) {
		t.Errorf("written through the link: %v", err)
	}

	link := filepath.Join(dir, "link")
	if err := os.Symlink(first, link); err != nil {
		t.Fatal(err)
	}
	kubeconfig, _, stop := startRun(t, Options{Bundles: []string{smallBundle(t)}, Kubeconfig: filepath.Join(link, "kubeconfig")})
	if _, err := os.Stat(filepath.Join(first, "kubeconfig")); err != nil || kubeconfig != filepath.Join(link, "kubeconfig") {
		t.Fatalf("kubeconfig %s not written in the folder the link named: %v", kubeconfig, err)
	}
	// The link now leads to a folder holding someone's own kubeconfig.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(second, link); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(second, "kubeconfig"), []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(second, "kubeconfig")); string(data) != "mine\n" {
		t.Errorf("the other folder's kubeconfig was removed or changed: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(first, "kubeconfig")); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig written is left: %v", err)
	}
}
