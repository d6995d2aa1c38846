package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Accept headers of the requests the collector makes.
const (
	acceptJSON  = "application/json"
	acceptTable = "application/json;as=Table;v=v1;g=meta.k8s.io"
)

// LoadConfig reads a kubeconfig as kubectl does: the explicit file, else
// $KUBECONFIG, else ~/.kube/config, with context choosing the context ("" for
// the current one).
func LoadConfig(kubeconfig, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	return cfg, nil
}

// client makes raw requests: the collector keeps response bodies byte for
// byte and needs each response's Date header, which typed clients hide.
// It has no client-side rate limit; concurrency is bounded by its callers.
type client struct {
	http *http.Client
	base *url.URL
}

func newClient(cfg *rest.Config) (*client, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the HTTP client for %s: %w", cfg.Host, err)
	}
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", cfg.Host, err)
	}
	return &client{http: hc, base: base}, nil
}

// response is one answer of the server, whatever its status.
type response struct {
	status int
	body   []byte
	date   time.Time // zero when the server sent no Date
}

// get sends one GET. The error is for requests that got no answer; an
// answer with an error status is returned for the caller to judge.
func (c *client) get(ctx context.Context, p string, query url.Values, accept string) (*response, error) {
	u := *c.base
	u.Path = path.Join("/", c.base.Path, p)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", p, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the response: %w", p, err)
	}
	r := &response{status: resp.StatusCode, body: body}
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		r.date = d.UTC()
	}
	return r, nil
}

// getOK is get for requests that must succeed: any status but 200 is an
// error carrying the server's message.
func (c *client) getOK(ctx context.Context, p string, query url.Values, accept string) (*response, error) {
	r, err := c.get(ctx, p, query, accept)
	if err != nil {
		return nil, err
	}
	if r.status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", p, statusMessage(r))
	}
	return r, nil
}

// statusMessage is the message of a metav1.Status body, else the body.
func statusMessage(r *response) string {
	var st metav1.Status
	if json.Unmarshal(r.body, &st) == nil && st.Message != "" {
		return fmt.Sprintf("%d %s", r.status, st.Message)
	}
	body := strings.TrimSpace(string(r.body))
	if len(body) > 200 {
		body = body[:200] + "…"
	}
	return fmt.Sprintf("%d %s", r.status, body)
}

// listPath is the LIST endpoint of a resource, in one namespace or, with
// ns "", across all namespaces (or cluster-scoped).
func listPath(gvr schema.GroupVersionResource, ns string) string {
	p := "/apis/" + gvr.Group + "/" + gvr.Version
	if gvr.Group == "" {
		p = "/api/" + gvr.Version
	}
	if ns != "" {
		p += "/namespaces/" + ns
	}
	return p + "/" + gvr.Resource
}
