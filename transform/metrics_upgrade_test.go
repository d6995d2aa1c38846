package transform_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// TestUpgradeNodeMetricsProblems: a node-metrics file that is not a
// kubelet summary, or whose node reports no usage, is a problem of the
// summary naming it; the others are served and the upgrade succeeds.
func TestUpgradeNodeMetricsProblems(t *testing.T) {
	dir := t.TempDir()
	root := "support-bundle-2025-12-10T17_27_09/"
	good := `{"node":{"nodeName":"a","cpu":{"time":"2025-12-10T17:26:37Z","usageNanoCores":123456789},"memory":{"time":"2025-12-10T17:26:37Z","workingSetBytes":1048576}},
	 "pods":[{"podRef":{"name":"p","namespace":"default"},"containers":[{"name":"c","cpu":{"time":"2025-12-10T17:26:30Z","usageNanoCores":1},"memory":{"workingSetBytes":2}}]}]}`
	p := contracttest.WriteTarGz(t, dir, "old.tgz", []contracttest.File{
		{Name: root + "cluster-info/cluster_version.json", Body: `{"info":{"major":"1","minor":"37","gitVersion":"v1.37.1"},"string":"v1.37.1"}`},
		{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p","namespace":"default","labels":{"app":"x"},"creationTimestamp":"2025-12-10T17:00:00Z"}}]}`},
		{Name: root + "node-metrics/a.json", Body: good},
		{Name: root + "node-metrics/b.json", Body: `{"node":{"nodeName":"b"}}`},
		{Name: root + "node-metrics/c.json", Body: `<html>502</html>`},
	})
	sum := upgrade(t, p, filepath.Join(dir, "new.tgz"), transform.Options{})
	if got := sum.ListsConverted; got["metrics.k8s.io/v1beta1 nodes"] != 1 || got["metrics.k8s.io/v1beta1 pods"] != 1 {
		t.Errorf("lists: %v", got)
	}
	problems := map[string]string{}
	for _, pr := range sum.Problems {
		problems[pr.Path] = pr.Message
	}
	if m := problems["node-metrics/b.json"]; !strings.Contains(m, "node b has no CPU or memory usage") {
		t.Errorf("node-metrics/b.json: %q", m)
	}
	if m := problems["node-metrics/c.json"]; !strings.Contains(m, "not a kubelet stats summary") {
		t.Errorf("node-metrics/c.json: %q", m)
	}
	if len(problems) != 2 {
		t.Errorf("problems %v", problems)
	}
}
