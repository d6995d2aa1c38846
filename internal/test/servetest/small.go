package servetest

import (
	"fmt"
	"path"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// KubernetesVersion is the version of every test bundle.
const KubernetesVersion = "v1.31.2"

var (
	PodsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	EventsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	NodesGVR       = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	NamespacesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	ConfigMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	SecretsGVR     = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	DeploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	ReplicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	CRDsGVR        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	WidgetsGVR     = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
)

// Small is a bundle of a few objects of every shape serve must handle:
// namespaced and cluster-scoped built-ins with stored tables, a kind
// without a table (secrets: the default convertor), a custom resource
// with a selectable field, events for describe, a pod with several
// containers, a completed pod with row conditions, and logs (current and
// previous).
func Small() Files {
	b := newBuilder(KubernetesVersion)
	b.group("", "v1")
	b.group("apps", "v1")
	b.group("authorization.k8s.io", "v1")
	b.group("apiextensions.k8s.io", "v1")
	b.group("example.com", "v1")
	b.resource("v1", "pods", "pod", "Pod", true, []string{"po"}, []string{"all"}, "attach", "exec", "log", "portforward", "proxy", "status")
	b.resource("v1", "events", "event", "Event", true, []string{"ev"}, nil)
	b.resource("v1", "nodes", "node", "Node", false, []string{"no"}, nil, "proxy", "status")
	b.resource("v1", "namespaces", "namespace", "Namespace", false, []string{"ns"}, nil, "status")
	b.resource("v1", "configmaps", "configmap", "ConfigMap", true, []string{"cm"}, nil)
	b.resource("v1", "secrets", "secret", "Secret", true, nil, nil)
	b.resource("apps/v1", "deployments", "deployment", "Deployment", true, []string{"deploy"}, []string{"all"}, "scale", "status")
	b.resource("apps/v1", "replicasets", "replicaset", "ReplicaSet", true, []string{"rs"}, []string{"all"}, "scale", "status")
	b.disc.Resources["authorization.k8s.io/v1"] = []metav1.APIResource{{Name: "selfsubjectaccessreviews", SingularName: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview", Verbs: []string{"create"}}}
	b.resource("apiextensions.k8s.io/v1", "customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition", false, []string{"crd", "crds"}, nil, "status")
	b.resource("example.com/v1", "widgets", "widget", "Widget", true, []string{"wg"}, nil)

	b.namespaces()
	b.nodes()
	b.pods()
	b.events()
	b.workloads()
	b.configs()
	b.widgets()
	return b.done()
}

func (b *builder) namespaces() {
	var objs []Obj
	for _, ns := range []string{"default", "kube-system", "team-a"} {
		objs = append(objs, Obj{"metadata": b.meta("", ns, map[string]string{"kubernetes.io/metadata.name": ns}, 30*24*time.Hour), "spec": Obj{"finalizers": []string{"kubernetes"}}, "status": Obj{"phase": "Active"}})
	}
	b.list(NamespacesGVR, "Namespace", false, "", objs,
		[]metav1.TableColumnDefinition{col("Name", "string", "name", 0, "Name"), col("Status", "string", "", 0, "The status of the namespace"), col("Age", "string", "", 0, "CreationTimestamp")},
		func(o Obj) []any { return []any{name(o), o["status"].(Obj)["phase"], age(o)} })
}

func (b *builder) nodes() {
	var objs []Obj
	for i, n := range []string{"node-1", "node-2"} {
		m := b.meta("", n, map[string]string{"kubernetes.io/hostname": n, "node-role.kubernetes.io/worker": ""}, 30*24*time.Hour)
		m["uid"] = n // kubelet events name the node by uid = name
		objs = append(objs, Obj{
			"metadata": m,
			"spec":     Obj{"podCIDR": fmt.Sprintf("10.42.%d.0/24", i), "unschedulable": i == 1},
			"status": Obj{
				"conditions":  []Obj{{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status", "lastHeartbeatTime": CollectedAt.Format(time.RFC3339), "lastTransitionTime": CollectedAt.Add(-30 * 24 * time.Hour).Format(time.RFC3339)}},
				"addresses":   []Obj{{"type": "InternalIP", "address": fmt.Sprintf("192.168.1.%d", 10+i)}, {"type": "Hostname", "address": n}},
				"capacity":    Obj{"cpu": "4", "memory": "16Gi", "pods": "110"},
				"allocatable": Obj{"cpu": "4", "memory": "16Gi", "pods": "110"},
				"nodeInfo":    Obj{"kubeletVersion": KubernetesVersion, "osImage": "Ubuntu 24.04", "kernelVersion": "6.8.0", "containerRuntimeVersion": "containerd://1.7.22", "operatingSystem": "linux", "architecture": "amd64"},
			},
		})
	}
	b.list(NodesGVR, "Node", false, "", objs,
		[]metav1.TableColumnDefinition{
			col("Name", "string", "name", 0, "Name"), col("Status", "string", "", 0, "The status of the node"),
			col("Roles", "string", "", 0, "The roles of the node"), col("Age", "string", "", 0, "CreationTimestamp"),
			col("Version", "string", "", 0, "Kubelet Version"), col("Internal-IP", "string", "", 1, "List of internal IPs"),
			col("External-IP", "string", "", 1, "List of external IPs"), col("OS-Image", "string", "", 1, "OS image"),
			col("Kernel-Version", "string", "", 1, "Kernel version"), col("Container-Runtime", "string", "", 1, "Container runtime"),
		},
		func(o Obj) []any {
			status := "Ready"
			if o["spec"].(Obj)["unschedulable"] == true {
				status = "Ready,SchedulingDisabled"
			}
			addr := o["status"].(Obj)["addresses"].([]Obj)[0]["address"]
			return []any{name(o), status, "worker", age(o), KubernetesVersion, addr, "<none>", "Ubuntu 24.04", "6.8.0", "containerd://1.7.22"}
		})
}

// pod builds a pod; containers name the pod's containers, the first
// init container when init is set.
func (b *builder) pod(ns, podName, node, phase string, labels map[string]string, annotations map[string]string, init string, containers ...string) Obj {
	m := b.meta(ns, podName, labels, 5*time.Hour)
	if annotations != nil {
		m["annotations"] = annotations
	}
	var cs, statuses []Obj
	for i, c := range containers {
		cs = append(cs, Obj{"name": c, "image": "registry.example.com/" + c + ":1.0"})
		statuses = append(statuses, Obj{"name": c, "ready": phase == "Running", "restartCount": i, "image": "registry.example.com/" + c + ":1.0", "state": Obj{"running": Obj{"startedAt": CollectedAt.Add(-4 * time.Hour).Format(time.RFC3339)}}})
	}
	spec := Obj{"containers": cs, "nodeName": node, "restartPolicy": "Always", "schedulerName": "default-scheduler", "serviceAccountName": "default"}
	if init != "" {
		spec["initContainers"] = []Obj{{"name": init, "image": "registry.example.com/" + init + ":1.0"}}
	}
	return Obj{
		"metadata": m,
		"spec":     spec,
		"status":   Obj{"phase": phase, "podIP": "10.42.0." + fmt.Sprint(len(podName)), "hostIP": "192.168.1.10", "containerStatuses": statuses},
	}
}

func (b *builder) pods() {
	objs := []Obj{
		b.pod("default", "web-1", "node-1", "Running", map[string]string{"app": "web", "tier": "frontend"}, nil, "setup", "app", "sidecar"),
		b.pod("default", "web-2", "node-2", "Running", map[string]string{"app": "web", "tier": "backend"}, nil, "", "app"),
		b.pod("kube-system", "coredns-abc", "node-1", "Running", map[string]string{"k8s-app": "kube-dns"}, nil, "", "coredns"),
		b.pod("team-a", "job-x", "node-2", "Succeeded", map[string]string{"app": "batch"}, nil, "", "main"),
		b.pod("team-a", "web-3", "node-1", "Running", map[string]string{"app": "web"}, map[string]string{"kubectl.kubernetes.io/default-container": "sidecar"}, "", "app", "sidecar"),
	}
	objs[3][conditionsKey] = []Obj{{"type": "Completed", "status": "True", "reason": "Succeeded"}}
	b.namespacedLists(PodsGVR, "Pod", false, objs,
		[]metav1.TableColumnDefinition{
			col("Name", "string", "name", 0, "Name"), col("Ready", "string", "", 0, "The aggregate readiness state"),
			col("Status", "string", "", 0, "The aggregate status"), col("Restarts", "string", "", 0, "The number of times the containers restarted"),
			col("Age", "string", "", 0, "CreationTimestamp"), col("IP", "string", "", 1, "IP address"),
			col("Node", "string", "", 1, "Node name"), col("Nominated Node", "string", "", 1, "Nominated node"),
			col("Readiness Gates", "string", "", 1, "Readiness gates"),
		},
		func(o Obj) []any {
			statuses := o["status"].(Obj)["containerStatuses"].([]Obj)
			ready, restarts := 0, 0
			for _, s := range statuses {
				if s["ready"] == true {
					ready++
				}
				restarts += s["restartCount"].(int)
			}
			phase := o["status"].(Obj)["phase"].(string)
			if phase == "Succeeded" {
				phase = "Completed"
			}
			return []any{name(o), fmt.Sprintf("%d/%d", ready, len(statuses)), phase, restarts, age(o), o["status"].(Obj)["podIP"], o["spec"].(Obj)["nodeName"], "<none>", "<none>"}
		})
	b.files[logPath("default", "web-1", "app", false)] = lines("web-1 app", 5)
	b.files[logPath("default", "web-1", "app", true)] = lines("web-1 app previous", 3)
	b.files[logPath("default", "web-1", "sidecar", false)] = lines("web-1 sidecar", 2)
	b.files[logPath("default", "web-2", "app", false)] = lines("web-2 app", 4)
	b.files[logPath("team-a", "web-3", "sidecar", false)] = lines("web-3 sidecar", 3)
}

func (b *builder) events() {
	event := func(ns, evName, kind, objName, uid, reason, message, typ string) Obj {
		involved := Obj{"kind": kind, "namespace": ns, "name": objName, "uid": uid, "apiVersion": "v1"}
		if kind == "Node" {
			delete(involved, "namespace") // the kubelet's node events name a cluster-scoped object
		}
		return Obj{
			"metadata":       b.meta(ns, evName, nil, time.Hour),
			"involvedObject": involved,
			"reason":         reason, "message": message, "type": typ, "count": 1,
			"source":         Obj{"component": "kubelet", "host": "node-1"},
			"firstTimestamp": CollectedAt.Add(-time.Hour).Format(time.RFC3339),
			"lastTimestamp":  CollectedAt.Add(-time.Hour).Format(time.RFC3339),
		}
	}
	objs := []Obj{
		event("default", "web-1.1", "Pod", "web-1", "uid-default-web-1", "Pulled", "Container image pulled", "Normal"),
		event("default", "web-1.2", "Pod", "web-1", "uid-default-web-1", "BackOff", "Back-off restarting failed container", "Warning"),
		event("default", "web-2.1", "Pod", "web-2", "uid-default-web-2", "Started", "Started container app", "Normal"),
		event("default", "node-1.1", "Node", "node-1", "node-1", "NodeReady", "Node node-1 status is now: NodeReady", "Normal"),
		event("default", "web.1", "Deployment", "web", "uid-default-web", "ScalingReplicaSet", "Scaled up replica set web-abc to 2", "Normal"),
	}
	b.namespacedLists(EventsGVR, "Event", false, objs,
		[]metav1.TableColumnDefinition{
			col("Last Seen", "string", "", 0, "Time since last seen"), col("Type", "string", "", 0, "Event type"),
			col("Reason", "string", "", 0, "Reason"), col("Object", "string", "", 0, "The object"),
			col("Subobject", "string", "", 1, "Subobject"), col("Source", "string", "", 1, "Source"),
			col("Message", "string", "", 0, "Message"), col("First Seen", "string", "", 1, "First seen"),
			col("Count", "string", "", 1, "Count"), col("Name", "string", "name", 1, "Name"),
		},
		func(o Obj) []any {
			io := o["involvedObject"].(Obj)
			object := fmt.Sprintf("%s/%s", lower(io["kind"].(string)), io["name"])
			return []any{"60m", o["type"], o["reason"], object, "", "kubelet, node-1", o["message"], "60m", 1, name(o)}
		})
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}

func (b *builder) workloads() {
	deploy := Obj{
		"metadata": b.meta("default", "web", map[string]string{"app": "web"}, 5*time.Hour),
		"spec": Obj{"replicas": 2, "selector": Obj{"matchLabels": Obj{"app": "web"}},
			"template": Obj{"metadata": Obj{"labels": Obj{"app": "web"}}, "spec": Obj{"containers": []Obj{{"name": "app", "image": "registry.example.com/app:1.0"}}}},
			"strategy": Obj{"type": "RollingUpdate", "rollingUpdate": Obj{"maxUnavailable": "25%", "maxSurge": "25%"}}},
		"status": Obj{"replicas": 2, "readyReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2},
	}
	rsMeta := b.meta("default", "web-abc", map[string]string{"app": "web", "pod-template-hash": "abc"}, 5*time.Hour)
	rsMeta["ownerReferences"] = []Obj{{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-default-web", "controller": true}}
	rsMeta["annotations"] = Obj{"deployment.kubernetes.io/revision": "1"}
	rs := Obj{
		"metadata": rsMeta,
		"spec": Obj{"replicas": 2, "selector": Obj{"matchLabels": Obj{"app": "web", "pod-template-hash": "abc"}},
			"template": Obj{"metadata": Obj{"labels": Obj{"app": "web", "pod-template-hash": "abc"}}, "spec": Obj{"containers": []Obj{{"name": "app", "image": "registry.example.com/app:1.0"}}}}},
		"status": Obj{"replicas": 2, "readyReplicas": 2, "availableReplicas": 2, "fullyLabeledReplicas": 2},
	}
	b.list(DeploymentsGVR, "Deployment", false, "default", []Obj{deploy},
		[]metav1.TableColumnDefinition{
			col("Name", "string", "name", 0, "Name"), col("Ready", "string", "", 0, "Ready"),
			col("Up-to-date", "string", "", 0, "Up to date"), col("Available", "string", "", 0, "Available"),
			col("Age", "string", "", 0, "CreationTimestamp"), col("Containers", "string", "", 1, "Containers"),
			col("Images", "string", "", 1, "Images"), col("Selector", "string", "", 1, "Selector"),
		},
		func(o Obj) []any {
			return []any{name(o), "2/2", 2, 2, age(o), "app", "registry.example.com/app:1.0", "app=web"}
		})
	b.list(ReplicaSetsGVR, "ReplicaSet", false, "default", []Obj{rs},
		[]metav1.TableColumnDefinition{
			col("Name", "string", "name", 0, "Name"), col("Desired", "integer", "", 0, "Desired"),
			col("Current", "integer", "", 0, "Current"), col("Ready", "integer", "", 0, "Ready"),
			col("Age", "string", "", 0, "CreationTimestamp"), col("Containers", "string", "", 1, "Containers"),
			col("Images", "string", "", 1, "Images"), col("Selector", "string", "", 1, "Selector"),
		},
		func(o Obj) []any {
			return []any{name(o), 2, 2, 2, age(o), "app", "registry.example.com/app:1.0", "app=web,pod-template-hash=abc"}
		})
}

func (b *builder) configs() {
	cms := []Obj{
		{"metadata": b.meta("default", "settings", map[string]string{"app": "web"}, 48*time.Hour), "data": Obj{"mode": "<fast> & safe"}},
		{"metadata": b.meta("kube-system", "coredns", nil, 30*24*time.Hour), "data": Obj{"Corefile": ".:53 {\n    forward . /etc/resolv.conf\n}\n"}},
	}
	b.namespacedLists(ConfigMapsGVR, "ConfigMap", false, cms,
		[]metav1.TableColumnDefinition{col("Name", "string", "name", 0, "Name"), col("Data", "string", "", 0, "Number of data"), col("Age", "string", "", 0, "CreationTimestamp")},
		func(o Obj) []any { return []any{name(o), len(o["data"].(Obj)), age(o)} })
	// Secrets have no stored table: the server's default convertor applies.
	b.list(SecretsGVR, "Secret", false, "default", []Obj{{"metadata": b.meta("default", "creds", nil, 48*time.Hour), "type": "Opaque", "data": Obj{"password": "KioqSElEREVOKioq"}}}, nil, nil)
}

func (b *builder) widgets() {
	crd := Obj{
		"metadata": b.meta("", "widgets.example.com", nil, 10*24*time.Hour),
		"spec": Obj{
			"group": "example.com", "scope": "Namespaced",
			"names": Obj{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList", "shortNames": []string{"wg"}},
			"versions": []Obj{{
				"name": "v1", "served": true, "storage": true,
				"schema":                   Obj{"openAPIV3Schema": Obj{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				"selectableFields":         []Obj{{"jsonPath": ".spec.color"}},
				"additionalPrinterColumns": []Obj{{"name": "Color", "type": "string", "jsonPath": ".spec.color"}},
			}},
		},
	}
	b.list(CRDsGVR, "CustomResourceDefinition", false, "", []Obj{crd},
		[]metav1.TableColumnDefinition{col("Name", "string", "name", 0, "Name"), col("Created At", "date", "", 0, "CreationTimestamp")},
		func(o Obj) []any { return []any{name(o), o["metadata"].(Obj)["creationTimestamp"]} })
	widgets := []Obj{
		{"metadata": b.meta("default", "w1", map[string]string{"size": "small"}, 24*time.Hour), "spec": Obj{"color": "red"}},
		{"metadata": b.meta("default", "w2", map[string]string{"size": "large"}, 24*time.Hour), "spec": Obj{"color": "blue"}},
	}
	b.list(WidgetsGVR, "Widget", true, "default", widgets,
		[]metav1.TableColumnDefinition{col("Name", "string", "name", 0, "Name"), col("Color", "string", "", 0, "Custom resource definition column (in JSONPath format): .spec.color"), col("Age", "date", "", 0, "CreationTimestamp")},
		func(o Obj) []any { return []any{name(o), o["spec"].(Obj)["color"], age(o)} })
	// The live server was seen to accept these labels for widgets.
	b.files[contract.SelectableFieldsPath(WidgetsGVR)] = indent([]string{"metadata.name", "metadata.namespace", "spec.color"})
}

// LogLayouts is Small with pod logs in every layout troubleshoot has
// written (see contract.MapPodLogs): web-1's init container "setup"
// with timestamps at the start of each line (at SetupLogTimes), job-x's
// only container in the single-container form of the logs collector
// before v0.48.0 (jobs/job-x.log), web-3's "app" in its collector folder
// form (web/web-3/app.log), a legacy copy of web-2's log that the
// canonical one overrides (old/web-2.log), and the record of why
// coredns's log could not be collected.
func LogLayouts() Files {
	f := Small()
	var setup strings.Builder
	for i, at := range SetupLogTimes {
		fmt.Fprintf(&setup, "%s setup step %d\n", at.Format("2006-01-02T15:04:05.000000000Z07:00"), i+1)
	}
	f[logPath("default", "web-1", "setup", false)] = []byte(setup.String())
	f["jobs/job-x.log"] = lines("job-x main", 2)
	f["web/web-3/app.log"] = lines("web-3 app", 3)
	f["old/web-2.log"] = lines("web-2 legacy copy", 1)
	f[path.Join(contract.ClusterResourcesDir, "pods", "logs", "kube-system", "coredns-abc", "coredns-logs-errors.log")] = []byte("failed to get log stream: the server has asked for the client to provide credentials\n")
	return f
}

// SetupLogTimes are the timestamps of the lines of web-1's "setup" log in
// LogLayouts: 3 hours, 2 hours, 30 minutes and 10 seconds before
// collection.
var SetupLogTimes = []time.Time{
	CollectedAt.Add(-3 * time.Hour), CollectedAt.Add(-2 * time.Hour), CollectedAt.Add(-30 * time.Minute).Add(123456789), CollectedAt.Add(-10 * time.Second),
}
