// Package nodemetrics turns the kubelet Summary API answers that
// troubleshoot's nodeMetrics collector stores (node-metrics/<node>.json at
// the bundle root, the body of /api/v1/nodes/<node>/proxy/stats/summary)
// into the metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics metrics-server
// would have served at collection time, and their tables, so that
// `kubectl top` and k9s read a bundle as they read the live cluster.
//
// metrics-server (sigs.k8s.io/metrics-server pkg/storage) computes CPU
// usage from two scrapes of cumulative CPU time, over the window between
// them. A bundle holds one scrape; the kubelet's own rate, usageNanoCores,
// is the usage over its last two cAdvisor samples, which are
// defaultHousekeepingInterval (10s, k8s.io/kubernetes
// pkg/kubelet/cadvisor/cadvisor_linux.go) apart: that is the usage served,
// with that Window. Memory is workingSetBytes, as metrics-server reports
// it.
package nodemetrics

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/contract"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// Dir is the folder, at the bundle root, where troubleshoot's
// nodeMetrics collector writes one <node>.json per node.
const Dir = "node-metrics"

// Window is the interval the kubelet's usageNanoCores is a rate over: the
// kubelet's cAdvisor housekeeping interval (see the package doc).
const Window = 10 * time.Second

// Group version resources metrics-server registers (pkg/api/install.go):
// nodes, cluster-scoped, of kind NodeMetrics, and pods, namespaced, of
// kind PodMetrics, both with the verbs get and list.
var (
	NodesGVR = metricsv1beta1.SchemeGroupVersion.WithResource("nodes")
	PodsGVR  = metricsv1beta1.SchemeGroupVersion.WithResource("pods")
)

// APIResources are the discovery entries metrics-server's group version
// serves, as the aggregator lists them.
func APIResources() []metav1.APIResource {
	verbs := metav1.Verbs{"get", "list"}
	return []metav1.APIResource{
		{Name: NodesGVR.Resource, Namespaced: false, Kind: "NodeMetrics", Verbs: verbs},
		{Name: PodsGVR.Resource, Namespaced: true, Kind: "PodMetrics", Verbs: verbs},
	}
}

// IsFile says whether rel (relative to the bundle root) is a node's
// Summary API answer, and which node's.
func IsFile(rel string) (node string, ok bool) {
	dir, file := path.Split(rel)
	node, ok = strings.CutSuffix(file, ".json")
	return node, ok && dir == Dir+"/" && node != "" && !contract.IsArchiverFile(rel)
}

// Decode reads one node's Summary API answer.
func Decode(data []byte) (*statsv1alpha1.Summary, error) {
	var s statsv1alpha1.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a kubelet stats summary: %w", err)
	}
	if s.Node.NodeName == "" {
		return nil, fmt.Errorf("not a kubelet stats summary: node.nodeName is empty")
	}
	return &s, nil
}

// Node is the node's NodeMetrics, as metrics-server's nodeStorage makes
// it (created at the collection time, labels of the node), and false when
// the summary lacks the node's CPU or memory usage (metrics-server skips
// such a node).
func Node(s *statsv1alpha1.Summary, labels map[string]string, created time.Time) (metricsv1beta1.NodeMetrics, bool) {
	usage, ts, ok := usageOf(s.Node.CPU, s.Node.Memory)
	if !ok {
		return metricsv1beta1.NodeMetrics{}, false
	}
	return metricsv1beta1.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: s.Node.NodeName, Labels: labels, CreationTimestamp: metav1.NewTime(created)},
		Timestamp:  ts,
		Window:     metav1.Duration{Duration: Window},
		Usage:      usage,
	}, true
}

// Pods are the PodMetrics of the summary's pods, as metrics-server's
// podStorage makes them: a pod is left out when any of its containers
// lacks CPU or memory usage, and its timestamp is its containers'
// earliest. labels gives a pod's labels (nil when the bundle lacks the
// pod).
func Pods(s *statsv1alpha1.Summary, labels func(namespace, name string) map[string]string, created time.Time) []metricsv1beta1.PodMetrics {
	var out []metricsv1beta1.PodMetrics
	for _, p := range s.Pods {
		if p.PodRef.Name == "" || p.PodRef.Namespace == "" {
			continue
		}
		m := metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: p.PodRef.Name, Namespace: p.PodRef.Namespace,
				Labels: labels(p.PodRef.Namespace, p.PodRef.Name), CreationTimestamp: metav1.NewTime(created)},
			Window:     metav1.Duration{Duration: Window},
			Containers: make([]metricsv1beta1.ContainerMetrics, 0, len(p.Containers)),
		}
		complete := true
		for _, c := range p.Containers {
			usage, ts, ok := usageOf(c.CPU, c.Memory)
			if !ok {
				complete = false
				break
			}
			m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: c.Name, Usage: usage})
			if m.Timestamp.IsZero() || ts.Before(&m.Timestamp) {
				m.Timestamp = ts
			}
		}
		if complete {
			out = append(out, m)
		}
	}
	return out
}

// usageOf is the cpu and memory usage of one scrape, with quantities
// formatted as metrics-server's resourceUsage formats them (nanocores in
// DecimalSI, bytes in BinarySI), and the time of the CPU sample, which
// metrics-server reports.
func usageOf(cpu *statsv1alpha1.CPUStats, mem *statsv1alpha1.MemoryStats) (corev1.ResourceList, metav1.Time, bool) {
	if cpu == nil || cpu.UsageNanoCores == nil || mem == nil || mem.WorkingSetBytes == nil {
		return nil, metav1.Time{}, false
	}
	return corev1.ResourceList{
		corev1.ResourceCPU:    uint64Quantity(*cpu.UsageNanoCores, resource.DecimalSI, -9),
		corev1.ResourceMemory: uint64Quantity(*mem.WorkingSetBytes, resource.BinarySI, 0),
	}, cpu.Time, true
}

// uint64Quantity is metrics-server's (pkg/storage/types.go): a value past
// int64 loses a decimal digit rather than overflowing.
func uint64Quantity(val uint64, format resource.Format, scale resource.Scale) resource.Quantity {
	q := *resource.NewScaledQuantity(int64(val), scale)
	if val > math.MaxInt64 {
		q = *resource.NewScaledQuantity(int64(val/10), resource.Scale(1)+scale)
	}
	q.Format = format
	return q
}

// SortNodes and SortPods put metrics in the order metrics-server lists
// them (by name; by namespace, then name).
func SortNodes(ms []metricsv1beta1.NodeMetrics) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
}

// SortPods: see SortNodes.
func SortPods(ms []metricsv1beta1.PodMetrics) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Namespace != ms[j].Namespace {
			return ms[i].Namespace < ms[j].Namespace
		}
		return ms[i].Name < ms[j].Name
	})
}

// NodeTable is metrics-server's table of node metrics
// (addNodeMetricsToTable in pkg/api/table.go): Name, one quantity column
// per resource in name order (cpu, memory), Window; each row's object is
// the PartialObjectMetadata kube's handlers put there by default.
func NodeTable(ms []metricsv1beta1.NodeMetrics) metav1.Table {
	t := emptyTable()
	for i := range ms {
		addRow(&t, ms[i].ObjectMeta, ms[i].Usage, ms[i].Window)
	}
	return t
}

// PodTable is metrics-server's table of pod metrics
// (addPodMetricsToTable): as NodeTable, with each resource summed over
// the pod's containers.
func PodTable(ms []metricsv1beta1.PodMetrics) metav1.Table {
	t := emptyTable()
	for i := range ms {
		usage := corev1.ResourceList{}
		for _, c := range ms[i].Containers {
			for k, v := range c.Usage {
				u := usage[k]
				u.Add(v)
				usage[k] = u
			}
		}
		addRow(&t, ms[i].ObjectMeta, usage, ms[i].Window)
	}
	return t
}

// emptyTable is the table of no metrics. metrics-server's has no columns
// (the first row decides them); this one has those every row here has
// (cpu, memory), which a client shows no differently ("No resources
// found") and serve needs to serve the table of an empty namespace like
// any other.
func emptyTable() metav1.Table {
	t := metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	setColumns(&t, corev1.ResourceList{corev1.ResourceCPU: resource.Quantity{}, corev1.ResourceMemory: resource.Quantity{}})
	return t
}

// setColumns sets the columns of a table of usage: Name, one quantity
// column per resource in name order, Window.
func setColumns(t *metav1.Table, usage corev1.ResourceList) {
	t.ColumnDefinitions = []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name", Description: "Name of the resource"}}
	for _, name := range resourceNames(usage) {
		t.ColumnDefinitions = append(t.ColumnDefinitions, metav1.TableColumnDefinition{Name: name, Type: "string", Format: "quantity"})
	}
	t.ColumnDefinitions = append(t.ColumnDefinitions, metav1.TableColumnDefinition{Name: "Window", Type: "string", Format: "duration"})
}

// addRow adds one row; the first row decides the columns, as in
// metrics-server.
func addRow(t *metav1.Table, meta metav1.ObjectMeta, usage corev1.ResourceList, window metav1.Duration) {
	if len(t.Rows) == 0 {
		setColumns(t, usage)
	}
	row := []any{meta.Name}
	for _, c := range t.ColumnDefinitions[1 : len(t.ColumnDefinitions)-1] {
		v := usage[corev1.ResourceName(c.Name)]
		row = append(row, v.String())
	}
	row = append(row, window.Duration.String())
	partial := &metav1.PartialObjectMetadata{ObjectMeta: meta}
	partial.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
	t.Rows = append(t.Rows, metav1.TableRow{Cells: row, Object: runtime.RawExtension{Object: partial}})
}

func resourceNames(usage corev1.ResourceList) []string {
	names := make([]string, 0, len(usage))
	for k := range usage {
		names = append(names, string(k))
	}
	sort.Strings(names)
	return names
}
