package collect_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/collect"
)

// proxy stands between the collector and the live server: it can answer
// or delay a request itself, and it records every Table the server sent.
type proxy struct {
	srv    *httptest.Server
	mu     sync.Mutex
	tables map[string][]byte // by request path
}

func isTable(r *http.Request) bool { return strings.Contains(r.Header.Get("Accept"), "as=Table") }

// newProxy forwards to cfg's server; intercept returns true when it has
// answered the request itself.
func newProxy(t *testing.T, cfg *rest.Config, intercept func(w http.ResponseWriter, r *http.Request) bool) (*proxy, *rest.Config) {
	t.Helper()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{tables: map[string][]byte{}}
	rp := &httputil.ReverseProxy{
		Rewrite:        func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:      transport,
		ModifyResponse: p.record,
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if intercept == nil || !intercept(w, r) {
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p, &rest.Config{Host: p.srv.URL}
}

func (p *proxy) record(resp *http.Response) error {
	if !isTable(resp.Request) || resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tables[resp.Request.URL.Path] = body
	return nil
}

func fail(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected failure","code":500}`)
}

func problemsOf(sum *collect.Summary, prefix string) []string {
	var out []string
	for _, p := range sum.Problems {
		if strings.HasPrefix(p.What, prefix) {
			out = append(out, p.What+": "+p.Message)
		}
	}
	return out
}

// TestCollectThroughProxy checks the failsafe paths against the live
// server: a table that fails, tables that straddle a second, a cancelled
// collection and an unreachable server.
func TestCollectThroughProxy(t *testing.T) {
	cfg := startCluster(t)

	t.Run("a table fails, its lists are kept", func(t *testing.T) {
		p, pcfg := newProxy(t, cfg, func(w http.ResponseWriter, r *http.Request) bool {
			if isTable(r) && r.URL.Path == "/api/v1/configmaps" {
				fail(w)
				return true
			}
			return false
		})
		sum, c := run(t, collect.Options{Config: pcfg})
		if got := problemsOf(sum, "table of configmaps v1"); len(got) != 1 || !strings.Contains(got[0], "injected failure") {
			t.Errorf("problems: %v", sum.Problems)
		}
		for _, s := range c.report.Resources {
			if s.Resource == "configmaps" && (s.Lists != 7 || s.Tables != 0 || s.Objects == 0) {
				t.Errorf("configmaps: %d lists, %d tables, %d objects", s.Lists, s.Tables, s.Objects)
			}
		}
		checkRecorded(t, c, p)
	})

	t.Run("a burst straddling a second is retried", func(t *testing.T) {
		var once sync.Once
		_, pcfg := newProxy(t, cfg, func(w http.ResponseWriter, r *http.Request) bool {
			if isTable(r) && r.URL.Path == "/apis/apps/v1/deployments" {
				once.Do(func() { time.Sleep(1100 * time.Millisecond) })
			}
			return false
		})
		sum, _ := run(t, collect.Options{Config: pcfg})
		if sum.TableBursts != 2 || !sum.TablesSameSecond || len(problemsOf(sum, "collection time")) != 0 {
			t.Errorf("%d bursts, same second %v, problems %v", sum.TableBursts, sum.TablesSameSecond, sum.Problems)
		}
	})

	t.Run("a burst too slow for one second is kept and reported", func(t *testing.T) {
		_, pcfg := newProxy(t, cfg, func(w http.ResponseWriter, r *http.Request) bool {
			if isTable(r) && r.URL.Path == "/apis/apps/v1/deployments" {
				time.Sleep(2100 * time.Millisecond)
			}
			return false
		})
		sum, c := run(t, collect.Options{Config: pcfg})
		got := problemsOf(sum, "collection time")
		if sum.TableBursts != 1 || sum.TablesSameSecond || len(got) != 1 || !strings.Contains(got[0], "ages may differ by up to") {
			t.Errorf("%d bursts, same second %v, problems %v", sum.TableBursts, sum.TablesSameSecond, sum.Problems)
		}
		if c.files["cluster-resources/deployments/default.table.json"] == nil {
			t.Error("the late table was not kept")
		}
	})

	t.Run("a cancelled collection leaves nothing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, pcfg := newProxy(t, cfg, func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Query().Get("fieldSelector") != "" {
				cancel() // Ctrl-C while selectable fields are probed
			}
			return false
		})
		dir := t.TempDir()
		_, err := collect.Run(ctx, collect.Options{Config: pcfg, Dest: filepath.Join(dir, "bundle.tgz")})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		checkEmpty(t, dir)
	})

	t.Run("logs are asked for with the kubelet's timestamps", func(t *testing.T) {
		var mu sync.Mutex
		var queries []string
		_, pcfg := newProxy(t, cfg, func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasSuffix(r.URL.Path, "/log") {
				return false
			}
			mu.Lock()
			queries = append(queries, r.URL.Query().Get("container")+" timestamps="+r.URL.Query().Get("timestamps"))
			mu.Unlock()
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "2026-11-28T06:00:00.123456789Z started\n")
			return true
		})
		sum, c := run(t, collect.Options{Config: pcfg})
		if sum.Logs != 3 || len(queries) != 3 {
			t.Fatalf("%d logs collected from %d requests, want 3", sum.Logs, len(queries))
		}
		for _, q := range queries {
			if !strings.HasSuffix(q, " timestamps=true") {
				t.Errorf("log request of %s", q)
			}
		}
		if got := string(c.files["cluster-resources/pods/logs/team-a/web-1/app.log"]); got != "2026-11-28T06:00:00.123456789Z started\n" {
			t.Errorf("app.log holds %q", got)
		}
	})

	t.Run("an unreachable server leaves nothing", func(t *testing.T) {
		dir := t.TempDir()
		_, err := collect.Run(context.Background(), collect.Options{Config: &rest.Config{Host: "http://127.0.0.1:1"}, Dest: filepath.Join(dir, "bundle")})
		if err == nil || !strings.Contains(err.Error(), "cannot reach the server") {
			t.Errorf("error %v", err)
		}
		checkEmpty(t, dir)
	})
}

// checkRecorded: a table listed whole is in the bundle byte for byte as
// the server sent it.
func checkRecorded(t *testing.T, c *collected, p *proxy) {
	t.Helper()
	checked := 0
	for rel, cl := range c.class {
		if cl.Class != contract.ClassTable || cl.Namespaced {
			continue
		}
		var list rawList
		decode(t, rel, c.files[strings.TrimSuffix(rel, contract.TableSuffix)+".json"], &list)
		gv, err := schema.ParseGroupVersion(list.APIVersion)
		if err != nil {
			t.Fatal(err)
		}
		sent := p.tables[listPath(gv, cl.GR.Resource, "")]
		if !bytes.Equal(c.files[rel], sent) {
			t.Errorf("%s is not the table the server sent:\n%s\nsent:\n%s", rel, c.files[rel], sent)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d cluster-scoped tables checked", checked)
	}
}

func checkEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("%s holds %v after a failed collection (%v)", dir, entries, err)
	}
}
