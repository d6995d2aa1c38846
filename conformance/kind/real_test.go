package kind

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/testenv"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
)

// realImage is the node image of the tests against a real Docker
// (BUNDLECTL_KIND_IMAGE, as scripts/conformance-kind.sh sets it); without
// it they are skipped: they need a daemon that runs privileged containers
// and an image of some 1 GB.
func realImage(t *testing.T) string {
	t.Helper()
	image := os.Getenv(testenv.KindImageEnv)
	if image == "" {
		t.Skip(testenv.KindImageEnv + " is not set: no real kind cluster (make conformance-kind sets it)")
	}
	return image
}

// kindContainers lists the containers of a kind cluster, as Docker has
// them: what a deletion must leave empty.
func kindContainers(t *testing.T, name string) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=io.x-k8s.kind.cluster="+name).Output()
	if err != nil {
		t.Fatalf("docker ps: %v", err)
	}
	return strings.Fields(string(out))
}

// A real cluster: Create returns once the node is Ready, the kubeconfig
// reaches it, Keep leaves it after Delete, a second Create of the name
// refuses it, and without Keep Delete leaves no container.
func TestRealCreateKeepAndDelete(t *testing.T) {
	image := realImage(t)
	const name = "bundlectl-real-keep"
	if left := kindContainers(t, name); len(left) > 0 {
		t.Fatalf("containers of %s exist before the test: %v", name, left)
	}
	t.Cleanup(func() {
		// Whatever the test left, as a user would remove it.
		kindcluster.NewProvider(kindcluster.ProviderWithDocker()).Delete(name, "")
	})
	ctx := context.Background()
	p := New(Options{Name: name, Image: image, Keep: true, WorkDir: t.TempDir(), RuntimeCLI: "docker"})
	start := time.Now()
	c, err := p.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("created %s in %s", name, time.Since(start).Round(time.Second))
	if !c.Created {
		t.Error("a cluster kind created is not marked Created")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("the kubeconfig does not reach the cluster: %v", err)
	}
	if len(nodes.Items) != 1 || controlPlaneReady(ctx, cs) != nil {
		t.Fatalf("%d nodes, ready: %v", len(nodes.Items), controlPlaneReady(ctx, cs))
	}
	if got := nodes.Items[0].Status.NodeInfo.KubeletVersion; got != c.Version {
		t.Errorf("kubelet %s, image tag %s", got, c.Version)
	}

	if err := p.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if len(kindContainers(t, name)) != 1 {
		t.Fatalf("Keep: the node container is gone after Delete")
	}
	_, err = New(Options{Name: name, Image: image, RuntimeCLI: "docker"}).Create(ctx)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a second cluster of the same name: %v", err)
	}
	if len(kindContainers(t, name)) != 1 {
		t.Fatalf("the refused Create touched the kept cluster")
	}

	p.opts.Keep = false
	if err := p.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if left := kindContainers(t, name); len(left) > 0 {
		t.Errorf("containers left after Delete: %v", left)
	}
}

// An image Docker does not have and cannot pull fails Create with kind's
// error (its pull failed), and leaves no container.
func TestRealMissingImage(t *testing.T) {
	realImage(t)
	const name = "bundlectl-real-noimage"
	image := "bundlectl.invalid/kind-node:v0.0.0"
	_, err := New(Options{Name: name, Image: image, WorkDir: t.TempDir(), RuntimeCLI: "docker"}).Create(context.Background())
	if err == nil || !strings.Contains(err.Error(), image) || !strings.Contains(err.Error(), "pull") {
		t.Fatalf("Create with a missing image: %v", err)
	}
	t.Logf("error: %v", err)
	if left := kindContainers(t, name); len(left) > 0 {
		t.Errorf("containers left: %v", left)
	}
}
