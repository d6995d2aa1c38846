package nodemetrics

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// corpusSummaries reads the node-metrics files of a corpus bundle.
func corpusSummaries(t *testing.T, bundle string) map[string][]byte {
	t.Helper()
	b, err := contract.Open(filepath.Join(contracttest.CorpusDir(t), bundle), contract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out := map[string][]byte{}
	err = b.Walk(func(e *contract.Entry) error {
		if node, ok := IsFile(e.Rel); ok && e.InRoot {
			data, err := e.ReadAll()
			out[node] = data
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNodeMetricsCorpus checks the 2025-12 baseline's metrics against the
// numbers of its node-metrics/primary-node.json, read by hand.
func TestNodeMetricsCorpus(t *testing.T) {
	files := corpusSummaries(t, "troubleshoot-baseline-v0.123.14-2025-12/baseline.tar.gz")
	data, ok := files["primary-node"]
	if !ok || len(files) != 1 {
		t.Fatalf("node-metrics files %v, want primary-node", len(files))
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 12, 10, 17, 27, 11, 0, time.UTC)
	labels := map[string]string{"kubernetes.io/hostname": "primary-node"}
	n, ok := Node(s, labels, at)
	if !ok {
		t.Fatal("no NodeMetrics")
	}
	// node.cpu: {"time":"2025-12-10T17:26:37Z","usageNanoCores":45418338};
	// node.memory.workingSetBytes 737718272 = 720428 Ki.
	cpu, mem := n.Usage["cpu"], n.Usage["memory"]
	if n.Name != "primary-node" || cpu.String() != "45418338n" || mem.String() != "720428Ki" ||
		n.Timestamp.UTC() != time.Date(2025, 12, 10, 17, 26, 37, 0, time.UTC) || n.Window.Duration != 10*time.Second ||
		!n.CreationTimestamp.Time.Equal(at) || n.Labels["kubernetes.io/hostname"] != "primary-node" {
		t.Errorf("NodeMetrics %+v", n)
	}
	pods := Pods(s, func(ns, name string) map[string]string { return map[string]string{"pod": ns + "/" + name} }, at)
	SortPods(pods)
	var names []string
	for _, p := range pods {
		names = append(names, p.Namespace+"/"+p.Name)
	}
	want := []string{"kube-system/coredns-56f6fc8fd7-p4x9z", "kube-system/local-path-provisioner-5cf85fd84d-jntjc",
		"kube-system/metrics-server-5985cbc9d7-9jgk6", "kube-system/svclb-traefik-a6edc2ef-c2sjr", "kube-system/traefik-57b79cf995-qn4jm"}
	if got, _ := json.Marshal(names); string(got) != mustJSON(want) {
		t.Fatalf("pods %s, want %s", got, mustJSON(want))
	}
	// svclb-traefik: lb-tcp-80 {cpu 0 at 17:26:37, workingSet 339968},
	// lb-tcp-443 {cpu 968436 at 17:26:29, workingSet 327680}: the pod's
	// timestamp is its earliest container's.
	svclb := pods[3]
	if svclb.Labels["pod"] != "kube-system/svclb-traefik-a6edc2ef-c2sjr" || len(svclb.Containers) != 2 ||
		svclb.Timestamp.UTC() != time.Date(2025, 12, 10, 17, 26, 29, 0, time.UTC) {
		t.Fatalf("svclb PodMetrics %+v", svclb)
	}
	c0cpu, c0mem := svclb.Containers[0].Usage["cpu"], svclb.Containers[0].Usage["memory"]
	c1cpu := svclb.Containers[1].Usage["cpu"]
	if svclb.Containers[0].Name != "lb-tcp-80" || c0cpu.String() != "0" || c0mem.String() != "332Ki" || c1cpu.String() != "968436n" {
		t.Errorf("svclb containers %+v", svclb.Containers)
	}
	// The table sums the containers: 0 + 968436n, 339968 + 327680 bytes = 652Ki.
	table := PodTable(pods)
	if got := mustJSON(table.Rows[3].Cells); got != `["svclb-traefik-a6edc2ef-c2sjr","968436n","652Ki","10s"]` {
		t.Errorf("svclb row %s", got)
	}
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if got := mustJSON(cols); got != `["Name","cpu","memory","Window"]` {
		t.Errorf("columns %s", got)
	}
	if got := mustJSON(NodeTable([]metricsv1beta1.NodeMetrics{n}).Rows[0].Cells); got != `["primary-node","45418338n","720428Ki","10s"]` {
		t.Errorf("node row %s", got)
	}
}

// TestNodeMetricsEveryCorpusBundle decodes every node-metrics file of the
// corpus: each has a node with usage, and every pod of the summary whose
// containers all report CPU and memory has PodMetrics.
func TestNodeMetricsEveryCorpusBundle(t *testing.T) {
	for _, rb := range contracttest.RealBundles {
		files := corpusSummaries(t, rb.Path)
		for node, data := range files {
			s, err := Decode(data)
			if err != nil {
				t.Fatalf("%s: node-metrics/%s.json: %v", rb.Name, node, err)
			}
			if s.Node.NodeName != node {
				t.Errorf("%s: node-metrics/%s.json is of node %s", rb.Name, node, s.Node.NodeName)
			}
			if _, ok := Node(s, nil, time.Time{}); !ok {
				t.Errorf("%s: %s has no NodeMetrics", rb.Name, node)
			}
			complete := 0
			for _, p := range s.Pods {
				ok := true
				for _, c := range p.Containers {
					ok = ok && c.CPU != nil && c.CPU.UsageNanoCores != nil && c.Memory != nil && c.Memory.WorkingSetBytes != nil
				}
				if ok {
					complete++
				}
			}
			if got := len(Pods(s, func(string, string) map[string]string { return nil }, time.Time{})); got != complete || got == 0 {
				t.Errorf("%s: %d PodMetrics of %d complete pods", rb.Name, got, complete)
			}
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, in := range []string{`[]`, `{"node":{}}`, `not json`} {
		if _, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%s) accepted", in)
		}
	}
}

func TestIsFile(t *testing.T) {
	for rel, want := range map[string]string{"node-metrics/a.json": "a", "node-metrics/.json": "", "x/node-metrics/a.json": "", "node-metrics/a.yaml": ""} {
		if got, ok := IsFile(rel); got != want && ok || ok != (want != "") {
			t.Errorf("IsFile(%s) = %q, %v", rel, got, ok)
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestEmptyTable: a namespace without metrics has a table all the same,
// with the columns of the others, for serve to answer from.
func TestEmptyTable(t *testing.T) {
	for _, table := range []metav1.Table{PodTable(nil), NodeTable(nil)} {
		var cols []string
		for _, c := range table.ColumnDefinitions {
			cols = append(cols, c.Name)
		}
		if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" || mustJSON(cols) != `["Name","cpu","memory","Window"]` || len(table.Rows) != 0 {
			t.Errorf("empty table %s", mustJSON(table))
		}
	}
}
