package serve

import (
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// A request to a deprecated API gets the server's Warning header, which
// kubectl prints; others get none.
func TestDeprecationHeader(t *testing.T) {
	files := servetest.Small()
	d, err := contract.ParseDiscovery(files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	d.Resources["v1"] = append(d.Resources["v1"], metav1.APIResource{Name: "componentstatuses", Kind: "ComponentStatus", Verbs: metav1.Verbs{"get", "list"}})
	if files[contract.DiscoveryPath()], err = d.Marshal(); err != nil {
		t.Fatal(err)
	}
	srv := newHandlerServer(t, load(t, files.WriteDir(t, t.TempDir())))
	r := get(t, srv, "/api/v1/componentstatuses")
	if r.code != http.StatusOK || r.header.Get("Warning") != `299 - "v1 ComponentStatus is deprecated in v1.19+"` {
		t.Errorf("%d, Warning %q", r.code, r.header.Values("Warning"))
	}
	if r := get(t, srv, "/api/v1/nodes"); r.header.Get("Warning") != "" {
		t.Errorf("nodes warn: %q", r.header.Values("Warning"))
	}
}

// kubectl prints the warning of the bundle's own release for a version the
// pinned release no longer has: batch/v1beta1 CronJob on a 1.24 bundle, as
// kube-apiserver v1.24 sent it.
func TestDeprecationWarningKubectl(t *testing.T) {
	bin := testenv.Kubectl(t)
	files := servetest.Small()
	d, err := contract.ParseDiscovery(files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	d.KubernetesVersion = "v1.24.17"
	batch := metav1.GroupVersionForDiscovery{GroupVersion: "batch/v1beta1", Version: "v1beta1"}
	d.Groups = append(d.Groups, metav1.APIGroup{Name: "batch", Versions: []metav1.GroupVersionForDiscovery{batch}, PreferredVersion: batch})
	d.Resources["batch/v1beta1"] = []metav1.APIResource{{Name: "cronjobs", Namespaced: true, Kind: "CronJob", Verbs: metav1.Verbs{"get", "list", "watch"}}}
	if files[contract.DiscoveryPath()], err = d.Marshal(); err != nil {
		t.Fatal(err)
	}
	kubeconfig, _, _ := startRun(t, Options{Bundles: []string{files.WriteDir(t, t.TempDir())}})
	_, stderr, code := runKubectl(t, bin, kubeconfig, t.TempDir(), "", "get", "cronjobs.v1beta1.batch", "-A")
	want := "Warning: batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob\n"
	if code != 0 || !strings.HasPrefix(stderr, want) {
		t.Errorf("kubectl get cronjobs.v1beta1.batch: exit %d, stderr:\n%s\nwant it to start with:\n%s", code, stderr, want)
	}
}
