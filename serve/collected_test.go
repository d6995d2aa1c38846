package serve

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// notCollectedBundle is Small whose discovery also advertises
// HorizontalPodAutoscalers, which the bundle holds no list of, as
// troubleshoot never collects them.
func notCollectedBundle(t *testing.T) string {
	t.Helper()
	files := servetest.Small()
	d, err := contract.ParseDiscovery(files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	d.Resources["autoscaling/v2"] = []metav1.APIResource{{Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Namespaced: true, Kind: "HorizontalPodAutoscaler", ShortNames: []string{"hpa"}, Verbs: []string{"get", "list", "watch"}}}
	d.Groups = append(d.Groups, metav1.APIGroup{Name: "autoscaling", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "autoscaling/v2", Version: "v2"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "autoscaling/v2", Version: "v2"}})
	if files[contract.DiscoveryPath()], err = d.Marshal(); err != nil {
		t.Fatal(err)
	}
	return files.WriteDir(t, t.TempDir())
}

// TestNotCollected answers a list of what the bundle did not collect as a
// client needs it, 200 and empty, with a Warning that says why it is
// empty; what the bundle collected, empty or not, has none.
func TestNotCollected(t *testing.T) {
	srv := newHandlerServer(t, load(t, notCollectedBundle(t)))
	hpa := `299 - "this support bundle did not collect horizontalpodautoscalers.autoscaling: an empty answer does not mean the cluster had none"`
	for _, tc := range []struct{ path, warning string }{
		{"/apis/autoscaling/v2/horizontalpodautoscalers", hpa},
		{"/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa},
		{"/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers?watch=true&timeoutSeconds=1", hpa},
		// Small holds ConfigMaps of default and kube-system, one file each:
		// team-a's was not collected.
		{"/api/v1/namespaces/team-a/configmaps", `299 - "this support bundle did not collect configmaps in namespace team-a: an empty answer there does not mean it had none"`},
		{"/api/v1/configmaps", `299 - "this support bundle did not collect configmaps in namespace team-a: an empty answer there does not mean it had none"`},
		{"/api/v1/namespaces/default/configmaps", ""},
		// A namespace the bundle does not list did not exist.
		{"/api/v1/namespaces/nope/configmaps", ""},
		{"/api/v1/pods", ""},
		// Custom resources are written only where some exist.
		{"/apis/example.com/v1/namespaces/team-a/widgets", ""},
	} {
		r := get(t, srv, tc.path)
		if r.code != 200 || r.header.Get("Warning") != tc.warning {
			t.Errorf("%s: %d, warning %s, want %s", tc.path, r.code, r.header.Get("Warning"), tc.warning)
		}
	}
	r := get(t, srv, "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web")
	if r.code != 404 || r.header.Get("Warning") != hpa {
		t.Errorf("get: %d %s", r.code, r.header.Get("Warning"))
	}
}

// TestNotCollectedKubectl shows the warning as kubectl prints it, on
// stderr, with the answer it gives for an empty list.
func TestNotCollectedKubectl(t *testing.T) {
	kubeconfig, _, _ := startRun(t, Options{Bundles: []string{notCollectedBundle(t)}})
	stdout, stderr, code := runKubectl(t, testenv.Kubectl(t), kubeconfig, t.TempDir(), "", "get", "hpa", "-A")
	if code != 0 || stdout != "" || stderr != "Warning: this support bundle did not collect horizontalpodautoscalers.autoscaling: an empty answer does not mean the cluster had none\nNo resources found\n" {
		t.Errorf("kubectl get hpa -A: exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, stderr, _ = runKubectl(t, testenv.Kubectl(t), kubeconfig, t.TempDir(), "", "get", "cm", "-n", "team-a")
	if !strings.HasPrefix(stderr, "Warning: this support bundle did not collect configmaps in namespace team-a: ") {
		t.Errorf("kubectl get cm -n team-a:\n%s", stderr)
	}
}
