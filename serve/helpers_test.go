package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

const testToken = "test-token"

// smallDir is servetest.Small written once for the whole test binary.
var smallDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "serve-test-*")
	if err != nil {
		panic(err)
	}
	if smallDir, err = servetest.Small().Write(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func smallBundle(testing.TB) string { return smallDir }

// load opens and loads a bundle.
func load(t testing.TB, path string) *index.Index {
	t.Helper()
	b, err := contract.Open(path, contract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.Load(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// testServer serves the small bundle with a token over httptest.
func testServer(t testing.TB) *httptest.Server {
	t.Helper()
	return newHandlerServer(t, load(t, smallBundle(t)))
}

// newHandlerServer serves an index with a token over httptest.
func newHandlerServer(t testing.TB, x *index.Index) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(NewHandler(x, HandlerOptions{Token: testToken, Stop: stop}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv
}

type response struct {
	code   int
	header http.Header
	body   string
}

// do sends a request with the token; headers are "Name: value" pairs.
func do(t testing.TB, srv *httptest.Server, method, path string, headers ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for _, h := range headers {
		if h == "" {
			continue
		}
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: string(data)}
}

func get(t testing.TB, srv *httptest.Server, path string, headers ...string) response {
	t.Helper()
	return do(t, srv, http.MethodGet, path, headers...)
}

// decode unmarshals a response body, failing the test on invalid JSON.
func decode(t testing.TB, r response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("invalid JSON (%d): %v\n%s", r.code, err, r.body)
	}
	return m
}

// names returns metadata.name of every item of a list.
func names(t testing.TB, list map[string]any) []string {
	t.Helper()
	var out []string
	items, _ := list["items"].([]any)
	for _, it := range items {
		m := it.(map[string]any)["metadata"].(map[string]any)
		n := m["name"].(string)
		if ns, ok := m["namespace"].(string); ok {
			n = ns + "/" + n
		}
		out = append(out, n)
	}
	return out
}

// rowNames returns the namespace/name of each Table row's object.
func rowNames(t testing.TB, table map[string]any) []string {
	t.Helper()
	var out []string
	rows, _ := table["rows"].([]any)
	for _, r := range rows {
		obj := r.(map[string]any)["object"].(map[string]any)
		m := obj["metadata"].(map[string]any)
		n := m["name"].(string)
		if ns, ok := m["namespace"].(string); ok {
			n = ns + "/" + n
		}
		out = append(out, n)
	}
	return out
}

func wantStatus(t testing.TB, r response, code int, reason, message string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("code %d, want %d: %s", r.code, code, r.body)
	}
	s := decode(t, r)
	if s["kind"] != "Status" || s["apiVersion"] != "v1" || s["reason"] != reason || int(s["code"].(float64)) != code {
		t.Fatalf("status %v, want reason %s code %d", s, reason, code)
	}
	if message != "" && s["message"] != message {
		t.Fatalf("message %q, want %q", s["message"], message)
	}
}

const tableAccept = "Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
