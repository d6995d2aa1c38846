package diff_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/transform/diff"
)

// TestLiveCollections collects three bundles from one live kube-apiserver:
// A0, then A after only the clock moved (a lease renewed, node
// heartbeats), then B after one change of every kind the summary
// highlights and of every kind of change. A0 and A are equal; A and B
// differ by exactly those changes.
func TestLiveCollections(t *testing.T) {
	c := localtest.Start(t)
	cfg, err := collect.LoadConfig(c.Kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l := &live{t: t, ctx: ctx, cs: kubernetes.NewForConfigOrDie(cfg)}
	dir := t.TempDir()
	bundle := func(name string) string {
		t.Helper()
		dest := filepath.Join(dir, name)
		if _, err := collect.Run(ctx, collect.Options{Config: cfg, Dest: dest}); err != nil {
			t.Fatal(err)
		}
		return dest
	}
	l.create()
	a0 := bundle("a0.tar.gz")
	time.Sleep(1100 * time.Millisecond) // another collection second
	l.clockOnly()
	a := bundle("a")
	l.change()
	b := bundle("b.tar")

	t.Run("clock only", func(t *testing.T) {
		rep := run(t, diff.Options{A: a0, B: a})
		if !rep.Equal || len(rep.Objects) != 0 {
			t.Fatalf("A0 and A differ: %v", changes(rep))
		}
		noise := map[string]int{}
		for _, k := range rep.Kinds {
			noise[k.Resource] = k.NoiseOnly
		}
		if noise["leases.coordination.k8s.io"] == 0 || noise["nodes"] != 2 || noise["configmaps"] != 1 {
			t.Errorf("noise left out per resource = %v, want the leases, both nodes and the ConfigMap written back", noise)
		}
		all := run(t, diff.Options{A: a0, B: a, All: true})
		if all.Equal {
			t.Error("with All, the renewed lease and the heartbeats are changes")
		}
	})
	t.Run("changes", func(t *testing.T) {
		rep := run(t, diff.Options{A: a, B: b})
		var text strings.Builder
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		// The changed cells of B's rows are marked; ages, which differ
		// with each collection time, are not.
		for _, cell := range []string{"Running   *3", "*NotReady", "*1/3", "*Failed"} {
			if !strings.Contains(text.String(), cell) {
				t.Errorf("the text report has no %q:\n%s", cell, text.String())
			}
		}
		if strings.Count(text.String(), "*") != 5 {
			t.Errorf("the text report marks %d cells, want 5:\n%s", strings.Count(text.String(), "*"), text.String())
		}
		want := []string{
			"added ConfigMap team-a/new-cm", "added Event team-a/web-1.backoff", "added Pod team-a/new-1",
			"changed ConfigMap team-a/cfg", "changed Deployment.apps team-a/web",
			"changed Node node-1", "changed Pod team-a/db-0", "changed Pod team-a/web-1",
			"removed Pod team-a/gone-1", "replaced Pod team-a/rec-1",
		}
		if d := cmp.Diff(want, changes(rep)); d != "" {
			t.Errorf("changes (-want +got):\n%s", d)
		}
		wantHighlights := []string{
			"RestartsUp Pod team-a/web-1: app 0 → 3",
			"NoLongerRunning Pod team-a/db-0: Running → Failed",
			"NewWarningEvent Event team-a/web-1.backoff: Pod web-1: BackOff: Back-off restarting failed container",
			"ImageChanged Deployment team-a/web: app nginx:1.25 → nginx:1.27",
			"NodeCondition Node node-1: Ready True → False",
			"FewerAvailableReplicas Deployment team-a/web: 3 → 1 available",
		}
		var got []string
		for _, h := range rep.Highlights {
			got = append(got, fmt.Sprintf("%s %s %s: %s", h.Type, h.Kind, name(h.Namespace, h.Name), h.Detail))
		}
		if d := cmp.Diff(wantHighlights, got); d != "" {
			t.Errorf("highlights (-want +got):\n%s", d)
		}
	})
}

func run(t *testing.T, o diff.Options) *diff.Report {
	t.Helper()
	rep, err := diff.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// changes are the report's objects as "change Kind[.group] ns/name", sorted.
func changes(rep *diff.Report) []string {
	var out []string
	for _, o := range rep.Objects {
		kind := o.Kind
		if o.Group != "" {
			kind += "." + o.Group
		}
		out = append(out, fmt.Sprintf("%s %s %s", o.Change, kind, name(o.Namespace, o.Name)))
	}
	sort.Strings(out)
	return out
}

func name(ns, n string) string {
	if ns == "" {
		return n
	}
	return ns + "/" + n
}

// live makes the objects of TestLiveCollections.
type live struct {
	t   *testing.T
	ctx context.Context
	cs  *kubernetes.Clientset
}

func (l *live) must(_ any, err error) {
	l.t.Helper()
	if err != nil {
		l.t.Fatal(err)
	}
}

func (l *live) create() {
	l.must(l.cs.CoreV1().Namespaces().Create(l.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}))
	for _, n := range []string{"node-1", "node-2"} {
		l.must(l.cs.CoreV1().Nodes().Create(l.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}))
		l.nodeStatus(n, corev1.ConditionTrue)
	}
	for _, p := range []string{"web-1", "db-0", "gone-1", "rec-1"} {
		l.pod(p, corev1.PodRunning, 0)
	}
	replicas := int32(3)
	labels := map[string]string{"app": "web"}
	dep, err := l.cs.AppsV1().Deployments("team-a").Create(l.ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.25"}}}}},
	}, metav1.CreateOptions{})
	l.must(dep, err)
	dep.Status = appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, UpdatedReplicas: 3}
	l.must(l.cs.AppsV1().Deployments("team-a").UpdateStatus(l.ctx, dep, metav1.UpdateOptions{}))
	l.must(l.cs.CoreV1().ConfigMaps("team-a").Create(l.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"level": "info"}}, metav1.CreateOptions{}))
	l.must(l.cs.CoreV1().ConfigMaps("team-a").Create(l.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "touched"}}, metav1.CreateOptions{}))
	holder := "me"
	now := metav1.NewMicroTime(time.Now())
	l.must(l.cs.CoordinationV1().Leases("team-a").Create(l.ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "leader"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &now}}, metav1.CreateOptions{}))
}

// clockOnly moves what moves with the clock alone: the lease renews, the
// nodes send heartbeats, and a ConfigMap is written back unchanged in
// content (a label added and removed: resourceVersion and managedFields).
func (l *live) clockOnly() {
	lease, err := l.cs.CoordinationV1().Leases("team-a").Get(l.ctx, "leader", metav1.GetOptions{})
	l.must(lease, err)
	now := metav1.NewMicroTime(time.Now())
	lease.Spec.RenewTime = &now
	l.must(l.cs.CoordinationV1().Leases("team-a").Update(l.ctx, lease, metav1.UpdateOptions{}))
	for _, n := range []string{"node-1", "node-2"} {
		l.nodeStatus(n, corev1.ConditionTrue)
	}
	cm, err := l.cs.CoreV1().ConfigMaps("team-a").Get(l.ctx, "touched", metav1.GetOptions{})
	l.must(cm, err)
	cm.Labels = map[string]string{"x": "y"}
	cm, err = l.cs.CoreV1().ConfigMaps("team-a").Update(l.ctx, cm, metav1.UpdateOptions{})
	l.must(cm, err)
	cm.Labels = nil
	l.must(l.cs.CoreV1().ConfigMaps("team-a").Update(l.ctx, cm, metav1.UpdateOptions{}))
}

// change makes one change of each kind the report tells.
func (l *live) change() {
	l.pod("web-1", corev1.PodRunning, 3)
	l.pod("db-0", corev1.PodFailed, 0)
	// No kubelet ends a bound pod's grace period: delete at once.
	now := metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
	del := l.cs.CoreV1().Pods("team-a").Delete
	l.must(nil, del(l.ctx, "gone-1", now))
	l.must(nil, del(l.ctx, "rec-1", now))
	l.pod("rec-1", corev1.PodRunning, 0)
	l.pod("new-1", corev1.PodPending, 0)
	deps := l.cs.AppsV1().Deployments("team-a")
	dep, err := deps.Get(l.ctx, "web", metav1.GetOptions{})
	l.must(dep, err)
	dep.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
	dep, err = deps.Update(l.ctx, dep, metav1.UpdateOptions{})
	l.must(dep, err)
	dep.Status.AvailableReplicas, dep.Status.ReadyReplicas = 1, 1
	l.must(deps.UpdateStatus(l.ctx, dep, metav1.UpdateOptions{}))
	l.nodeStatus("node-1", corev1.ConditionFalse)
	l.nodeStatus("node-2", corev1.ConditionTrue) // a heartbeat only
	cms := l.cs.CoreV1().ConfigMaps("team-a")
	cm, err := cms.Get(l.ctx, "cfg", metav1.GetOptions{})
	l.must(cm, err)
	cm.Data["level"] = "debug"
	l.must(cms.Update(l.ctx, cm, metav1.UpdateOptions{}))
	l.must(cms.Create(l.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new-cm"}}, metav1.CreateOptions{}))
	l.must(l.cs.CoreV1().Events("team-a").Create(l.ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web-1.backoff"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "team-a", Name: "web-1"},
		Type:           corev1.EventTypeWarning, Reason: "BackOff", Message: "Back-off restarting failed container", Count: 1,
		FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(),
	}, metav1.CreateOptions{}))
}

// pod creates the pod, or updates its status, with one container "app".
func (l *live) pod(name string, phase corev1.PodPhase, restarts int32) {
	pods := l.cs.CoreV1().Pods("team-a")
	p, err := pods.Get(l.ctx, name, metav1.GetOptions{})
	if err != nil {
		p, err = pods.Create(l.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}}, metav1.CreateOptions{})
		l.must(p, err)
	}
	p.Status = corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "busybox", RestartCount: restarts, Ready: phase == corev1.PodRunning}}}
	l.must(pods.UpdateStatus(l.ctx, p, metav1.UpdateOptions{}))
}

// nodeStatus sets the node's Ready condition with a heartbeat of now.
func (l *live) nodeStatus(name string, ready corev1.ConditionStatus) {
	n, err := l.cs.CoreV1().Nodes().Get(l.ctx, name, metav1.GetOptions{})
	l.must(n, err)
	transition := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if ready == corev1.ConditionFalse {
		transition = metav1.Now()
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastHeartbeatTime: metav1.Now(), LastTransitionTime: transition, Reason: "KubeletReady"}}
	n.Status.NodeInfo.KubeletVersion = "v1.37.1"
	l.must(l.cs.CoreV1().Nodes().UpdateStatus(l.ctx, n, metav1.UpdateOptions{}))
}
