package contracttest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pods.

type podState int

const (
	stRunning podState = iota
	stNotReady
	stCrashLoop
	stUnschedulable
	stCreating
	stImagePull
	stSucceeded
	stEvicted
)

var stateNames = [...]string{"Running", "Running", "CrashLoopBackOff", "Pending", "ContainerCreating", "ImagePullBackOff", "Completed", "Evicted"}

func (s podState) active() bool    { return s < stSucceeded }
func (s podState) scheduled() bool { return s != stUnschedulable }
func (s podState) troubled() bool  { return s != stRunning && s != stSucceeded }

// gPod is what is known of a pod before its object is built.
type gPod struct {
	d                *gDeploy
	k, global        int
	name             string
	uid              types.UID
	state            podState
	node             *gNode
	ip               string
	created, started time.Time // started: the sandbox is ready
	ready            time.Time // containers ready (or last transition)
	restarts         int32
	sideRestarts     int32
	lastExit         int32
	lastReason       string
	lastStart        time.Time
	lastFinish       time.Time
	r                rnd
}

func (g *generator) pod(d *gDeploy, k int) *gPod {
	r := g.rng(streamPod, uint64(d.idx), uint64(k))
	p := &gPod{d: d, k: k, global: d.podStart + k, r: r}
	p.name = d.rsName + "-" + podSuffix(k, d.suffixMul, d.suffix0)
	p.uid = r.uid()
	crash, notReady := []float64{0.008, 0.12, 0.7}[d.trouble], []float64{0.004, 0.08, 0.05}[d.trouble]
	switch x := r.Float64(); {
	case x < crash:
		p.state = stCrashLoop
	case x < crash+notReady:
		p.state = stNotReady
	case x < crash+notReady+0.012:
		p.state = stUnschedulable
	case x < crash+notReady+0.020:
		p.state = stCreating
	case x < crash+notReady+0.032:
		p.state = stImagePull
	case x < crash+notReady+0.045:
		p.state = stSucceeded
	case x < crash+notReady+0.065:
		p.state = stEvicted
	default:
		p.state = stRunning
	}
	if p.state.scheduled() {
		pos := (uint64(p.global)*g.permMul + g.permAdd) % uint64(max(g.spec.Pods, 1))
		W := uint64(len(g.workers))
		p.node = g.workers[pos%W]
		p.ip = ipv4(p.node.podCIDR + 2 + uint32(pos/W))
	}
	// Most pods came up with their ReplicaSet's rollout; some replaced
	// others later.
	span := g.at.Sub(d.rsCreated)
	switch {
	case p.state == stUnschedulable || p.state == stCreating || p.state == stImagePull:
		p.created = g.at.Add(-r.ago(30*time.Second, max(min(span, 3*time.Hour), time.Minute)))
	case r.chance(0.8):
		p.created = d.rsCreated.Add(r.between(0, min(span/4, 10*time.Minute)))
	default:
		p.created = g.at.Add(-r.ago(time.Minute, span))
	}
	if !p.created.Before(g.at) {
		p.created = g.at.Add(-time.Second)
	}
	p.started = p.created.Add(r.between(1*time.Second, 3*time.Second))
	p.ready = p.started.Add(time.Duration(d.lang.startSecs)*time.Second + r.between(time.Second, 8*time.Second))
	if p.ready.After(g.at) {
		p.ready = g.at.Add(-time.Second)
	}
	switch p.state {
	case stRunning, stNotReady:
		if age := g.at.Sub(p.ready); age > 5*time.Minute && r.chance(0.12) {
			p.restarts = int32(1 + r.IntN(4))
			p.lastReason, p.lastExit = pick(r, []string{"Error", "Error", "OOMKilled", "Completed"}), 1
			switch p.lastReason {
			case "OOMKilled":
				p.lastExit = 137
			case "Completed":
				p.lastExit = 0
			}
			p.lastFinish = p.ready.Add(r.between(age/3, age*3/4))
			p.lastStart = p.lastFinish.Add(-r.between(time.Minute, max(time.Minute*2, p.lastFinish.Sub(p.ready))))
			if p.lastStart.Before(p.started) {
				p.lastStart = p.started.Add(time.Second)
			}
			p.ready = p.lastFinish.Add(r.between(11*time.Second, 40*time.Second))
			if p.ready.After(g.at) {
				p.ready = g.at.Add(-time.Second)
			}
		}
		if p.state == stNotReady {
			p.ready = g.at.Add(-r.ago(30*time.Second, max(g.at.Sub(p.ready), 31*time.Second)))
		}
	case stCrashLoop:
		// Back-off has reached 5 minutes: the last run ended up to 5
		// minutes ago.
		life := g.at.Sub(p.started)
		p.restarts = int32(min(int64(5+life/(5*time.Minute+30*time.Second)), 2000))
		p.lastReason, p.lastExit = pick(r, []string{"Error", "Error", "Error", "OOMKilled"}), pick(r, []int32{1, 1, 2, 255})
		if p.lastReason == "OOMKilled" {
			p.lastExit = 137
		}
		p.lastFinish = g.at.Add(-r.between(5*time.Second, 5*time.Minute))
		p.lastStart = p.lastFinish.Add(-r.between(2*time.Second, 40*time.Second))
		if p.lastStart.Before(p.started) {
			p.lastStart = p.started
		}
		p.ready = p.lastStart.Add(-time.Second)
		if p.ready.Before(p.started) {
			p.ready = p.started
		}
	case stSucceeded, stEvicted:
		p.lastFinish = p.ready.Add(r.between(time.Minute, max(g.at.Sub(p.ready)/2, 2*time.Minute)))
		if !p.lastFinish.Before(g.at) {
			p.lastFinish = g.at.Add(-time.Second)
		}
	}
	if r.chance(0.03) && p.state.scheduled() {
		p.sideRestarts = 1
	}
	return p
}

func (g *generator) planPods() {
	n := uint64(max(g.spec.Pods, 1))
	r := g.rng(streamPlan, 2)
	g.permMul = n/2 + 1 + r.Uint64N(n/2+1)
	for gcd(g.permMul, n) != 1 {
		g.permMul++
	}
	g.permAdd = r.Uint64N(n)
	for _, d := range g.deps {
		for k := range d.pods {
			p := g.pod(d, k)
			if p.state.active() {
				d.active++
				if p.state == stRunning {
					d.ready++
				}
			}
			if p.state.troubled() {
				d.ns.trouble = append(d.ns.trouble, podRef{d, k})
			}
		}
	}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (g *generator) planEvents(r rnd) {
	if len(g.nss) == 0 {
		return
	}
	weights := make([]int, len(g.nss))
	for i, ns := range g.nss {
		weights[i] = ns.pods + len(ns.deps)
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		ev := spread(r, g.spec.Events, len(g.nss), 0)
		for i, ns := range g.nss {
			ns.events = ev[i]
		}
		return
	}
	// Proportional shares, the remainder to the first namespaces.
	left := g.spec.Events
	for i, ns := range g.nss {
		ns.events = g.spec.Events * weights[i] / total
		left -= ns.events
	}
	for i := 0; left > 0; i = (i + 1) % len(g.nss) {
		if weights[i] > 0 {
			g.nss[i].events++
			left--
		}
	}
}

var (
	projectedMode = ptr(int32(420))
	tokenSeconds  = ptr(int64(3607))
	gracePeriod   = ptr(int64(30))

	tolerations = []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
)

// podTemplate is the Deployment's pod template as the apiserver stores it
// (defaults applied; no admission-added fields).
func (g *generator) podTemplate(d *gDeploy) corev1.PodTemplateSpec {
	labels := map[string]string{"app": d.name}
	annotations := map[string]string{"kubectl.kubernetes.io/default-container": d.comp}
	if d.restartedAt != "" {
		annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": d.restartedAt}
	}
	env := []corev1.EnvVar{
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
		{Name: "LOG_LEVEL", Value: "info"},
		d.lang.env,
	}
	limits := corev1.ResourceList{corev1.ResourceMemory: d.memLim}
	if !d.cpuLim.IsZero() {
		limits[corev1.ResourceCPU] = d.cpuLim
	}
	app := corev1.Container{
		Name:      d.comp,
		Image:     d.image,
		Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: d.port, Protocol: corev1.ProtocolTCP}},
		Env:       env,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: d.cpuReq, corev1.ResourceMemory: d.memReq}, Limits: limits},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: d.lang.health, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: d.lang.startSecs * 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: d.lang.ready, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			TimeoutSeconds: 1, PeriodSeconds: 5, SuccessThreshold: 1, FailureThreshold: 3},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
	}
	side := corev1.Container{
		Name:  d.side.name,
		Image: d.side.image,
		Ports: []corev1.ContainerPort{{Name: d.side.portName, ContainerPort: d.side.port, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(d.side.port)}},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(d.side.cpu), corev1.ResourceMemory: resource.MustParse(d.side.mem)},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(d.side.memLim)}},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
		Spec: corev1.PodSpec{
			Containers:                    []corev1.Container{app, side},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: gracePeriod,
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            d.sa,
			DeprecatedServiceAccount:      d.sa,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

// podControllerFields is what kube-controller-manager owns of the pods it
// creates, at the depth the example bundle shows.
var podControllerFields = []byte(`{"f:metadata":{"f:annotations":{},"f:generateName":{},"f:labels":{},"f:ownerReferences":{}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}`)

func kubeletFields(p *gPod) []byte {
	extra := ""
	if p.state == stEvicted {
		extra = `"f:message":{},"f:reason":{},`
	}
	ip := ""
	if p.ip != "" && p.state != stCreating {
		ip = `"f:podIP":{},"f:podIPs":{},`
	}
	return fmt.Appendf(nil, `{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},%s"f:observedGeneration":{},"f:phase":{},%s"f:startTime":{}}}`, extra, ip)
}

var schedulerFields = []byte(`{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)

func (g *generator) buildPod(p *gPod) *corev1.Pod {
	d, r := p.d, p.r
	tmpl := &d.template
	labels := make(map[string]string, len(tmpl.Labels)+1)
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	labels["pod-template-hash"] = d.hash
	tokenVolume := "kube-api-access-" + r.suffix(5)
	tokenMount := corev1.VolumeMount{Name: tokenVolume, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}
	containers := make([]corev1.Container, len(tmpl.Spec.Containers))
	for i, c := range tmpl.Spec.Containers {
		c.VolumeMounts = append(append([]corev1.VolumeMount(nil), c.VolumeMounts...), tokenMount)
		containers[i] = c
	}
	volumes := append(append([]corev1.Volume(nil), tmpl.Spec.Volumes...), corev1.Volume{Name: tokenVolume, VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{DefaultMode: projectedMode, Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: tokenSeconds, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}})
	spec := tmpl.Spec
	spec.Containers, spec.Volumes = containers, volumes
	spec.Tolerations = tolerations
	spec.Priority = ptr(int32(0))
	spec.EnableServiceLinks = ptr(true)
	spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
	if p.node != nil {
		spec.NodeName = p.node.name
	}
	statusTime := p.ready
	if p.lastFinish.After(statusTime) {
		statusTime = p.lastFinish
	}
	managed := []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: mtp(p.created), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: podControllerFields}}}
	if p.state == stUnschedulable {
		managed = append(managed, metav1.ManagedFieldsEntry{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: mtp(p.created), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: schedulerFields}, Subresource: "status"})
	} else {
		managed = append(managed, metav1.ManagedFieldsEntry{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: mtp(statusTime), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: kubeletFields(p)}, Subresource: "status"})
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: p.name, GenerateName: d.rsName + "-", Namespace: d.ns.name, UID: p.uid,
			ResourceVersion: strconv.FormatInt(g.rv(r, 3_000_000), 10), Generation: 1, CreationTimestamp: mt(p.created),
			Labels: labels, Annotations: tmpl.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.rsName, UID: d.rsUID,
				Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: managed,
		},
		Spec:   spec,
		Status: g.podStatus(p),
	}
	return pod
}

func cond(t corev1.PodConditionType, ok bool, at time.Time, reason, msg string) corev1.PodCondition {
	s := corev1.ConditionTrue
	if !ok {
		s = corev1.ConditionFalse
	}
	return corev1.PodCondition{Type: t, ObservedGeneration: 1, Status: s, LastTransitionTime: mt(at), Reason: reason, Message: msg}
}

func (g *generator) podStatus(p *gPod) corev1.PodStatus {
	d := p.d
	st := corev1.PodStatus{ObservedGeneration: 1, Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable}
	if p.state == stUnschedulable {
		return g.unschedulableStatus(p, st)
	}
	names := []string{d.template.Spec.Containers[0].Name, d.side.name}
	notReady := []string{}
	appReady, sideReady := true, true
	switch p.state {
	case stNotReady, stCrashLoop, stCreating, stImagePull:
		appReady = false
	case stSucceeded, stEvicted:
		appReady, sideReady = false, false
	}
	if p.state == stCreating || p.state == stImagePull {
		sideReady = p.state == stImagePull
	}
	if !appReady {
		notReady = append(notReady, names[0])
	}
	if !sideReady {
		notReady = append(notReady, names[1])
	}
	sandboxUp := p.state != stCreating
	initialized := p.started
	st.Conditions = []corev1.PodCondition{
		cond(corev1.PodReadyToStartContainers, sandboxUp, p.started.Add(2*time.Second), "", ""),
		cond(corev1.PodInitialized, true, initialized, "", ""),
	}
	readyMsg := ""
	reason := ""
	if len(notReady) > 0 {
		reason = "ContainersNotReady"
		readyMsg = "containers with unready status: [" + strings.Join(notReady, " ") + "]"
	}
	readyAt := p.ready
	switch p.state {
	case stSucceeded:
		reason, readyMsg = "PodCompleted", ""
		readyAt = p.lastFinish
	case stEvicted:
		reason, readyMsg = "PodFailed", ""
		readyAt = p.lastFinish
	case stCreating, stImagePull:
		readyAt = p.created
	}
	st.Conditions = append(st.Conditions,
		cond(corev1.PodReady, len(notReady) == 0, readyAt, reason, readyMsg),
		cond(corev1.ContainersReady, len(notReady) == 0, readyAt, reason, readyMsg),
		cond(corev1.PodScheduled, true, p.created, "", ""))
	st.HostIP = ipv4(p.node.ip)
	st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
	if sandboxUp {
		st.PodIP = p.ip
		st.PodIPs = []corev1.PodIP{{IP: p.ip}}
	}
	st.StartTime = mtp(p.created)
	if d.cpuLim.Equal(d.cpuReq) && d.memLim.Equal(d.memReq) {
		st.QOSClass = corev1.PodQOSGuaranteed
	}
	st.ContainerStatuses = g.containerStatuses(p, &st, names, appReady, sideReady)
	return st
}

// unschedulableStatus is the status the scheduler writes of a pod no node
// can take: Pending, with its reasons per node.
func (g *generator) unschedulableStatus(p *gPod, st corev1.PodStatus) corev1.PodStatus {
	r := p.r
	st.Phase = corev1.PodPending
	msg := fmt.Sprintf("0/%d nodes are available: ", len(g.nodes))
	if n := len(g.nodes) - len(g.workers); n > 0 {
		msg += fmt.Sprintf("%d node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, ", n)
	}
	msg += fmt.Sprintf("%d Insufficient %s. preemption: 0/%d nodes are available: ", len(g.workers), pick(r, []string{"cpu", "memory"}), len(g.nodes))
	if n := len(g.nodes) - len(g.workers); n > 0 {
		msg += fmt.Sprintf("%d Preemption is not helpful for scheduling, ", n)
	}
	msg += fmt.Sprintf("%d No preemption victims found for incoming pod.", len(g.workers))
	st.Conditions = []corev1.PodCondition{cond(corev1.PodScheduled, false, p.created, "Unschedulable", msg)}
	return st
}

// containerStatuses are the kubelet's statuses of the app and sidecar
// containers in p's state; an evicted or completed pod's phase, reason and
// message are set in st with them.
func (g *generator) containerStatuses(p *gPod, st *corev1.PodStatus, names []string, appReady, sideReady bool) []corev1.ContainerStatus {
	d, r := p.d, p.r
	cid := func() string { return "containerd://" + r.hex(64) }
	app := corev1.ContainerStatus{Name: names[0], Ready: appReady, RestartCount: p.restarts, Image: d.image, ImageID: d.imageID}
	side := corev1.ContainerStatus{Name: names[1], Ready: sideReady, RestartCount: p.sideRestarts, Image: d.side.image, ImageID: d.sideImageID}
	running := func(cs *corev1.ContainerStatus, at time.Time) {
		cs.ContainerID = cid()
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: mt(at)}
		cs.Started = ptr(true)
	}
	switch p.state {
	case stRunning, stNotReady:
		if p.restarts > 0 {
			running(&app, p.lastFinish.Add(10*time.Second))
			app.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: p.lastExit, Reason: p.lastReason,
				StartedAt: mt(p.lastStart), FinishedAt: mt(p.lastFinish), ContainerID: cid()}
		} else {
			running(&app, p.started.Add(time.Second))
		}
		running(&side, p.started.Add(2*time.Second))
	case stCrashLoop:
		last := cid()
		app.ContainerID = last
		app.Started = ptr(false)
		app.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off 5m0s restarting failed container=%s pod=%s_%s(%s)", names[0], p.name, d.ns.name, p.uid)}
		app.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: p.lastExit, Reason: p.lastReason,
			StartedAt: mt(p.lastStart), FinishedAt: mt(p.lastFinish), ContainerID: last}
		running(&side, p.started.Add(2*time.Second))
	case stCreating:
		app.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		side.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		app.Started, side.Started = ptr(false), ptr(false)
		app.ImageID, side.ImageID = "", ""
	case stImagePull:
		app.ImageID = ""
		app.Started = ptr(false)
		app.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
			Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", d.image, pullError(d.image))}
		running(&side, p.started.Add(2*time.Second))
	case stSucceeded, stEvicted:
		code, reason := int32(0), "Completed"
		if p.state == stEvicted {
			code, reason = 137, "ContainerStatusUnknown"
			st.Phase = corev1.PodFailed
			st.Reason = "Evicted"
			// String caches the text in the Quantity: it is called on a
			// copy, since the pods of a Deployment are built in parallel.
			memReq := d.memReq
			st.Message = fmt.Sprintf("The node was low on resource: memory. Threshold quantity: 100Mi, available: %dKi. Container %s was using %dKi, request is %s, has larger consumption of memory. ",
				40000+r.IntN(60000), names[0], d.memLim.Value()/1024+int64(r.IntN(300000)), memReq.String())
		} else {
			st.Phase = corev1.PodSucceeded
		}
		for _, cs := range []*corev1.ContainerStatus{&app, &side} {
			cs.ContainerID = cid()
			cs.Started = ptr(false)
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
				StartedAt: mt(p.started.Add(time.Second)), FinishedAt: mt(p.lastFinish), ContainerID: cs.ContainerID}
		}
		st.Conditions[0] = cond(corev1.PodReadyToStartContainers, false, p.lastFinish, "", "")
	}
	if p.sideRestarts > 0 && side.State.Running != nil {
		at := side.State.Running.StartedAt.Time
		side.State.Running.StartedAt = mt(at.Add(g.at.Sub(at) / 2))
		side.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
			StartedAt: mt(at), FinishedAt: mt(at.Add(g.at.Sub(at)/2 - 5*time.Second)), ContainerID: cid()}
	}
	return []corev1.ContainerStatus{app, side}
}
