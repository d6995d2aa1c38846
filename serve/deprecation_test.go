package serve

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/servetest"
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
