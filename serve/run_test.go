package serve

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/serve/servetest"
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
}

func TestRunInsecureAndUpgrade(t *testing.T) {
	legacy := servetest.Small()
	delete(legacy, contract.DiscoveryPath())
	legacyDir := legacy.WriteDir(t, t.TempDir())
	upgraded, cleaned := false, false
	kubeconfig, _, stop := startRun(t, Options{
		Bundles:      []string{legacyDir},
		InsecureHTTP: true,
		Upgrade: func(ctx context.Context, b *contract.Bundle) (string, func(), error) {
			upgraded = b.DiscoveryJSON == nil
			return smallBundle(t), func() { cleaned = true }, nil
		},
	})
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
	if !upgraded || !cleaned {
		t.Errorf("upgrade hook called %v, cleanup called %v", upgraded, cleaned)
	}
}

func TestContextNames(t *testing.T) {
	got := contextNames([]string{"/a/support-bundle.tar.gz", "/b/support-bundle.tgz", "/c/my bundle/", "x.tar", "-"})
	want := []string{"support-bundle", "support-bundle-2", "my-bundle", "x", "bundle"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%v, want %v", got, want)
	}
}
