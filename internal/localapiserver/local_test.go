package localapiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/conformance/cluster"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
)

var _ cluster.Provider = (*localapiserver.Provider)(nil)

func TestMissingBinariesNameTheFolderAndTheBuildCommand(t *testing.T) {
	cache := t.TempDir()
	work := t.TempDir()
	binDir := localapiserver.BinDir(cache, localapiserver.Version)
	// A half-built cache: kube-apiserver is there, etcd is not.
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(binDir, "kube-apiserver"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := localapiserver.New(localapiserver.Options{CacheDir: cache, WorkDir: work, NoBuild: true})
	_, err := p.Create(context.Background())
	if !errors.Is(err, localapiserver.ErrNotBuilt) {
		t.Fatalf("err = %v, want ErrNotBuilt", err)
	}
	for _, want := range []string{binDir, "scripts/build-local-apiserver.sh --kube-version " + localapiserver.Version + " " + binDir, "[etcd]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	assertEmpty(t, work)
	if err := p.Delete(context.Background()); err != nil {
		t.Errorf("Delete after a failed Create: %v", err)
	}
}

// The recipe has one copy: scripts/ links to the file the package embeds.
func TestScriptsLinkToTheEmbeddedScript(t *testing.T) {
	link := filepath.Join("..", "..", "scripts", "build-local-apiserver.sh")
	fi, err := os.Lstat(link)
	if _, gerr := os.Stat(filepath.Join("..", "..", ".git")); err != nil && gerr != nil {
		// Module zips (go install, the module cache) drop symlinks.
		t.Skipf("not a checkout: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is a copy, not a symlink to internal/localapiserver/build-local-apiserver.sh", link)
	}
	data, err := os.ReadFile(link)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, localapiserver.BuildScript()) {
		t.Errorf("%s differs from the embedded build script", link)
	}
	if !bytes.Contains(data, []byte("PINNED_VERSION="+localapiserver.Version+"\n")) ||
		!bytes.Contains(data, []byte("ETCD_VERSION="+localapiserver.EtcdVersion+"\n")) {
		t.Errorf("the build script does not build kube-apiserver %s and etcd %s", localapiserver.Version, localapiserver.EtcdVersion)
	}
}

func TestServer(t *testing.T) {
	c := localtest.Start(t)
	if c.Version != localapiserver.Version || c.Name == "" {
		t.Errorf("cluster = %+v", c)
	}
	fi, err := os.Stat(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("kubeconfig mode %o, want 600: it holds the admin token", perm)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("version", func(t *testing.T) {
		v, err := cs.Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if v.GitVersion != localapiserver.Version {
			t.Errorf("gitVersion %q, want %s", v.GitVersion, localapiserver.Version)
		}
	})

	// A pod in a brand-new namespace, which has no default ServiceAccount:
	// the provider disables the ServiceAccount admission plugin for that.
	const ns, podName = "conformance", "web"
	t.Run("namespace and pod", func(t *testing.T) {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: podName, Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
		}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		gotNS, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil || gotNS.Status.Phase != corev1.NamespaceActive {
			t.Fatalf("namespace %s: %v, %v", ns, gotNS.Status.Phase, err)
		}
		got, err := cs.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Containers[0].Image != "nginx:1.27" || got.Labels["app"] != "web" || got.UID == "" {
			t.Errorf("read back %+v", got)
		}
		// Nothing schedules it: no controllers, no kubelet.
		if got.Spec.NodeName != "" || got.Status.Phase != corev1.PodPending {
			t.Errorf("pod node %q phase %q, want unscheduled and Pending", got.Spec.NodeName, got.Status.Phase)
		}
	})

	t.Run("table", func(t *testing.T) {
		raw, err := cs.CoreV1().RESTClient().Get().
			AbsPath("/api/v1/namespaces", ns, "pods").
			SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").
			DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var table metav1.Table
		if err := json.Unmarshal(raw, &table); err != nil {
			t.Fatal(err)
		}
		if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" {
			t.Fatalf("got %s %s, want a meta.k8s.io/v1 Table: %.300s", table.APIVersion, table.Kind, raw)
		}
		var cols []string
		for _, c := range table.ColumnDefinitions {
			cols = append(cols, c.Name)
		}
		// The server's pod printer, not the default Name/Created At table.
		if want := "Name,Ready,Status,Restarts,Age"; !strings.HasPrefix(strings.Join(cols, ","), want) {
			t.Errorf("columns %v, want them to start with %s", cols, want)
		}
		if len(table.Rows) != 1 || table.Rows[0].Cells[0] != podName || table.Rows[0].Cells[2] != "Pending" {
			t.Errorf("rows %+v, want one for pod %s, Pending", table.Rows, podName)
		}
	})

	t.Run("every printer kind is served", func(t *testing.T) {
		_, lists, err := cs.Discovery().ServerGroupsAndResources()
		if err != nil {
			t.Fatal(err)
		}
		served := map[schema.GroupKind][]string{}
		for _, l := range lists {
			gv, err := schema.ParseGroupVersion(l.GroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range l.APIResources {
				if !strings.Contains(r.Name, "/") {
					gk := gv.WithKind(r.Kind).GroupKind()
					served[gk] = append(served[gk], gv.Version)
				}
			}
		}
		for _, gk := range printerKinds {
			if len(served[gk]) == 0 {
				t.Errorf("%s is not served", gk)
			}
		}
		// The alpha versions the default feature gates and runtime
		// config exist for.
		for gk, version := range map[schema.GroupKind]string{
			{Group: "coordination.k8s.io", Kind: "LeaseCandidate"}:                   "v1alpha2",
			{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}: "v1alpha1",
			{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:                      "v1alpha3",
			{Group: "resource.k8s.io", Kind: "ResourcePoolStatusRequest"}:            "v1alpha3",
			{Group: "scheduling.k8s.io", Kind: "Workload"}:                           "v1beta1",
			{Group: "scheduling.k8s.io", Kind: "PodGroup"}:                           "v1beta1",
			{Group: "scheduling.k8s.io", Kind: "CompositePodGroup"}:                  "v1alpha3",
			{Group: "lifecycle.k8s.io", Kind: "EvictionRequest"}:                     "v1alpha1",
			{Group: "lifecycle.k8s.io", Kind: "Eviction"}:                            "v1alpha1",
		} {
			if !contains(served[gk], version) {
				t.Errorf("%s is served in %v, not in %s", gk, served[gk], version)
			}
		}
	})
}

// printerKinds are the kinds of the Kubernetes 1.37 table printers
// (k8s.io/kubernetes/pkg/printers/internalversion), less Status and Scale,
// which are not resources of their own.
var printerKinds = []schema.GroupKind{
	{Kind: "Pod"}, {Kind: "PodTemplate"}, {Kind: "ReplicationController"}, {Kind: "Service"},
	{Kind: "Endpoints"}, {Kind: "Node"}, {Kind: "Event"}, {Kind: "Namespace"}, {Kind: "Secret"},
	{Kind: "ServiceAccount"}, {Kind: "PersistentVolume"}, {Kind: "PersistentVolumeClaim"},
	{Kind: "ComponentStatus"}, {Kind: "ConfigMap"}, {Kind: "ResourceQuota"},
	{Group: "policy", Kind: "PodDisruptionBudget"},
	{Group: "apps", Kind: "ReplicaSet"}, {Group: "apps", Kind: "DaemonSet"}, {Group: "apps", Kind: "StatefulSet"},
	{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "ControllerRevision"},
	{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
	{Group: "networking.k8s.io", Kind: "Ingress"}, {Group: "networking.k8s.io", Kind: "IngressClass"},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}, {Group: "networking.k8s.io", Kind: "ServiceCIDR"},
	{Group: "networking.k8s.io", Kind: "IPAddress"},
	{Group: "events.k8s.io", Kind: "Event"},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"},
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}, {Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"},
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"},
	{Group: "coordination.k8s.io", Kind: "Lease"}, {Group: "coordination.k8s.io", Kind: "LeaseCandidate"},
	{Group: "storage.k8s.io", Kind: "StorageClass"}, {Group: "storage.k8s.io", Kind: "VolumeAttributesClass"},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}, {Group: "storage.k8s.io", Kind: "CSINode"},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}, {Group: "storage.k8s.io", Kind: "CSIStorageCapacity"},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, {Group: "scheduling.k8s.io", Kind: "Workload"},
	{Group: "scheduling.k8s.io", Kind: "PodGroup"}, {Group: "scheduling.k8s.io", Kind: "CompositePodGroup"},
	{Group: "lifecycle.k8s.io", Kind: "EvictionRequest"}, {Group: "lifecycle.k8s.io", Kind: "Eviction"},
	{Group: "resource.k8s.io", Kind: "ResourcePoolStatusRequest"},
	{Group: "node.k8s.io", Kind: "RuntimeClass"},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"},
	{Group: "internal.apiserver.k8s.io", Kind: "StorageVersion"},
	{Group: "resource.k8s.io", Kind: "DeviceClass"}, {Group: "resource.k8s.io", Kind: "ResourceClaim"},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}, {Group: "resource.k8s.io", Kind: "ResourceSlice"},
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"},
	{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"},
}

func TestDeleteStopsTheProcessesAndRemovesTheWorkDir(t *testing.T) {
	work := t.TempDir()
	p, _ := localtest.StartWith(t, localapiserver.Options{WorkDir: work})
	pids := localapiserver.PIDs(p)
	if len(pids) != 2 {
		t.Fatalf("PIDs %v, want etcd and kube-apiserver", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d is not running before Delete", pid)
		}
	}
	if entries, _ := os.ReadDir(work); len(entries) != 1 {
		t.Fatalf("work dir parent holds %v, want the one work dir", entries)
	}
	start := time.Now()
	if err := p.Delete(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("Delete took %s", time.Since(start))
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs after Delete", pid)
		}
	}
	assertEmpty(t, work)
	if err := p.Delete(context.Background()); err != nil {
		t.Errorf("a second Delete: %v", err)
	}
}

func TestKeepKeepsTheWorkDirButNotTheProcesses(t *testing.T) {
	work, logs := t.TempDir(), t.TempDir()
	p, c := localtest.StartWith(t, localapiserver.Options{WorkDir: work, LogDir: logs, Keep: true})
	pids := localapiserver.PIDs(p)
	if err := p.Delete(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs after Delete with Keep", pid)
		}
	}
	if _, err := os.Stat(c.Kubeconfig); err != nil {
		t.Errorf("Keep: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(logs, "kube-apiserver.log")); err != nil || len(data) == 0 {
		t.Errorf("kube-apiserver.log in LogDir: %d bytes, %v", len(data), err)
	}
}

func TestCancelledCreateLeavesNothing(t *testing.T) {
	binDir := localtest.RequireBinaries(t)
	work := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var p *localapiserver.Provider
	var pids []int
	p = localapiserver.New(localapiserver.WithHook(localapiserver.Options{BinDir: binDir, WorkDir: work, NoBuild: true}, func(stage string) {
		if stage == "apiserver-started" {
			pids = localapiserver.PIDs(p)
			for _, pid := range pids {
				if !alive(pid) {
					t.Errorf("process %d is not running at %s", pid, stage)
				}
			}
			cancel() // as Ctrl-C would, half-way through Create
		}
	}))
	_, err := p.Create(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Create: %v, want context.Canceled", err)
	}
	if len(pids) != 2 {
		t.Fatalf("PIDs at apiserver-started: %v", pids)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs after the cancelled Create", pid)
		}
	}
	assertEmpty(t, work)
}

func TestAFailingStartShowsTheLogAndLeavesNothing(t *testing.T) {
	binDir := localtest.RequireBinaries(t)
	work := t.TempDir()
	p := localapiserver.New(localapiserver.Options{BinDir: binDir, WorkDir: work, NoBuild: true,
		APIServerFlags: []string{"--no-such-flag"}})
	_, err := p.Create(context.Background())
	if err == nil {
		p.Delete(context.Background())
		t.Fatal("kube-apiserver started with an unknown flag")
	}
	for _, want := range []string{"kube-apiserver exited", "kube-apiserver.log", "unknown flag: --no-such-flag"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	assertEmpty(t, work)
}

func TestReadyTimeout(t *testing.T) {
	binDir := localtest.RequireBinaries(t)
	work := t.TempDir()
	p := localapiserver.New(localapiserver.Options{BinDir: binDir, WorkDir: work, NoBuild: true, ReadyTimeout: time.Millisecond})
	_, err := p.Create(context.Background())
	if err == nil {
		p.Delete(context.Background())
		t.Fatal("ready within a millisecond")
	}
	if !strings.Contains(err.Error(), "not ready after 1ms") || !strings.Contains(err.Error(), "kube-apiserver.log") {
		t.Errorf("error %q", err)
	}
	assertEmpty(t, work)
}

// alive reports whether pid is a running process (signal 0 checks).
func alive(pid int) bool {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return proc.Signal(syscall.Signal(0)) == nil
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left in %s", e.Name(), dir)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
