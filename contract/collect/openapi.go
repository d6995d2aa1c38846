package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/bundlectl/bundlectl/contract"
)

// openAPIConcurrency bounds the documents fetched at once: a few dozen
// documents of up to a few MB each.
const openAPIConcurrency = 8

// openAPIIndex is the /openapi/v3 index (k8s.io/kube-openapi handler3).
type openAPIIndex struct {
	Paths map[string]struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

// addOpenAPI stores what the server publishes for `kubectl explain` and
// for clients' validation: every document the /openapi/v3 index lists,
// byte for byte, and /openapi/v2 as JSON. A server without them (or one
// that fails) is a problem, never an error: the bundle is complete
// without OpenAPI.
func (b *bundle) addOpenAPI(ctx context.Context) {
	docs, err := b.col.client.fetchOpenAPIV3(ctx, b.col.problems)
	if err != nil {
		b.col.problems.add("openapi v3", err)
	}
	for p, data := range docs {
		b.files[contract.OpenAPIV3Path(p)] = data
	}
	b.summary.OpenAPIV3Documents = len(docs)
	r, err := b.col.client.getOK(ctx, "/openapi/v2", nil, acceptJSON)
	if err == nil && !json.Valid(r.body) {
		err = errors.New("GET /openapi/v2: the answer is not JSON")
	}
	if err != nil {
		b.col.problems.add("openapi v2", err)
		return
	}
	b.files[contract.OpenAPIV2Path()] = r.body
	b.summary.OpenAPIV2 = true
}

// fetchOpenAPIV3 reads the index and then every document it lists, at the
// URL the index gives (which carries the document's hash).
func (c *client) fetchOpenAPIV3(ctx context.Context, problems *problems) (map[string][]byte, error) {
	r, err := c.getOK(ctx, "/openapi/v3", nil, acceptJSON)
	if err != nil {
		return nil, err
	}
	var index openAPIIndex
	if err := json.Unmarshal(r.body, &index); err != nil {
		return nil, fmt.Errorf("GET /openapi/v3: %w", err)
	}
	paths := make([]string, 0, len(index.Paths))
	for p := range index.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := map[string][]byte{}
	var mu sync.Mutex
	sem := make(chan struct{}, openAPIConcurrency)
	var wg sync.WaitGroup
	for _, p := range paths {
		if !contract.ValidOpenAPIV3DocPath(p) {
			problems.add("openapi v3 "+p, errors.New("the index lists a path that cannot be a file name; not collected"))
			continue
		}
		u, err := url.Parse(index.Paths[p].ServerRelativeURL)
		if err != nil || u.Path != "/openapi/v3/"+p {
			// Only the server's own documents, whatever the index says.
			u = &url.URL{Path: "/openapi/v3/" + p}
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r, err := c.getOK(ctx, u.Path, u.Query(), acceptJSON)
			if err == nil && !json.Valid(r.body) {
				err = fmt.Errorf("GET %s: the answer is not JSON", u.Path)
			}
			if err != nil {
				problems.add("openapi v3 "+p, err)
				return
			}
			mu.Lock()
			out[p] = r.body
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// openAPISummary is the summary's line about OpenAPI.
func (s *Summary) openAPISummary() string {
	v2 := "and /openapi/v2"
	if !s.OpenAPIV2 {
		v2 = "without /openapi/v2"
	}
	return strings.TrimSpace(fmt.Sprintf("OpenAPI: %d /openapi/v3 documents %s.", s.OpenAPIV3Documents, v2))
}
