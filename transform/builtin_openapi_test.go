package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// fetchLiveOpenAPI reads every document of a server's /openapi/v3 index
// and /openapi/v2, as the collector does.
func fetchLiveOpenAPI(t *testing.T, kubeconfig string, withV3 bool) *builtinOpenAPI {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(p string) []byte {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+p, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", p, resp.StatusCode, err)
		}
		return body
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if withV3 {
		if err := json.Unmarshal(get("/openapi/v3"), &index); err != nil {
			t.Fatal(err)
		}
	}
	out := &builtinOpenAPI{v3: map[string][]byte{}, v2: get("/openapi/v2")}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for p, ref := range index.Paths {
		u, err := url.Parse(ref.ServerRelativeURL)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			body := get(u.RequestURI())
			mu.Lock()
			out.v3[p] = body
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// The built-in OpenAPI documents are what a kube-apiserver of each
// captured release, serving every API version with internal/localapiserver's
// gates, publishes: compare them with one.
func TestBuiltinOpenAPIIsCurrent(t *testing.T) {
	builtinTestReleases(t, func(t *testing.T, r localapiserver.Release) {
		_, c := localtest.StartWith(t, localapiserver.Options{KubeVersion: r.Version})
		// Before 1.24 /openapi/v3 was off (a 404): v2 alone is captured.
		live := fetchLiveOpenAPI(t, c.Kubeconfig, r.Minor >= openAPIV3Since)
		file := builtinOpenAPIFile(r.Minor)
		if testenv.Update() {
			data, err := encodeBuiltinOpenAPI(live)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := loadBuiltinOpenAPI(r.Minor)
		if err != nil {
			t.Fatal(err)
		}
		hint := "go test ./transform -run " + t.Name() + " -update rewrites " + file
		var paths []string
		for p := range live.v3 {
			paths = append(paths, p)
		}
		for p := range want.v3 {
			if _, ok := live.v3[p]; !ok {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			switch l, w := live.v3[p], want.v3[p]; {
			case w == nil:
				t.Errorf("/openapi/v3/%s is served but not in %s (%s)", p, file, hint)
			case l == nil:
				t.Errorf("/openapi/v3/%s is in %s but not served (%s)", p, file, hint)
			case !bytes.Equal(l, w):
				t.Errorf("/openapi/v3/%s differs from the live server's (%s)", p, hint)
			}
		}
		if !bytes.Equal(live.v2, want.v2) {
			t.Errorf("/openapi/v2 differs from the live server's (%s)", hint)
		}
	})
}
