package kind

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// apiServer stands in for the API server of the kind node: the fake CLI
// maps the node's port to it and puts its CA in admin.conf, so the
// provider's readiness check runs against it through the kubeconfig kind
// writes.
type apiServer struct {
	srv      *httptest.Server
	ready    atomic.Bool
	requests atomic.Int32
}

func startAPIServer(t *testing.T) *apiServer {
	t.Helper()
	a := &apiServer{}
	a.ready.Store(true)
	a.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.requests.Add(1)
		if r.URL.Path != "/api/v1/nodes" || r.URL.Query().Get("labelSelector") != "node-role.kubernetes.io/control-plane" ||
			r.Header.Get("Authorization") != "Bearer fake-admin-token" {
			http.Error(w, "unexpected request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		cond := `{"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status"}`
		if !a.ready.Load() {
			cond = `{"type":"Ready","status":"False","reason":"KubeletNotReady","message":"container runtime network not ready: NetworkReady=false"}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"n-control-plane"},"status":{"conditions":[%s]}}]}`, cond)
	}))
	t.Cleanup(a.srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.srv.Certificate().Raw})
	t.Setenv("FAKE_CLI_CA", base64.StdEncoding.EncodeToString(ca))
	t.Setenv("FAKE_CLI_API", a.srv.Listener.Addr().String())
	return a
}

func hasCall(calls []string, prefix string) bool {
	return slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

func TestCreateAndDeleteThroughAFakeDocker(t *testing.T) {
	state := installFakeCLI(t, "docker")
	api := startAPIServer(t)
	image := Images.Images["1.36"]
	work := t.TempDir()
	var log bytes.Buffer
	p := New(Options{Name: "bc-test", Image: image, WorkDir: work, WaitReady: 30 * time.Second, Log: &log})
	c, err := p.Create(context.Background())
	if err != nil {
		t.Fatalf("Create: %v\ncalls:\n%s", err, strings.Join(fakeCalls(t, state), "\n"))
	}
	calls := fakeCalls(t, state)

	// Runtime detection asks the engine before kind runs anything.
	if calls[0] != "docker info --format {{.ServerVersion}}" {
		t.Errorf("first call %q, want the engine probe", calls[0])
	}
	// The image: pulled by digest, the node's image.
	for _, want := range []string{"docker inspect --type=image " + image, "docker pull " + image} {
		if !slices.Contains(calls, want) {
			t.Errorf("no call %q", want)
		}
	}
	containers := fakeContainers(state)
	node, ok := containers["bc-test-control-plane"]
	if !ok || len(containers) != 1 {
		t.Fatalf("containers %v, want bc-test-control-plane", containers)
	}
	if node.Image != image || node.Cluster != "bc-test" || node.Role != "control-plane" {
		t.Errorf("node %+v, want image %s of cluster bc-test", node, image)
	}
	if c.Name != "bc-test" || c.Version != "v1.36.4" || c.Kubeconfig != filepath.Join(work, "kubeconfig") {
		t.Errorf("cluster %+v", c)
	}

	// The kubeconfig: in the work dir, private, pointing at the node's
	// mapped port; the user's own kubeconfig is untouched.
	fi, err := os.Stat(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode %v, want 0600", fi.Mode().Perm())
	}
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "kind-bc-test" || cfg.Clusters["kind-bc-test"] == nil || cfg.Clusters["kind-bc-test"].Server != api.srv.URL {
		t.Errorf("kubeconfig: context %q, clusters %v; want kind-bc-test at %s", cfg.CurrentContext, cfg.Clusters, api.srv.URL)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("HOME"), ".kube")); !os.IsNotExist(err) {
		t.Errorf("~/.kube was written: %v", err)
	}

	// The wait is the provider's own, through that kubeconfig, not kind's
	// (which reports success when it times out).
	if api.requests.Load() == 0 {
		t.Error("the API server was never asked whether the node is Ready")
	}
	if slices.ContainsFunc(calls, func(c string) bool { return strings.Contains(c, " get nodes ") }) {
		t.Error("kind's own wait ran")
	}
	if !strings.Contains(log.String(), "kind: ") || !strings.Contains(log.String(), "Ensuring node image") {
		t.Errorf("kind's progress was not logged:\n%s", log.String())
	}

	// Delete removes the node and the cluster's kubeconfig entries.
	before := len(fakeCalls(t, state))
	if err := p.Delete(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := fakeCalls(t, state)[before:]
	if !slices.Contains(after, "docker rm -f -v bc-test-control-plane") {
		t.Errorf("Delete ran %q, no rm of the node", after)
	}
	if n := len(fakeContainers(state)); n != 0 {
		t.Errorf("%d containers left", n)
	}
	if cfg, err := clientcmd.LoadFromFile(c.Kubeconfig); err != nil || cfg.Contexts["kind-bc-test"] != nil {
		t.Errorf("kubeconfig after Delete: %v, %v", cfg, err)
	}
}

func TestDefaultsAreTheListedImageAndKindsName(t *testing.T) {
	state := installFakeCLI(t, "docker")
	startAPIServer(t)
	p := New(Options{WorkDir: t.TempDir()})
	if _, err := p.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Delete(context.Background())
	node, ok := fakeContainers(state)["bundlectl-conformance-control-plane"]
	if !ok || node.Image != DefaultImage {
		t.Errorf("containers %v, want bundlectl-conformance-control-plane of %s", fakeContainers(state), DefaultImage)
	}
}

func TestKeepLeavesTheClusterAlone(t *testing.T) {
	state := installFakeCLI(t, "docker")
	startAPIServer(t)
	p := New(Options{Name: "kept", WorkDir: t.TempDir(), Keep: true})
	if _, err := p.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := len(fakeCalls(t, state))
	if err := p.Delete(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := fakeCalls(t, state)[before:]; len(after) != 0 {
		t.Errorf("Delete with Keep ran %q", after)
	}
	if _, ok := fakeContainers(state)["kept-control-plane"]; !ok {
		t.Error("the kept node is gone")
	}
}

// kind's wait reports success when the node never gets Ready; the
// provider's fails, and removes the cluster unless Keep.
func TestANodeThatNeverGetsReadyFailsCreate(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			state := installFakeCLI(t, "docker")
			api := startAPIServer(t)
			api.ready.Store(false)
			p := New(Options{Name: "notready", WorkDir: t.TempDir(), WaitReady: 1500 * time.Millisecond, Keep: keep})
			start := time.Now()
			_, err := p.Create(context.Background())
			if err == nil {
				t.Fatal("Create succeeded with a node that is not Ready")
			}
			for _, want := range []string{`kind: creating cluster "notready"`, "not ready after 1.5s", "node n-control-plane is not Ready: KubeletNotReady: container runtime network not ready"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if d := time.Since(start); d < 1500*time.Millisecond {
				t.Errorf("gave up after %s", d)
			}
			_, left := fakeContainers(state)["notready-control-plane"]
			if left != keep {
				t.Errorf("node left: %v, want %v (keep)", left, keep)
			}
			if keep && !strings.Contains(err.Error(), "--keep") {
				t.Errorf("error %q does not say the cluster was kept", err)
			}
			if err := p.Delete(context.Background()); err != nil {
				t.Errorf("Delete after a failed Create: %v", err)
			}
		})
	}
}

// kind leaves its node running when it cannot export the kubeconfig; the
// provider deletes it.
func TestAFailedCreateLeavesNoContainer(t *testing.T) {
	for _, step := range []string{"cat /etc/kubernetes/admin.conf", "kubeadm init", "docker logs"} {
		t.Run(step, func(t *testing.T) {
			state := installFakeCLI(t, "docker")
			startAPIServer(t)
			t.Setenv("FAKE_CLI_FAIL", step)
			p := New(Options{Name: "broken", WorkDir: t.TempDir()})
			_, err := p.Create(context.Background())
			if err == nil || !strings.Contains(err.Error(), `kind: creating cluster "broken" with image `+DefaultImage) {
				t.Fatalf("Create: %v", err)
			}
			if n := len(fakeContainers(state)); n != 0 {
				t.Errorf("%d containers left after the failure:\n%s", n, strings.Join(fakeCalls(t, state), "\n"))
			}
		})
	}
}

// A cluster of the chosen name is someone else's: Create refuses it and
// never deletes it.
func TestAnExistingClusterIsNeverTouched(t *testing.T) {
	state := installFakeCLI(t, "docker")
	startAPIServer(t)
	if code := fakeCLI("docker", []string{"run", "--name", "mine-control-plane", "--label", "io.x-k8s.kind.cluster=mine", "kindest/node:v1.30.0"}, nil, io.Discard, io.Discard); code != 0 {
		t.Fatal("could not start the existing node")
	}
	p := New(Options{Name: "mine", WorkDir: t.TempDir()})
	_, err := p.Create(context.Background())
	if err == nil || !strings.Contains(err.Error(), `a cluster named "mine" already exists`) {
		t.Fatalf("Create: %v", err)
	}
	calls := fakeCalls(t, state)[1:] // after the existing node's run
	if hasCall(calls, "docker rm") || hasCall(calls, "docker run") {
		t.Errorf("the existing cluster was touched: %q", calls)
	}
	if err := p.Delete(context.Background()); err != nil || hasCall(fakeCalls(t, state), "docker rm") {
		t.Errorf("Delete: %v, calls %q", err, fakeCalls(t, state))
	}
}

// With the docker CLI but no engine (these build machines), --kind fails
// at once with the message it always had, and kind runs nothing.
func TestNoEngineFailsAtOnce(t *testing.T) {
	state := installFakeCLI(t, "docker")
	t.Setenv("FAKE_CLI_NO_ENGINE", "docker")
	start := time.Now()
	_, err := New(Options{WorkDir: t.TempDir()}).Create(context.Background())
	if !errors.Is(err, ErrNoContainerRuntime) {
		t.Fatalf("err = %v, want ErrNoContainerRuntime", err)
	}
	want := "no container runtime is running (docker, podman or nerdctl): kind needs one; use --local to run the gate against a local kube-apiserver instead " +
		"(docker: engine not reachable: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?; podman: not installed; nerdctl: not installed)"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	if calls := fakeCalls(t, state); !slices.Equal(calls, []string{"docker info --format {{.ServerVersion}}"}) {
		t.Errorf("calls %q, want only the probe", calls)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// The first CLI whose engine answers is the one kind drives.
func TestRuntimeDetection(t *testing.T) {
	for _, tc := range []struct {
		name, runtime, env string
		probed             []string // the CLIs probed, in order
		kind               string   // the CLI kind then drives
	}{
		{name: "docker down, podman up", probed: []string{"docker", "podman"}, kind: "podman"},
		{name: "chosen", runtime: "podman", probed: []string{"podman"}, kind: "podman"},
		{name: "KIND_EXPERIMENTAL_PROVIDER", env: "podman", probed: []string{"podman"}, kind: "podman"},
		{name: "flag over environment", runtime: "docker", env: "podman", probed: []string{"docker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := installFakeCLI(t, "docker", "podman")
			t.Setenv("FAKE_CLI_NO_ENGINE", "docker")
			t.Setenv("KIND_EXPERIMENTAL_PROVIDER", tc.env)
			_, err := New(Options{Name: "rt", RuntimeCLI: tc.runtime, WorkDir: t.TempDir()}).Create(context.Background())
			if err == nil {
				t.Fatal("Create succeeded; the fake podman can only be probed")
			}
			var probed []string
			var rest []string
			for _, c := range fakeCalls(t, state) {
				cli, args, _ := strings.Cut(c, " ")
				if strings.HasPrefix(args, "info --format {{.") && len(rest) == 0 {
					probed = append(probed, cli)
				} else {
					rest = append(rest, c)
				}
			}
			if !slices.Equal(probed, tc.probed) {
				t.Errorf("probed %v, want %v", probed, tc.probed)
			}
			if tc.kind == "" {
				if !errors.Is(err, ErrNoContainerRuntime) {
					t.Errorf("err = %v, want ErrNoContainerRuntime", err)
				}
				return
			}
			if len(rest) == 0 {
				t.Fatalf("kind ran nothing: %v", err)
			}
			for _, c := range rest {
				if !strings.HasPrefix(c, tc.kind+" ") {
					t.Errorf("kind ran %q, want only %s", c, tc.kind)
				}
			}
		})
	}
}

func TestBadRuntimeOrNameFailsBeforeAnyCall(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		env  string
		want string
	}{
		{opts: Options{RuntimeCLI: "lxc"}, want: "kind: --kind-runtime=lxc: want one of docker, podman, nerdctl, finch, nerdctl.lima"},
		{env: "rkt", want: "kind: KIND_EXPERIMENTAL_PROVIDER=rkt: want one of docker, podman, nerdctl, finch, nerdctl.lima"},
		{opts: Options{Name: "My_Cluster"}, want: `kind: cluster name "My_Cluster": kind accepts lower-case letters, digits, '.' and '-' only`},
	} {
		state := installFakeCLI(t, "docker")
		t.Setenv("KIND_EXPERIMENTAL_PROVIDER", tc.env)
		_, err := New(tc.opts).Create(context.Background())
		if err == nil || err.Error() != tc.want {
			t.Errorf("err = %v, want %s", err, tc.want)
		}
		if calls := fakeCalls(t, state); len(calls) != 0 {
			t.Errorf("calls %q", calls)
		}
	}
}

// On this machine the docker CLI exists but no daemon runs: the real probe
// must say so rather than let kind try.
func TestProbeEngineRefusesAClientWithoutDaemon(t *testing.T) {
	err := probeEngine(context.Background(), "docker")
	if err == nil {
		t.Skip("a docker engine is running here")
	}
	if !strings.Contains(err.Error(), "not installed") && !strings.Contains(err.Error(), "engine not reachable") {
		t.Errorf("probe error %q", err)
	}
}
