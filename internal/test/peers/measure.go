package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubectlAccept is the Accept header of `kubectl get` (kubectl 1.33).
const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// kubectlChunk is kubectl's default --chunk-size.
const kubectlChunk = 500

// side is one of the two servers measured.
type side struct {
	name       string
	kubeconfig string
	cfg        *rest.Config
	client     *http.Client
	pid        int
	// home is kubectl's HOME, which holds its discovery cache.
	home string
}

func newSide(name, kubeconfig, home string, pid int) (*side, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	s := &side{name: name, kubeconfig: kubeconfig, cfg: cfg, pid: pid, home: home}
	if s.client, err = s.newClient(benchUserAgent); err != nil {
		return nil, err
	}
	return s, os.MkdirAll(home, 0o755)
}

// benchUserAgent is the measuring client's User-Agent unless a figure
// says it sends kubectl's: set, so that the floor answers each request
// with the bytes recorded for the same User-Agent.
const benchUserAgent = "bundlectl-bench-peers"

// kubectlUserAgent is the User-Agent kubectl sends (client-go's
// DefaultUserAgent for the kubectl binary): bundlectl leaves managedFields
// out of the row metadata of kubectl's Tables, and tells kubectl by it.
func kubectlUserAgent(gitVersion, gitCommit, platform string) string {
	version, _, _ := strings.Cut(gitVersion, "-")
	if version == "" {
		version = "unknown"
	}
	if len(gitCommit) > 7 {
		gitCommit = gitCommit[:7]
	}
	if gitCommit == "" {
		gitCommit = "unknown"
	}
	if platform == "" {
		platform = runtime.GOOS + "/" + runtime.GOARCH
	}
	return fmt.Sprintf("kubectl/%s (%s) kubernetes/%s", version, platform, gitCommit)
}

// newClient is an HTTP client on a connection of its own, with the
// transport client-go builds for kubectl: TLS from the kubeconfig, HTTP/2,
// gzip accepted and decoded, the bearer token, and userAgent.
func (s *side) newClient(userAgent string) (*http.Client, error) {
	cfg := rest.CopyConfig(s.cfg)
	cfg.UserAgent = userAgent
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	t := utilnet.SetTransportDefaults(&http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		TLSHandshakeTimeout: 10 * time.Second,
		TLSClientConfig:     tlsConfig,
		MaxIdleConnsPerHost: 25,
	})
	rt, err := rest.HTTPWrappersForConfig(cfg, t)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: rt, Timeout: 5 * time.Minute}, nil
}

// get fetches a path with an Accept header and returns the decoded body.
func (s *side) get(ctx context.Context, c *http.Client, path, accept string) ([]byte, error) {
	body, _, err := s.fetch(ctx, c, path, http.Header{"Accept": {accept}})
	return body, err
}

// fetch GETs a path with the given request headers and returns the body
// and the response headers of a 200. A request that sets Accept-Encoding
// itself gets the body as it was on the wire: the transport decodes gzip
// only when it asked for it.
func (s *side) fetch(ctx context.Context, c *http.Client, path string, header http.Header) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(s.cfg.Host, "/")+path, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header = header
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: GET %s: %w", s.name, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: GET %s: %w", s.name, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s: GET %s: %s: %.300s", s.name, path, resp.Status, body)
	}
	return body, resp.Header, nil
}

// timed runs f and returns its wall time in seconds.
func timed(f func() error) (float64, error) {
	start := time.Now()
	err := f()
	return time.Since(start).Seconds(), err
}

// listHead is the start of a list or Table: what a chunked client reads
// to go on.
type listHead struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
}

// continueOf reads metadata.continue without decoding the rows: both
// servers write kind, apiVersion and metadata first.
func continueOf(body []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("not a JSON object: %v", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		if t == "metadata" {
			var h listHead
			if err := dec.Decode(&h.Metadata); err != nil {
				return "", err
			}
			return h.Metadata.Continue, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", errors.New("no metadata")
}

// chunked lists path page by page as kubectl does, and returns the pages.
func (s *side) chunked(ctx context.Context, path, accept string, limit int) (int, error) {
	cont := ""
	for pages := 1; ; pages++ {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		body, err := s.get(ctx, s.client, path+sep+q.Encode(), accept)
		if err != nil {
			return pages, err
		}
		if cont, err = continueOf(body); err != nil {
			return pages, fmt.Errorf("%s: %s: %w", s.name, path, err)
		}
		if cont == "" {
			return pages, nil
		}
	}
}

// tableRows counts the rows of a Table and returns the first cells'
// names, for the sanity checks.
func tableRows(body []byte) (int, error) {
	var t struct {
		Kind string            `json:"kind"`
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return 0, err
	}
	if t.Kind != "Table" {
		return 0, fmt.Errorf("kind %q, not Table", t.Kind)
	}
	return len(t.Rows), nil
}

// concurrent runs n Table LISTs at once, each on a connection of its own
// (n clients, as n users would be), and returns the wall time of all.
func (s *side) concurrent(ctx context.Context, clients []*http.Client, path string) (float64, error) {
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	start := time.Now()
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.get(ctx, c, path, kubectlAccept)
		}()
	}
	wg.Wait()
	return time.Since(start).Seconds(), errors.Join(errs...)
}

// kubectl runs the real kubectl against the side with its own HOME, so
// its discovery cache is the side's and stays warm between runs.
func (s *side) kubectl(ctx context.Context, kubectl string, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", s.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+s.home, "KUBECONFIG="+s.kubeconfig)
	cmd.Stdout = stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: kubectl %s: %w: %s", s.name, strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// procStatus reads a field of /proc/<pid>/status in kB, as MB.
func procStatus(pid int, field string) (float64, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb * 1024 / 1e6, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// childPID finds a child process of this one by its command name: the
// local provider runs kube-apiserver and etcd as direct children.
func childPID(comm string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(data)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if s[open+1:close] == comm && len(fields) > 1 && fields[1] == self {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no child process %q", comm)
}

// cpuSeconds is the CPU time (user and system) a process has used.
func cpuSeconds(pid int) float64 {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	// utime and stime are fields 14 and 15 of stat, in clock ticks
	// (USER_HZ, 100 on Linux).
	ut, _ := strconv.ParseFloat(fields[11], 64)
	st, _ := strconv.ParseFloat(fields[12], 64)
	return (ut + st) / 100
}
