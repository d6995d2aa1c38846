package contracttest

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Events.

func (g *generator) events(ns *gNamespace) []*corev1.Event {
	out := make([]*corev1.Event, 0, ns.events)
	for j := range ns.events {
		r := g.rng(streamEvent, uint64(ns.idx), uint64(j))
		if e := g.event(ns, j, r); e != nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (g *generator) event(ns *gNamespace, j int, r rnd) *corev1.Event {
	if len(ns.deps) == 0 {
		// A namespace without workloads still gets events about itself.
		return g.newEvent(ns, j, r, corev1.ObjectReference{Kind: "Namespace", Name: ns.name, UID: ns.uid, APIVersion: "v1"},
			"Normal", "NamespaceCreated", "namespace created", "namespace-controller", "", g.at.Add(-r.ago(time.Second, time.Hour)), 1)
	}
	x := r.Float64()
	if x < 0.75 && ns.pods > 0 {
		var p *gPod
		if len(ns.trouble) > 0 && r.chance(0.5) {
			ref := pick(r, ns.trouble)
			p = g.pod(ref.d, ref.k)
		} else {
			d := pick(r, ns.deps)
			for try := 0; d.pods == 0 && try < 10; try++ {
				d = pick(r, ns.deps)
			}
			if d.pods > 0 {
				p = g.pod(d, r.IntN(d.pods))
			}
		}
		if p != nil {
			return g.podEvent(ns, j, r, p)
		}
	}
	d := pick(r, ns.deps)
	if x < 0.88 {
		ref := corev1.ObjectReference{Kind: "ReplicaSet", Namespace: ns.name, Name: d.rsName, UID: d.rsUID, APIVersion: "apps/v1",
			ResourceVersion: strconv.FormatInt(d.rsRV-int64(r.IntN(1000)), 10)}
		if d.pods > 0 {
			p := g.pod(d, r.IntN(d.pods))
			return g.newEvent(ns, j, r, ref, "Normal", "SuccessfulCreate", "Created pod: "+p.name, "replicaset-controller", "", p.created, 1)
		}
		return g.newEvent(ns, j, r, ref, "Normal", "SuccessfulDelete", "Deleted pod: "+d.rsName+"-"+r.suffix(5), "replicaset-controller", "", g.at.Add(-r.ago(time.Second, time.Hour)), 1)
	}
	ref := corev1.ObjectReference{Kind: "Deployment", Namespace: ns.name, Name: d.name, UID: d.uid, APIVersion: "apps/v1",
		ResourceVersion: strconv.FormatInt(d.rv-int64(r.IntN(1000)), 10)}
	if r.chance(0.6) {
		return g.newEvent(ns, j, r, ref, "Normal", "ScalingReplicaSet",
			fmt.Sprintf("Scaled up replica set %s from 0 to %d", d.rsName, max(d.active, 1)), "deployment-controller", "", d.rsCreated, 1)
	}
	return g.newEvent(ns, j, r, ref, "Normal", "ScalingReplicaSet",
		fmt.Sprintf("Scaled down replica set %s-%s from %d to 0", d.name, r.suffix(10), max(d.active, 1)), "deployment-controller", "",
		d.rsCreated.Add(r.between(30*time.Second, 3*time.Minute)), 1)
}

func (g *generator) podEvent(ns *gNamespace, j int, r rnd, p *gPod) *corev1.Event {
	d := p.d
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: ns.name, Name: p.name, UID: p.uid, APIVersion: "v1",
		ResourceVersion: strconv.FormatInt(g.listRV-1-r.Int64N(3_000_000), 10)}
	app := d.template.Spec.Containers[0].Name
	container := func(name string) corev1.ObjectReference {
		c := ref
		c.FieldPath = "spec.containers{" + name + "}"
		return c
	}
	host := ""
	if p.node != nil {
		host = p.node.name
	}
	kubelet := func(c corev1.ObjectReference, typ, reason, msg string, first time.Time, count int32) *corev1.Event {
		return g.newEvent(ns, j, r, c, typ, reason, msg, "kubelet", host, first, count)
	}
	recent := func() time.Time { return g.at.Add(-r.ago(2*time.Second, 50*time.Minute)) }
	switch p.state {
	case stUnschedulable:
		e := g.newEvent(ns, j, r, ref, "Warning", "FailedScheduling", g.podStatus(p).Conditions[0].Message,
			"default-scheduler", "", p.created, 1)
		g.seriesEvent(e, r, p.created, "Scheduling")
		return e
	case stCrashLoop:
		switch r.IntN(4) {
		case 0, 1:
			e := kubelet(container(app), "Warning", "BackOff", fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", app, p.name, ns.name, p.uid),
				p.started.Add(time.Minute), p.restarts*int32(4+r.IntN(6)))
			e.LastTimestamp = mt(g.at.Add(-r.between(time.Second, 20*time.Second)))
			return e
		case 2:
			e := kubelet(container(app), "Normal", "Pulled", fmt.Sprintf("Container image %q already present on machine", d.image), p.started, p.restarts+1)
			e.LastTimestamp = mt(p.lastStart.Add(-time.Second))
			return e
		default:
			e := kubelet(container(app), "Normal", "Started", "Started container "+app, p.started, p.restarts+1)
			e.LastTimestamp = mt(p.lastStart)
			return e
		}
	case stNotReady:
		e := kubelet(container(app), "Warning", "Unhealthy", pick(r, []string{"Readiness probe failed: HTTP probe failed with statuscode: 503",
			"Readiness probe failed: Get \"http://" + p.ip + ":" + strconv.Itoa(int(d.port)) + d.lang.ready + "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}),
			p.ready, int32(2+r.IntN(3000)))
		e.LastTimestamp = mt(g.at.Add(-r.between(time.Second, 10*time.Second)))
		return e
	case stImagePull:
		img := d.image
		if r.chance(0.5) {
			e := kubelet(container(app), "Normal", "BackOff", fmt.Sprintf("Back-off pulling image %q", img), p.created.Add(5*time.Second), int32(2+r.IntN(200)))
			e.LastTimestamp = mt(recent())
			return e
		}
		e := kubelet(container(app), "Warning", "Failed", fmt.Sprintf("Failed to pull image %q: %s", img, pullError(img)),
			p.created.Add(3*time.Second), int32(1+r.IntN(20)))
		e.LastTimestamp = mt(recent())
		return e
	case stCreating:
		return kubelet(container(d.side.name), "Normal", "Pulling", fmt.Sprintf("Pulling image %q", d.side.image), p.created.Add(time.Second), 1)
	case stEvicted:
		if r.chance(0.5) {
			return kubelet(ref, "Warning", "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 62104Ki. ", p.lastFinish, 1)
		}
		return kubelet(container(app), "Normal", "Killing", "Stopping container "+app, p.lastFinish, 1)
	}
	// A healthy pod's life: scheduling, pulling, starting.
	switch r.IntN(6) {
	case 0:
		e := g.newEvent(ns, j, r, ref, "Normal", "Scheduled", fmt.Sprintf("Successfully assigned %s/%s to %s", ns.name, p.name, host), "default-scheduler", "", p.created, 1)
		g.seriesEvent(e, r, p.created, "Binding")
		e.Series = nil
		return e
	case 1:
		return kubelet(container(app), "Normal", "Pulling", fmt.Sprintf("Pulling image %q", d.image), p.created.Add(time.Second), 1)
	case 2:
		return kubelet(container(app), "Normal", "Pulled", fmt.Sprintf("Successfully pulled image %q in %dms (%dms including waiting). Image size: %d bytes.",
			d.image, 300+r.IntN(9000), 300+r.IntN(12000), 20_000_000+r.IntN(400_000_000)), p.started, 1)
	case 3:
		return kubelet(container(app), "Normal", "Created", "Created container: "+app, p.started.Add(time.Second), 1)
	case 4:
		return kubelet(container(d.side.name), "Normal", "Started", "Started container "+d.side.name, p.started.Add(2*time.Second), 1)
	}
	return kubelet(container(app), "Normal", "Started", "Started container "+app, p.started.Add(time.Second), 1)
}

// newEvent is a core/v1 Event as the legacy event recorder writes it.
func (g *generator) newEvent(ns *gNamespace, j int, r rnd, ref corev1.ObjectReference, typ, reason, msg, component, host string, first time.Time, count int32) *corev1.Event {
	if !first.Before(g.at) {
		first = g.at.Add(-time.Second)
	}
	last := first
	if count > 1 {
		last = first.Add(r.between(0, g.at.Sub(first)))
	}
	name := fmt.Sprintf("%s.%x", ref.Name, first.UnixNano()+int64(j)*7919+int64(r.IntN(1000)))
	return &corev1.Event{
		TypeMeta: metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.name, UID: r.uid(),
			ResourceVersion: strconv.FormatInt(g.listRV-1-r.Int64N(200_000), 10), CreationTimestamp: mt(first)},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             msg,
		Source:              corev1.EventSource{Component: component, Host: host},
		FirstTimestamp:      mt(first),
		LastTimestamp:       mt(last),
		Count:               count,
		Type:                typ,
		ReportingController: component,
		ReportingInstance:   host,
	}
}

// seriesEvent turns e into an events.k8s.io-style event, as the scheduler
// records them: eventTime and a series instead of first/last timestamps.
func (g *generator) seriesEvent(e *corev1.Event, r rnd, first time.Time, action string) {
	e.EventTime = metav1.NewMicroTime(first.Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond).UTC())
	e.FirstTimestamp, e.LastTimestamp, e.Count = metav1.Time{}, metav1.Time{}, 0
	e.Source = corev1.EventSource{}
	e.Action = action
	e.ReportingInstance = "default-scheduler-" + g.controlName()
	if g.at.Sub(first) > 2*time.Minute {
		last := g.at.Add(-r.between(time.Second, min(g.at.Sub(first), 5*time.Minute)))
		e.Series = &corev1.EventSeries{Count: int32(2 + r.IntN(200)), LastObservedTime: metav1.NewMicroTime(last.Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond).UTC())}
	}
}

func (g *generator) controlName() string {
	if len(g.control) > 0 {
		return g.control[0].name
	}
	return g.nodes[0].name
}

// groups.json and resources.json of a Kubernetes 1.35 cluster as client-go discovery
// returns them, taken from testdata/example-bundle without its CRD group; written
// re-indented with two spaces, as troubleshoot writes them.
const legacyGroupsJSON = `[
{"name":"","versions":[{"groupVersion":"v1","version":"v1"}],"preferredVersion":{"groupVersion":"v1","version":"v1"}},
{"name":"apiregistration.k8s.io","versions":[{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}},
{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
{"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}},
{"name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"}},
{"name":"authorization.k8s.io","versions":[{"groupVersion":"authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authorization.k8s.io/v1","version":"v1"}},
{"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},
{"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}],"preferredVersion":{"groupVersion":"batch/v1","version":"v1"}},
{"name":"certificates.k8s.io","versions":[{"groupVersion":"certificates.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"certificates.k8s.io/v1","version":"v1"}},
{"name":"networking.k8s.io","versions":[{"groupVersion":"networking.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"networking.k8s.io/v1","version":"v1"}},
{"name":"policy","versions":[{"groupVersion":"policy/v1","version":"v1"}],"preferredVersion":{"groupVersion":"policy/v1","version":"v1"}},
{"name":"rbac.authorization.k8s.io","versions":[{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}},
{"name":"storage.k8s.io","versions":[{"groupVersion":"storage.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"storage.k8s.io/v1","version":"v1"}},
{"name":"admissionregistration.k8s.io","versions":[{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}},
{"name":"apiextensions.k8s.io","versions":[{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}},
{"name":"scheduling.k8s.io","versions":[{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}},
{"name":"coordination.k8s.io","versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}},
{"name":"node.k8s.io","versions":[{"groupVersion":"node.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"node.k8s.io/v1","version":"v1"}},
{"name":"discovery.k8s.io","versions":[{"groupVersion":"discovery.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"discovery.k8s.io/v1","version":"v1"}},
{"name":"resource.k8s.io","versions":[{"groupVersion":"resource.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"resource.k8s.io/v1","version":"v1"}},
{"name":"flowcontrol.apiserver.k8s.io","versions":[{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","version":"v1"}}
]`

const legacyResourcesJSON = `[
{"groupVersion":"discovery.k8s.io/v1","resources":[
	{"name":"endpointslices","singularName":"endpointslice","namespaced":true,"kind":"EndpointSlice","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"policy/v1","resources":[
	{"name":"poddisruptionbudgets","singularName":"poddisruptionbudget","namespaced":true,"kind":"PodDisruptionBudget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pdb"]},
	{"name":"poddisruptionbudgets/status","singularName":"poddisruptionbudget","namespaced":true,"kind":"PodDisruptionBudget","verbs":["get","patch","update"]}]},
{"groupVersion":"v1","resources":[
	{"name":"bindings","singularName":"binding","namespaced":true,"kind":"Binding","verbs":["create"]},
	{"name":"componentstatuses","singularName":"componentstatus","namespaced":false,"kind":"ComponentStatus","verbs":["get","list"],"shortNames":["cs"]},
	{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"]},
	{"name":"endpoints","singularName":"endpoints","namespaced":true,"kind":"Endpoints","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ep"]},
	{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ev"]},
	{"name":"limitranges","singularName":"limitrange","namespaced":true,"kind":"LimitRange","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["limits"]},
	{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"]},
	{"name":"namespaces/finalize","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["update"]},
	{"name":"namespaces/status","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","patch","update"]},
	{"name":"nodes","singularName":"node","namespaced":false,"kind":"Node","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["no"]},
	{"name":"nodes/proxy","singularName":"node","namespaced":false,"kind":"NodeProxyOptions","verbs":["create","delete","get","patch","update"]},
	{"name":"nodes/status","singularName":"node","namespaced":false,"kind":"Node","verbs":["get","patch","update"]},
	{"name":"persistentvolumeclaims","singularName":"persistentvolumeclaim","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pvc"]},
	{"name":"persistentvolumeclaims/status","singularName":"persistentvolumeclaim","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["get","patch","update"]},
	{"name":"persistentvolumes","singularName":"persistentvolume","namespaced":false,"kind":"PersistentVolume","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pv"]},
	{"name":"persistentvolumes/status","singularName":"persistentvolume","namespaced":false,"kind":"PersistentVolume","verbs":["get","patch","update"]},
	{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"]},
	{"name":"pods/attach","singularName":"pod","namespaced":true,"kind":"PodAttachOptions","verbs":["create","get"]},
	{"name":"pods/binding","singularName":"pod","namespaced":true,"kind":"Binding","verbs":["create"]},
	{"name":"pods/ephemeralcontainers","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]},
	{"name":"pods/eviction","singularName":"pod","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]},
	{"name":"pods/exec","singularName":"pod","namespaced":true,"kind":"PodExecOptions","verbs":["create","get"]},
	{"name":"pods/log","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get"]},
	{"name":"pods/portforward","singularName":"pod","namespaced":true,"kind":"PodPortForwardOptions","verbs":["create","get"]},
	{"name":"pods/proxy","singularName":"pod","namespaced":true,"kind":"PodProxyOptions","verbs":["create","delete","get","patch","update"]},
	{"name":"pods/resize","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]},
	{"name":"pods/status","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]},
	{"name":"podtemplates","singularName":"podtemplate","namespaced":true,"kind":"PodTemplate","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"replicationcontrollers","singularName":"replicationcontroller","namespaced":true,"kind":"ReplicationController","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["rc"],"categories":["all"]},
	{"name":"replicationcontrollers/scale","singularName":"replicationcontroller","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"replicationcontrollers/status","singularName":"replicationcontroller","namespaced":true,"kind":"ReplicationController","verbs":["get","patch","update"]},
	{"name":"resourcequotas","singularName":"resourcequota","namespaced":true,"kind":"ResourceQuota","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["quota"]},
	{"name":"resourcequotas/status","singularName":"resourcequota","namespaced":true,"kind":"ResourceQuota","verbs":["get","patch","update"]},
	{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"serviceaccounts","singularName":"serviceaccount","namespaced":true,"kind":"ServiceAccount","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sa"]},
	{"name":"serviceaccounts/token","singularName":"serviceaccount","namespaced":true,"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest","verbs":["create"]},
	{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["svc"],"categories":["all"]},
	{"name":"services/proxy","singularName":"service","namespaced":true,"kind":"ServiceProxyOptions","verbs":["create","delete","get","patch","update"]},
	{"name":"services/status","singularName":"service","namespaced":true,"kind":"Service","verbs":["get","patch","update"]}]},
{"groupVersion":"resource.k8s.io/v1","resources":[
	{"name":"deviceclasses","singularName":"deviceclass","namespaced":false,"kind":"DeviceClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"resourceclaims","singularName":"resourceclaim","namespaced":true,"kind":"ResourceClaim","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"resourceclaims/status","singularName":"resourceclaim","namespaced":true,"kind":"ResourceClaim","verbs":["get","patch","update"]},
	{"name":"resourceclaimtemplates","singularName":"resourceclaimtemplate","namespaced":true,"kind":"ResourceClaimTemplate","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"resourceslices","singularName":"resourceslice","namespaced":false,"kind":"ResourceSlice","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"autoscaling/v2","resources":[
	{"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["hpa"],"categories":["all"]},
	{"name":"horizontalpodautoscalers/status","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["get","patch","update"]}]},
{"groupVersion":"scheduling.k8s.io/v1","resources":[
	{"name":"priorityclasses","singularName":"priorityclass","namespaced":false,"kind":"PriorityClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pc"]}]},
{"groupVersion":"authentication.k8s.io/v1","resources":[
	{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]},
	{"name":"tokenreviews","singularName":"tokenreview","namespaced":false,"kind":"TokenReview","verbs":["create"]}]},
{"groupVersion":"batch/v1","resources":[
	{"name":"cronjobs","singularName":"cronjob","namespaced":true,"kind":"CronJob","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cj"],"categories":["all"]},
	{"name":"cronjobs/status","singularName":"cronjob","namespaced":true,"kind":"CronJob","verbs":["get","patch","update"]},
	{"name":"jobs","singularName":"job","namespaced":true,"kind":"Job","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["all"]},
	{"name":"jobs/status","singularName":"job","namespaced":true,"kind":"Job","verbs":["get","patch","update"]}]},
{"groupVersion":"events.k8s.io/v1","resources":[
	{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ev"]}]},
{"groupVersion":"apps/v1","resources":[
	{"name":"controllerrevisions","singularName":"controllerrevision","namespaced":true,"kind":"ControllerRevision","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"daemonsets","singularName":"daemonset","namespaced":true,"kind":"DaemonSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ds"],"categories":["all"]},
	{"name":"daemonsets/status","singularName":"daemonset","namespaced":true,"kind":"DaemonSet","verbs":["get","patch","update"]},
	{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"]},
	{"name":"deployments/scale","singularName":"deployment","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"deployments/status","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]},
	{"name":"replicasets","singularName":"replicaset","namespaced":true,"kind":"ReplicaSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["rs"],"categories":["all"]},
	{"name":"replicasets/scale","singularName":"replicaset","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"replicasets/status","singularName":"replicaset","namespaced":true,"kind":"ReplicaSet","verbs":["get","patch","update"]},
	{"name":"statefulsets","singularName":"statefulset","namespaced":true,"kind":"StatefulSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sts"],"categories":["all"]},
	{"name":"statefulsets/scale","singularName":"statefulset","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"statefulsets/status","singularName":"statefulset","namespaced":true,"kind":"StatefulSet","verbs":["get","patch","update"]}]},
{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","resources":[
	{"name":"flowschemas","singularName":"flowschema","namespaced":false,"kind":"FlowSchema","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"flowschemas/status","singularName":"flowschema","namespaced":false,"kind":"FlowSchema","verbs":["get","patch","update"]},
	{"name":"prioritylevelconfigurations","singularName":"prioritylevelconfiguration","namespaced":false,"kind":"PriorityLevelConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"prioritylevelconfigurations/status","singularName":"prioritylevelconfiguration","namespaced":false,"kind":"PriorityLevelConfiguration","verbs":["get","patch","update"]}]},
{"groupVersion":"rbac.authorization.k8s.io/v1","resources":[
	{"name":"clusterrolebindings","singularName":"clusterrolebinding","namespaced":false,"kind":"ClusterRoleBinding","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"clusterroles","singularName":"clusterrole","namespaced":false,"kind":"ClusterRole","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"rolebindings","singularName":"rolebinding","namespaced":true,"kind":"RoleBinding","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"roles","singularName":"role","namespaced":true,"kind":"Role","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"node.k8s.io/v1","resources":[
	{"name":"runtimeclasses","singularName":"runtimeclass","namespaced":false,"kind":"RuntimeClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"coordination.k8s.io/v1","resources":[
	{"name":"leases","singularName":"lease","namespaced":true,"kind":"Lease","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"certificates.k8s.io/v1","resources":[
	{"name":"certificatesigningrequests","singularName":"certificatesigningrequest","namespaced":false,"kind":"CertificateSigningRequest","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["csr"]},
	{"name":"certificatesigningrequests/approval","singularName":"certificatesigningrequest","namespaced":false,"kind":"CertificateSigningRequest","verbs":["get","patch","update"]},
	{"name":"certificatesigningrequests/status","singularName":"certificatesigningrequest","namespaced":false,"kind":"CertificateSigningRequest","verbs":["get","patch","update"]}]},
{"groupVersion":"apiregistration.k8s.io/v1","resources":[
	{"name":"apiservices","singularName":"apiservice","namespaced":false,"kind":"APIService","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"apiservices/status","singularName":"apiservice","namespaced":false,"kind":"APIService","verbs":["get","patch","update"]}]},
{"groupVersion":"storage.k8s.io/v1","resources":[
	{"name":"csidrivers","singularName":"csidriver","namespaced":false,"kind":"CSIDriver","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"csinodes","singularName":"csinode","namespaced":false,"kind":"CSINode","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"csistoragecapacities","singularName":"csistoragecapacity","namespaced":true,"kind":"CSIStorageCapacity","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"storageclasses","singularName":"storageclass","namespaced":false,"kind":"StorageClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sc"]},
	{"name":"volumeattachments","singularName":"volumeattachment","namespaced":false,"kind":"VolumeAttachment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"volumeattachments/status","singularName":"volumeattachment","namespaced":false,"kind":"VolumeAttachment","verbs":["get","patch","update"]},
	{"name":"volumeattributesclasses","singularName":"volumeattributesclass","namespaced":false,"kind":"VolumeAttributesClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["vac"]}]},
{"groupVersion":"admissionregistration.k8s.io/v1","resources":[
	{"name":"mutatingwebhookconfigurations","singularName":"mutatingwebhookconfiguration","namespaced":false,"kind":"MutatingWebhookConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"validatingadmissionpolicies","singularName":"validatingadmissionpolicy","namespaced":false,"kind":"ValidatingAdmissionPolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"validatingadmissionpolicies/status","singularName":"validatingadmissionpolicy","namespaced":false,"kind":"ValidatingAdmissionPolicy","verbs":["get","patch","update"]},
	{"name":"validatingadmissionpolicybindings","singularName":"validatingadmissionpolicybinding","namespaced":false,"kind":"ValidatingAdmissionPolicyBinding","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"validatingwebhookconfigurations","singularName":"validatingwebhookconfiguration","namespaced":false,"kind":"ValidatingWebhookConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]}]},
{"groupVersion":"apiextensions.k8s.io/v1","resources":[
	{"name":"customresourcedefinitions","singularName":"customresourcedefinition","namespaced":false,"kind":"CustomResourceDefinition","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["crd","crds"],"categories":["api-extensions"]},
	{"name":"customresourcedefinitions/status","singularName":"customresourcedefinition","namespaced":false,"kind":"CustomResourceDefinition","verbs":["get","patch","update"]}]},
{"groupVersion":"autoscaling/v1","resources":[
	{"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["hpa"],"categories":["all"]},
	{"name":"horizontalpodautoscalers/status","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["get","patch","update"]}]},
{"groupVersion":"networking.k8s.io/v1","resources":[
	{"name":"ingressclasses","singularName":"ingressclass","namespaced":false,"kind":"IngressClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"ingresses","singularName":"ingress","namespaced":true,"kind":"Ingress","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ing"]},
	{"name":"ingresses/status","singularName":"ingress","namespaced":true,"kind":"Ingress","verbs":["get","patch","update"]},
	{"name":"ipaddresses","singularName":"ipaddress","namespaced":false,"kind":"IPAddress","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ip"]},
	{"name":"networkpolicies","singularName":"networkpolicy","namespaced":true,"kind":"NetworkPolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["netpol"]},
	{"name":"servicecidrs","singularName":"servicecidr","namespaced":false,"kind":"ServiceCIDR","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"servicecidrs/status","singularName":"servicecidr","namespaced":false,"kind":"ServiceCIDR","verbs":["get","patch","update"]}]},
{"groupVersion":"authorization.k8s.io/v1","resources":[
	{"name":"localsubjectaccessreviews","singularName":"localsubjectaccessreview","namespaced":true,"kind":"LocalSubjectAccessReview","verbs":["create"]},
	{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]},
	{"name":"selfsubjectrulesreviews","singularName":"selfsubjectrulesreview","namespaced":false,"kind":"SelfSubjectRulesReview","verbs":["create"]},
	{"name":"subjectaccessreviews","singularName":"subjectaccessreview","namespaced":false,"kind":"SubjectAccessReview","verbs":["create"]}]}
]`
