package contracttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Writing.

func (g *generator) write(a *archiveWriter) error {
	if err := a.file("version.yaml", []byte("apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionNumber: "+TroubleshootVersion+"\n")); err != nil {
		return err
	}
	cv, err := json.MarshalIndent(g.clusterVersion(), "", "  ")
	if err != nil {
		return err
	}
	if err := a.file("cluster-info/cluster_version.json", cv); err != nil {
		return err
	}
	for _, f := range []struct{ name, body string }{{"groups.json", legacyGroupsJSON}, {"resources.json", legacyResourcesJSON}} {
		data, err := indentJSON(f.body)
		if err != nil {
			return err
		}
		if err := a.file("cluster-resources/"+f.name, data); err != nil {
			return err
		}
	}
	nss := g.sortedNamespaces()
	if err := g.writeList(a, "namespaces.json", "Namespace", "v1", len(nss), func(i int) any { return g.namespace(nss[i]) }); err != nil {
		return err
	}
	if err := g.writeList(a, "nodes.json", "Node", "v1", len(g.nodes), func(i int) any { return g.node(g.nodes[i]) }); err != nil {
		return err
	}
	for _, ns := range nss {
		if err := g.writePods(a, ns); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		if err := g.writeList(a, "deployments/"+ns.name+".json", "Deployment", "apps/v1", len(ns.deps), func(i int) any { return g.deployment(ns.deps[i]) }); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		if err := g.writeList(a, "replicasets/"+ns.name+".json", "ReplicaSet", "apps/v1", len(ns.deps), func(i int) any { return g.replicaSet(ns.deps[i]) }); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		if err := g.writeList(a, "services/"+ns.name+".json", "Service", "v1", len(ns.deps), func(i int) any { return g.service(ns.deps[i]) }); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		events := g.events(ns)
		if err := g.writeList(a, "events/"+ns.name+".json", "Event", "v1", len(events), func(i int) any { return events[i] }); err != nil {
			return err
		}
	}
	return nil
}

// writeList writes cluster-resources/<rel>: the typed list of n objects.
// It is laid out exactly as troubleshoot's json.MarshalIndent(list, "", "  ")
// does, from items marshalled with json.MarshalIndent(item, "    ", "  ")
// a batch at a time; an empty list has "items": null.
func (g *generator) writeList(a *archiveWriter, rel, kind, apiVersion string, n int, obj func(i int) any) error {
	var sp spool
	defer sp.close()
	err := sp.Write(fmt.Appendf(nil, "{\n  \"kind\": %q,\n  \"apiVersion\": %q,\n  \"metadata\": {\n    \"resourceVersion\": %q\n  },\n  \"items\": ",
		kind+"List", apiVersion, strconv.FormatInt(g.listRV, 10)))
	const batch = 2048
	for start := 0; start < n && err == nil; start += batch {
		var items [][]byte
		items, err = marshalItems(min(batch, n-start), func(i int) any { return obj(start + i) })
		for i := 0; i < len(items) && err == nil; i++ {
			sep := nextItem
			if start+i == 0 {
				sep = firstItem
			}
			if err = sp.Write(sep); err == nil {
				err = sp.Write(items[i])
			}
		}
	}
	if err == nil {
		if n == 0 {
			err = sp.Write(noItems)
		} else {
			err = sp.Write(lastItem)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	a.stats.Objects[kind] += n
	return a.fileFrom("cluster-resources/"+rel, &sp)
}

func (g *generator) sortedNamespaces() []*gNamespace {
	out := append([]*gNamespace(nil), g.nss...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writePods writes pods/<ns>.json in name order, as the apiserver lists
// them, then the logs of its unhealthy pods.
func (g *generator) writePods(a *archiveWriter, ns *gNamespace) error {
	type key struct {
		name string
		d    *gDeploy
		k    int
	}
	keys := make([]key, 0, ns.pods)
	for _, d := range ns.deps {
		for k := range d.pods {
			keys = append(keys, key{d.rsName + "-" + podSuffix(k, d.suffixMul, d.suffix0), d, k})
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	states := make([]podState, len(keys))
	logs := make([]map[string][]byte, len(keys))
	err := g.writeList(a, "pods/"+ns.name+".json", "Pod", "v1", len(keys), func(i int) any {
		p := g.pod(keys[i].d, keys[i].k)
		states[i], logs[i] = p.state, g.podLogs(p)
		return g.buildPod(p)
	})
	if err != nil {
		return err
	}
	for i, k := range keys {
		a.stats.PodStates[stateNames[states[i]]]++
		names := make([]string, 0, len(logs[i]))
		for n := range logs[i] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := a.file("cluster-resources/pods/logs/"+ns.name+"/"+k.name+"/"+n, logs[i][n]); err != nil {
				return err
			}
		}
	}
	return nil
}

func indentJSON(compact string) ([]byte, error) {
	var c, out bytes.Buffer
	if err := json.Compact(&c, []byte(compact)); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, c.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (g *generator) clusterVersion() any {
	type info struct {
		Major                 string `json:"major"`
		Minor                 string `json:"minor"`
		EmulationMajor        string `json:"emulationMajor"`
		EmulationMinor        string `json:"emulationMinor"`
		MinCompatibilityMajor string `json:"minCompatibilityMajor"`
		MinCompatibilityMinor string `json:"minCompatibilityMinor"`
		GitVersion            string `json:"gitVersion"`
		GitCommit             string `json:"gitCommit"`
		GitTreeState          string `json:"gitTreeState"`
		BuildDate             string `json:"buildDate"`
		GoVersion             string `json:"goVersion"`
		Compiler              string `json:"compiler"`
		Platform              string `json:"platform"`
	}
	return struct {
		Info   info   `json:"info"`
		String string `json:"string"`
	}{info{"1", "35", "1", "35", "1", "34", GeneratedKubernetesVersion, "9a1f5e3c2b7d4068e1f0c3a5b8d2e7f4a6c9b1d3", "clean",
		"2025-11-11T18:42:07Z", "go1.25.3", "gc", "linux/amd64"}, GeneratedKubernetesVersion}
}

func (g *generator) namespace(ns *gNamespace) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: ns.name, UID: ns.uid, ResourceVersion: strconv.FormatInt(ns.rv, 10), CreationTimestamp: mt(ns.created),
			Labels: map[string]string{"kubernetes.io/metadata.name": ns.name, "team": ns.team},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-create", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time: mtp(ns.created), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{},"f:team":{}}}}`)}}}},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}

var nodeImages = []corev1.ContainerImage{
	{Names: []string{"registry.k8s.io/kube-proxy@sha256:838e4061b8dba100d6f1efb92adc7a5f6c4276867fef200783c7b272f31212aa", "registry.k8s.io/kube-proxy:v1.35.4"}, SizeBytes: 66979799},
	{Names: []string{"docker.io/calico/node@sha256:2d4e4b1d5e9b3c5a3f1f0f8c0a6e3d1b9e2c7f4a5d8b6c3e1f0a9d8c7b6a5f4e", "docker.io/calico/node:v3.30.2"}, SizeBytes: 156829736},
	{Names: []string{"registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a", "registry.k8s.io/pause:3.10.1"}, SizeBytes: 320448},
}

func (g *generator) node(nd *gNode) *corev1.Node {
	r := g.rng(streamNode, uint64(nd.idx), 1)
	region := "eu-west-1"
	labels := map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": nd.instanceType, "beta.kubernetes.io/os": "linux",
		"failure-domain.beta.kubernetes.io/region": region, "failure-domain.beta.kubernetes.io/zone": nd.zone,
		"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": nd.name, "kubernetes.io/os": "linux",
		"node.kubernetes.io/instance-type": nd.instanceType, "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": nd.zone,
	}
	var taints []corev1.Taint
	if nd.control {
		labels["node-role.kubernetes.io/control-plane"] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		if len(g.nodes) > 1 {
			taints = append(taints, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})
		}
	} else {
		labels["node-role.kubernetes.io/worker"] = ""
		labels["node.example.com/pool"] = strings.SplitN(nd.instanceType, ".", 2)[0]
	}
	heartbeat := g.at.Add(-r.between(time.Second, 40*time.Second))
	ready := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	booted := g.at.Add(-r.ago(time.Hour, g.at.Sub(nd.created)))
	for i := range ready {
		ready[i].LastHeartbeatTime = mt(heartbeat)
		ready[i].LastTransitionTime = mt(booted)
	}
	if nd.notReady {
		lost := g.at.Add(-r.ago(2*time.Minute, 6*time.Hour))
		for i := range ready {
			ready[i].Status = corev1.ConditionUnknown
			ready[i].Reason = "NodeStatusUnknown"
			ready[i].Message = "Kubelet stopped posting node status."
			ready[i].LastHeartbeatTime = mt(lost.Add(-40 * time.Second))
			ready[i].LastTransitionTime = mt(lost)
		}
		taints = append(taints,
			corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoSchedule, TimeAdded: mtp(lost)},
			corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: mtp(lost.Add(5 * time.Second))})
	}
	if nd.cordoned {
		taints = append(taints, corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule, TimeAdded: mtp(g.at.Add(-r.ago(time.Hour, 48*time.Hour)))})
	}
	cidr := fmt.Sprintf("%s/%d", ipv4(nd.podCIDR), 32-g.nodeBits)
	internalIP := ipv4(nd.ip)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(nd.cpu, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("101430960Ki"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		corev1.ResourceMemory:           *resource.NewQuantity(nd.memKi*1024, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(nd.podsCap, resource.DecimalSI),
	}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(nd.cpu, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("93478772582"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		corev1.ResourceMemory:           *resource.NewQuantity((nd.memKi-102400)*1024, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(nd.podsCap, resource.DecimalSI),
	}
	images := append([]corev1.ContainerImage(nil), nodeImages...)
	for i := 0; i < 4 && len(g.deps) > 0; i++ {
		d := g.deps[r.IntN(len(g.deps))]
		images = append(images, corev1.ContainerImage{Names: []string{d.imageID, d.image}, SizeBytes: 20_000_000 + r.Int64N(400_000_000)})
	}
	sort.SliceStable(images, func(i, j int) bool { return images[i].SizeBytes > images[j].SizeBytes })
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: nd.name, UID: nd.uid, ResourceVersion: strconv.FormatInt(nd.rv, 10), CreationTimestamp: mt(nd.created),
			Labels: labels,
			Annotations: map[string]string{
				"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"ebs.csi.aws.com":"%s"}`, nd.instanceID),
				"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///var/run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl":                           "0",
				"projectcalico.org/IPv4Address":                          internalIP + "/20",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(nd.created), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},"f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/os":{},"f:kubernetes.io/arch":{},"f:kubernetes.io/hostname":{},"f:kubernetes.io/os":{}}}}`)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(nd.created.Add(20 * time.Second)), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: fmt.Appendf(nil, `{"f:metadata":{"f:annotations":{"f:node.alpha.kubernetes.io/ttl":{}}},"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{},"v:\"%s\"":{}}}}`, cidr)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(heartbeat), FieldsType: "FieldsV1",
					FieldsV1:    &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:addresses":{},"f:allocatable":{},"f:capacity":{},"f:conditions":{},"f:daemonEndpoints":{},"f:features":{},"f:images":{},"f:nodeInfo":{},"f:runtimeHandlers":{}}}`)},
					Subresource: "status"},
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}, ProviderID: fmt.Sprintf("aws:///%s/%s", nd.zone, nd.instanceID),
			Unschedulable: nd.cordoned, Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Conditions:  ready,
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: internalIP},
				{Type: corev1.NodeInternalDNS, Address: fmt.Sprintf("ip-%s.%s.compute.internal", strings.ReplaceAll(internalIP, ".", "-"), region)},
				{Type: corev1.NodeHostName, Address: nd.name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: r.hex(32), SystemUUID: string(r.uid()), BootID: string(r.uid()),
				KernelVersion: "6.8.0-1039-aws", OSImage: "Ubuntu 24.04.3 LTS", ContainerRuntimeVersion: "containerd://2.1.4",
				KubeletVersion: GeneratedKubernetesVersion, OperatingSystem: "linux", Architecture: "amd64"},
			Images: images,
			RuntimeHandlers: []corev1.NodeRuntimeHandler{
				{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
				{Name: "", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}}},
			Features: &corev1.NodeFeatures{SupplementalGroupsPolicy: ptr(true)},
		},
	}
}

func (g *generator) deployment(d *gDeploy) *appsv1.Deployment {
	replicas := int32(d.active)
	unavailable := d.active - d.ready
	maxUnavailable := d.active / 4
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
		LastUpdateTime: mt(d.rsCreated.Add(40 * time.Second)), LastTransitionTime: mt(d.rsCreated.Add(40 * time.Second)),
		Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."}
	if unavailable > maxUnavailable {
		available.Status, available.Reason, available.Message = corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
		t := g.at.Add(-g.rng(streamDeployment, uint64(d.idx), 1).ago(time.Minute, g.at.Sub(d.rsCreated)))
		available.LastUpdateTime, available.LastTransitionTime = mt(t), mt(t)
	}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		LastUpdateTime: mt(d.rsCreated.Add(40 * time.Second)), LastTransitionTime: mt(d.created),
		Reason: "NewReplicaSetAvailable", Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", d.rsName)}
	status := appsv1.DeploymentStatus{ObservedGeneration: d.generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: int32(d.ready), AvailableReplicas: int32(d.ready), UnavailableReplicas: int32(unavailable),
		TerminatingReplicas: ptr(int32(0)), Conditions: []appsv1.DeploymentCondition{available, progressing}}
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: d.name, Namespace: d.ns.name, UID: d.uid, ResourceVersion: strconv.FormatInt(d.rv, 10), Generation: d.generation,
			CreationTimestamp: mt(d.created),
			Labels:            map[string]string{"app": d.name, "app.kubernetes.io/name": d.name, "app.kubernetes.io/part-of": d.ns.name, "app.kubernetes.io/managed-by": managedBy(d)},
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": strconv.Itoa(d.revision)},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: d.managers, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(d.rsCreated), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:annotations":{},"f:labels":{}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}}}`)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(g.statusTime(d)), FieldsType: "FieldsV1",
					FieldsV1:    &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:terminatingReplicas":{},"f:unavailableReplicas":{},"f:updatedReplicas":{}}}`)},
					Subresource: "status"},
			},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name}},
			Template: d.template,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
		Status: status,
	}
}

func managedBy(d *gDeploy) string {
	switch d.managers {
	case "helm":
		return "Helm"
	case "argocd-controller":
		return "argocd"
	}
	return "kubectl"
}

// statusTime is when the controllers last wrote a Deployment's status.
func (g *generator) statusTime(d *gDeploy) time.Time {
	if d.active != d.ready {
		return g.at.Add(-g.rng(streamDeployment, uint64(d.idx), 2).between(time.Second, 5*time.Minute))
	}
	return d.rsCreated.Add(40 * time.Second)
}

func (g *generator) replicaSet(d *gDeploy) *appsv1.ReplicaSet {
	tmpl := d.template
	labels := map[string]string{"pod-template-hash": d.hash}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	tmpl.Labels = labels
	replicas := int32(d.active)
	rr := g.rng(streamDeployment, uint64(d.idx), 3)
	return &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{Kind: "ReplicaSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: d.rsName, Namespace: d.ns.name, UID: d.rsUID, ResourceVersion: strconv.FormatInt(d.rsRV, 10), Generation: 1 + int64(rr.IntN(3)),
			CreationTimestamp: mt(d.rsCreated),
			Labels:            labels,
			Annotations: map[string]string{"deployment.kubernetes.io/desired-replicas": strconv.Itoa(d.active),
				"deployment.kubernetes.io/max-replicas": strconv.Itoa(d.active + (d.active+3)/4), "deployment.kubernetes.io/revision": strconv.Itoa(d.revision)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.name, UID: d.uid, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(d.rsCreated), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: fmt.Appendf(nil, `{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/desired-replicas":{},"f:deployment.kubernetes.io/max-replicas":{},"f:deployment.kubernetes.io/revision":{}},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"%s\"}":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:annotations":{},"f:labels":{}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}}}`, d.uid)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(g.statusTime(d)), FieldsType: "FieldsV1",
					FieldsV1:    &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:availableReplicas":{},"f:fullyLabeledReplicas":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:terminatingReplicas":{}}}`)},
					Subresource: "status"},
			},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name, "pod-template-hash": d.hash}},
			Template: tmpl,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: int32(d.ready),
			AvailableReplicas: int32(d.ready), TerminatingReplicas: ptr(int32(0)), ObservedGeneration: 1},
	}
}

func (g *generator) service(d *gDeploy) *corev1.Service {
	ports := []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString("http")},
		{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090, TargetPort: intstr.FromString("metrics")}}
	spec := corev1.ServiceSpec{Ports: ports, Selector: map[string]string{"app": d.name}, ClusterIP: d.clusterIP, ClusterIPs: []string{d.clusterIP},
		Type: d.svcType, SessionAffinity: corev1.ServiceAffinityNone, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
		IPFamilyPolicy: ptr(corev1.IPFamilyPolicySingleStack), InternalTrafficPolicy: ptr(corev1.ServiceInternalTrafficPolicyCluster)}
	var status corev1.ServiceStatus
	annotations := map[string]string(nil)
	if d.svcType != corev1.ServiceTypeClusterIP {
		spec.Ports[0].NodePort = d.nodePort
		spec.Ports[1].NodePort = d.nodePort + 1
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if d.svcType == corev1.ServiceTypeLoadBalancer {
		spec.AllocateLoadBalancerNodePorts = ptr(true)
		status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: d.lbHost}}
		annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}
	}
	created := d.created.Add(time.Second)
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.ns.name, UID: d.svcUID, ResourceVersion: strconv.FormatInt(d.svcRV, 10),
			CreationTimestamp: mt(created), Annotations: annotations,
			Labels: map[string]string{"app": d.name, "app.kubernetes.io/name": d.name, "app.kubernetes.io/part-of": d.ns.name, "app.kubernetes.io/managed-by": managedBy(d)},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: d.managers, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(created), FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{"f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},"k:{\"port\":9090,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`)}}},
		},
		Spec:   spec,
		Status: status,
	}
}
