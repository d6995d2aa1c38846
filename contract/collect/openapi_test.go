package collect_test

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/collect"
)

// checkOpenAPI: every document the server's /openapi/v3 index lists is in
// the bundle, byte for byte (its hash is the index's), the custom
// resources' group version too, and /openapi/v2 is stored as the server
// sends it in JSON.
func checkOpenAPI(t *testing.T, c *collected, srv *server, sum *collect.Summary) {
	t.Helper()
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	decode(t, "/openapi/v3", srv.get("/openapi/v3", nil, "application/json"), &index)
	if _, ok := index.Paths["apis/example.com/v1"]; !ok {
		t.Error("the server lists no document for the CRD's group version")
	}
	for p, ref := range index.Paths {
		data, ok := c.files[contract.OpenAPIV3Path(p)]
		if !ok {
			t.Errorf("%s is not in the bundle", contract.OpenAPIV3Path(p))
			continue
		}
		u, err := url.Parse(ref.ServerRelativeURL)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%X", sha512.Sum512(data)); got != u.Query().Get("hash") {
			t.Errorf("%s: hash %s, the server's index says %s", p, got, u.Query().Get("hash"))
		}
	}
	n := 0
	for rel := range c.files {
		if c.class[rel].Class == contract.ClassOpenAPIV3 {
			n++
		}
	}
	if n != len(index.Paths) || sum.OpenAPIV3Documents != n || !sum.OpenAPIV2 {
		t.Errorf("%d documents in the bundle, %d in the summary (v2 %v), %d in the index", n, sum.OpenAPIV3Documents, sum.OpenAPIV2, len(index.Paths))
	}
	v2 := c.files[contract.OpenAPIV2Path()]
	if !json.Valid(v2) || !bytes.Equal(v2, srv.get("/openapi/v2", nil, "application/json")) {
		t.Errorf("%s differs from the server's /openapi/v2 (%d bytes)", contract.OpenAPIV2Path(), len(v2))
	}
}
