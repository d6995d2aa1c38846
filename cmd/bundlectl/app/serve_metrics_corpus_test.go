package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestKubectlTopCorpus runs the real kubectl top against the served 2025
// baseline, whose node-metrics/primary-node.json the upgrade turns into
// metrics.k8s.io, and against a bundle without node metrics. The numbers
// are the file's, as kubectl prints them: CPU in millicores rounded up
// (Quantity.MilliValue), memory in Mi rounded down (Value()/2^20),
// percentages of the node's allocatable truncated.
func TestKubectlTopCorpus(t *testing.T) {
	corpus := contracttest.CorpusDir(t)
	kubectl := testenv.Kubectl(t)
	top := func(t *testing.T, kubeconfig string, args ...string) (string, string, error) {
		t.Helper()
		return runKubectl(t, kubectl, kubeconfig, append([]string{"top"}, args...)...)
	}
	fields := func(out string) [][]string {
		var rows [][]string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			rows = append(rows, strings.Fields(line))
		}
		return rows
	}
	t.Run("with node metrics", func(t *testing.T) {
		kubeconfig, _ := serveCorpusForTest(t, filepath.Join(corpus, "troubleshoot-baseline-v0.123.14-2025-12/baseline.tar.gz"))
		for _, tc := range []struct {
			args []string
			want string
		}{
			// node: usageNanoCores 45418338 -> 46m, of allocatable cpu 4 = 1%;
			// workingSetBytes 737718272 -> 703Mi, of 16379772Ki = 4%.
			{[]string{"nodes"}, `NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%)
primary-node 46m 1% 703Mi 4%`},
			// Each pod: the sum of its containers' usageNanoCores and
			// workingSetBytes (svclb-traefik: 0 + 968436 -> 1m;
			// 339968 + 327680 bytes -> 0Mi).
			{[]string{"pods", "-A"}, `NAMESPACE NAME CPU(cores) MEMORY(bytes)
kube-system coredns-56f6fc8fd7-p4x9z 6m 14Mi
kube-system local-path-provisioner-5cf85fd84d-jntjc 2m 7Mi
kube-system metrics-server-5985cbc9d7-9jgk6 43m 17Mi
kube-system svclb-traefik-a6edc2ef-c2sjr 1m 0Mi
kube-system traefik-57b79cf995-qn4jm 1m 34Mi`},
			// lb-tcp-443: usageNanoCores 968436 -> 1m, workingSetBytes
			// 327680; lb-tcp-80: 0, 339968 (kubectl sorts containers by name).
			{[]string{"pod", "-n", "kube-system", "svclb-traefik-a6edc2ef-c2sjr", "--containers"}, `POD NAME CPU(cores) MEMORY(bytes)
svclb-traefik-a6edc2ef-c2sjr lb-tcp-443 1m 0Mi
svclb-traefik-a6edc2ef-c2sjr lb-tcp-80 0m 0Mi`},
		} {
			stdout, stderr, err := top(t, kubeconfig, tc.args...)
			if err != nil || stderr != "" {
				t.Fatalf("kubectl top %s: %v\n%s", strings.Join(tc.args, " "), err, stderr)
			}
			if got, want := fields(stdout), fields(tc.want); !equalRows(got, want) {
				t.Errorf("kubectl top %s:\n%s\nwant\n%s", strings.Join(tc.args, " "), stdout, tc.want)
			}
		}
	})
	t.Run("without node metrics", func(t *testing.T) {
		kubeconfig, _ := serveCorpusForTest(t, filepath.Join(corpus, "troubleshoot-testdata-v0.50.0-2022-12/support-bundle.tar.gz"))
		for _, args := range [][]string{{"nodes"}, {"pods", "-A"}} {
			stdout, stderr, err := top(t, kubeconfig, args...)
			if err == nil || stdout != "" || stderr != "error: Metrics API not available\n" {
				t.Errorf("kubectl top %s: %v, stdout %q, stderr %q; want kubectl's answer without metrics-server", strings.Join(args, " "), err, stdout, stderr)
			}
		}
	})
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], " ") != strings.Join(b[i], " ") {
			return false
		}
	}
	return true
}
