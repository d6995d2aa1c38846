package servetest

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ManyPods is a bundle of n pods of about 3 kB each (managed fields
// included, as real pods have) spread over the given number of
// namespaces, with their tables: the benchmark load.
func ManyPods(n, namespaces int) Files {
	b := newBuilder(KubernetesVersion)
	b.group("", "v1")
	b.resource("v1", "pods", "pod", "Pod", true, []string{"po"}, []string{"all"}, "log", "status")
	b.resource("v1", "namespaces", "namespace", "Namespace", false, []string{"ns"}, nil, "status")
	var nss []Obj
	for i := range namespaces {
		nss = append(nss, Obj{"metadata": b.meta("", fmt.Sprintf("ns-%03d", i), nil, 30*24*time.Hour), "status": Obj{"phase": "Active"}})
	}
	b.list(NamespacesGVR, "Namespace", false, "", nss,
		[]metav1.TableColumnDefinition{col("Name", "string", "name", 0, "Name"), col("Status", "string", "", 0, "Status"), col("Age", "string", "", 0, "CreationTimestamp")},
		func(o Obj) []any { return []any{name(o), "Active", age(o)} })
	pods := make([]Obj, 0, n)
	for i := range n {
		ns := fmt.Sprintf("ns-%03d", i%namespaces)
		podName := fmt.Sprintf("app-%d-7d9f8b6c5-x%05d", i%50, i)
		p := b.pod(ns, podName, fmt.Sprintf("node-%d", i%20), "Running", map[string]string{"app": fmt.Sprintf("app-%d", i%50), "pod-template-hash": "7d9f8b6c5", "tier": []string{"frontend", "backend", "cache"}[i%3]}, map[string]string{"kubectl.kubernetes.io/restartedAt": "2025-11-01T00:00:00Z"}, "", "app", "sidecar")
		m := p["metadata"].(Obj)
		m["ownerReferences"] = []Obj{{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": fmt.Sprintf("app-%d-7d9f8b6c5", i%50), "uid": fmt.Sprintf("rs-uid-%d", i%50), "controller": true, "blockOwnerDeletion": true}}
		m["managedFields"] = []Obj{{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": CollectedAt.Format(time.RFC3339), "fieldsType": "FieldsV1",
			"fieldsV1": Obj{"f:metadata": Obj{"f:generateName": Obj{}, "f:labels": Obj{".": Obj{}, "f:app": Obj{}, "f:pod-template-hash": Obj{}, "f:tier": Obj{}}, "f:ownerReferences": Obj{".": Obj{}}},
				"f:spec": Obj{"f:containers": Obj{"k:{\"name\":\"app\"}": Obj{".": Obj{}, "f:image": Obj{}, "f:name": Obj{}, "f:resources": Obj{}}}}}}}
		spec := p["spec"].(Obj)
		for _, c := range spec["containers"].([]Obj) {
			c["env"] = []Obj{{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_NAME", "valueFrom": Obj{"fieldRef": Obj{"fieldPath": "metadata.name"}}}}
			c["resources"] = Obj{"requests": Obj{"cpu": "100m", "memory": "128Mi"}, "limits": Obj{"memory": "256Mi"}}
			c["ports"] = []Obj{{"containerPort": 8080, "protocol": "TCP"}}
		}
		if i%10 == 0 {
			p["status"].(Obj)["phase"] = "Failed"
		}
		pods = append(pods, p)
	}
	b.namespacedLists(PodsGVR, "Pod", false, pods,
		[]metav1.TableColumnDefinition{
			col("Name", "string", "name", 0, "Name"), col("Ready", "string", "", 0, "Ready"),
			col("Status", "string", "", 0, "Status"), col("Restarts", "string", "", 0, "Restarts"),
			col("Age", "string", "", 0, "CreationTimestamp"), col("IP", "string", "", 1, "IP"),
			col("Node", "string", "", 1, "Node"), col("Nominated Node", "string", "", 1, "Nominated node"),
			col("Readiness Gates", "string", "", 1, "Readiness gates"),
		},
		func(o Obj) []any {
			return []any{name(o), "2/2", o["status"].(Obj)["phase"], 1, age(o), o["status"].(Obj)["podIP"], o["spec"].(Obj)["nodeName"], "<none>", "<none>"}
		})
	return b.done()
}
