package transform_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/serve"
	"github.com/bundlectl/bundlectl/transform"
)

// explainCRDs are two CRDs of one group (the server merges them into one
// document per group version), one with two versions, with descriptions,
// nested fields, subresources and a selectable field.
const explainCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.explain.example.com
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wdg]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    selectableFields: [{jsonPath: .spec.color}]
    schema:
      openAPIV3Schema:
        description: A Widget is a thing the explain test explains.
        type: object
        properties:
          spec:
            description: WidgetSpec is what the widget should be.
            type: object
            required: [color]
            properties:
              color: {description: The color of the widget., type: string, enum: [red, blue]}
              replicas: {description: How many widgets., type: integer, default: 1}
              parts:
                description: The parts the widget is made of.
                type: array
                items:
                  type: object
                  properties:
                    name: {description: The part's name., type: string}
                    weight: {description: The part's weight in grams., type: number}
          status:
            description: WidgetStatus is what the widget is.
            type: object
            properties:
              replicas: {type: integer}
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.explain.example.com
spec:
  group: explain.example.com
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            description: GadgetSpec says what the gadget does.
            type: object
            properties:
              purpose: {type: string}
`

const explainObjects = `apiVersion: v1
kind: Namespace
metadata: {name: explain}
---
apiVersion: explain.example.com/v1
kind: Widget
metadata: {name: w1, namespace: explain}
spec: {color: red, parts: [{name: bolt, weight: 2.5}]}
---
apiVersion: explain.example.com/v1
kind: Gadget
metadata: {name: g1}
spec: {purpose: testing}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: explain}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx}]}
`

// explainCommands are what the issue asks to print the same against the
// served bundles as against the live server, and the v2 form of explain.
var explainCommands = [][]string{
	{"explain", "pods.spec.containers"},
	{"explain", "deployment", "--recursive"},
	{"explain", "widgets.spec"},
	{"explain", "widgets", "--api-version=explain.example.com/v1beta1"},
	{"explain", "gadgets.spec"},
	{"explain", "pods.spec.volumes", "--output=plaintext-openapiv2"},
}

type kubectlResult struct {
	stdout, stderr string
	code           int
}

func runKubectl(t *testing.T, bin, kubeconfig, kubeContext, stdin string, args ...string) kubectlResult {
	t.Helper()
	if kubeContext != "" {
		args = append([]string{"--context", kubeContext}, args...)
	}
	cmd := exec.Command(bin, args...)
	// A HOME of its own: no discovery or OpenAPI cache shared between
	// servers or versions.
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return kubectlResult{stdout.String(), stderr.String(), ee.ExitCode()}
	case err != nil:
		t.Fatal(err)
	}
	return kubectlResult{stdout.String(), stderr.String(), 0}
}

// TestExplainMatchesLiveServer: kubectl explain prints the same against a
// collected bundle and against the same bundle made legacy and upgraded
// as against the live server, for every kubectl from 1.27; and the
// upgrade's documents are the live server's, byte for byte.
func TestExplainMatchesLiveServer(t *testing.T) {
	bins := testenv.Kubectls(t)
	c := localtest.Start(t)
	ctx := context.Background()
	anyKubectl := bins["1.33"]
	if anyKubectl == "" {
		for _, b := range bins {
			anyKubectl = b
		}
	}
	apply := func(manifest string) {
		t.Helper()
		if r := runKubectl(t, anyKubectl, c.Kubeconfig, "", manifest, "apply", "-f", "-"); r.code != 0 {
			t.Fatalf("kubectl apply: %s%s", r.stdout, r.stderr)
		}
	}
	apply(explainCRDs)
	if r := runKubectl(t, anyKubectl, c.Kubeconfig, "", "", "wait", "--for=condition=Established", "--timeout=30s", "crd/widgets.explain.example.com", "crd/gadgets.explain.example.com"); r.code != 0 {
		t.Fatalf("kubectl wait: %s%s", r.stdout, r.stderr)
	}
	apply(explainObjects)
	cfg, err := collect.LoadConfig(c.Kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	waitForCRDOpenAPI(t, cfg)

	dir := t.TempDir()
	collected := filepath.Join(dir, "collected")
	sum, err := collect.Run(ctx, collect.Options{Config: cfg, Dest: collected, Namespaces: []string{"default", "explain"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OpenAPIV3Documents == 0 || !sum.OpenAPIV2 {
		t.Fatalf("collected %d documents, v2 %v: %+v", sum.OpenAPIV3Documents, sum.OpenAPIV2, sum.Problems)
	}
	root := filepath.Join(collected, sum.Root)
	legacy := filepath.Join(dir, "legacy", sum.Root)
	stripContract(t, root, legacy)
	upgraded := filepath.Join(dir, "upgraded.tgz")
	up, err := transform.Upgrade(ctx, transform.Options{Source: legacy, Dest: upgraded})
	if err != nil {
		t.Fatal(err)
	}
	if up.OpenAPI != "synthesized" || !up.OpenAPIV2 {
		t.Fatalf("upgrade: openapi %q, v2 %v, problems %+v", up.OpenAPI, up.OpenAPIV2, up.Problems)
	}
	compareDocuments(t, root, upgraded)

	// Served from the folder holding the bundle, so that the context is
	// named "collected".
	kubeconfig := serveBundles(t, collected, upgraded)
	contexts := []string{"collected", "upgraded"}
	versions := make([]string, 0, len(bins))
	for v := range bins {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			for _, args := range explainCommands {
				live := runKubectl(t, bins[v], c.Kubeconfig, "", "", args...)
				if live.code != 0 {
					t.Errorf("live: kubectl %s: exit %d\n%s", strings.Join(args, " "), live.code, live.stderr)
				}
				for _, kc := range contexts {
					served := runKubectl(t, bins[v], kubeconfig, kc, "", args...)
					if served != live {
						t.Errorf("kubectl %s against the %s bundle differs from the live server:\n%s", strings.Join(args, " "), kc, describeDiff(live, served))
					}
				}
			}
			// With the bundle's v2 document, kubectl 1.27 and 1.28
			// validate the object and send it: the write gets the 405.
			for _, kc := range contexts {
				r := runKubectl(t, bins[v], kubeconfig, kc, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: new, namespace: explain}\n", "apply", "-f", "-")
				if r.code != 1 || !strings.Contains(r.stderr, "is not allowed on configmaps") {
					t.Errorf("apply against the %s bundle: exit %d\n%s", kc, r.code, r.stderr)
				}
			}
		})
	}
}

// waitForCRDOpenAPI waits until the server publishes both CRDs in v3 and
// v2: its OpenAPI controllers catch up a moment after the CRDs are
// established.
func waitForCRDOpenAPI(t *testing.T, cfg *rest.Config) {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(p string) string {
		resp, err := hc.Get(strings.TrimSuffix(cfg.Host, "/") + p)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return ""
		}
		return string(body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		v3 := get("/openapi/v3/apis/explain.example.com/v1")
		v2 := get("/openapi/v2")
		if strings.Contains(v3, "Gadget") && strings.Contains(v3, "Widget") && strings.Contains(v2, "com.example.explain.v1.Gadget") && strings.Contains(v2, "com.example.explain.v1beta1.Widget") {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the server does not publish the CRDs' OpenAPI")
}

// stripContract copies a bundle folder without what the contract adds:
// tables and _meta, as a bundle troubleshoot wrote.
func stripContract(t *testing.T, src, dest string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		slash := filepath.ToSlash(rel)
		if d.IsDir() {
			if slash == contract.MetaPath() {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dest, rel), 0o755)
		}
		if strings.HasSuffix(slash, contract.TableSuffix) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dest, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// compareDocuments: the upgrade made the documents the live server
// published (the collected ones), byte for byte, for every group version
// the upgraded discovery advertises.
func compareDocuments(t *testing.T, collected, upgraded string) {
	t.Helper()
	read := func(p string) map[string][]byte {
		b, err := contract.Open(p, contract.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		out := map[string][]byte{}
		err = b.Walk(func(e *contract.Entry) error {
			if c := e.Class.Class; c != contract.ClassOpenAPIV3 && c != contract.ClassOpenAPIV2 {
				return nil
			}
			data, err := e.ReadAll()
			out[e.Rel] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	live, made := read(collected), read(upgraded)
	var names []string
	for rel := range live {
		names = append(names, rel)
	}
	for rel := range made {
		if _, ok := live[rel]; !ok {
			names = append(names, rel)
		}
	}
	sort.Strings(names)
	for _, rel := range names {
		l, m := live[rel], made[rel]
		switch {
		case m == nil:
			t.Errorf("the upgrade made no %s", rel)
		case l == nil:
			t.Errorf("the upgrade made %s, which the live server does not publish", rel)
		case !bytes.Equal(l, m):
			t.Errorf("%s differs from the live server's: %s", rel, firstDifference(l, m))
		}
	}
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	clip := func(s []byte) string { return string(s[max(0, i-120):min(len(s), i+120)]) }
	return fmt.Sprintf("%d and %d bytes, first difference at %d:\nlive:     %s\nupgraded: %s", len(a), len(b), i, clip(a), clip(b))
}

func describeDiff(live, served kubectlResult) string {
	var b strings.Builder
	if live.code != served.code {
		fmt.Fprintf(&b, "exit %d, live %d\n", served.code, live.code)
	}
	for _, s := range []struct{ name, live, served string }{{"stdout", live.stdout, served.stdout}, {"stderr", live.stderr, served.stderr}} {
		if s.live == s.served {
			continue
		}
		ll, sl := strings.Split(s.live, "\n"), strings.Split(s.served, "\n")
		for i := 0; i < max(len(ll), len(sl)); i++ {
			var l, r string
			if i < len(ll) {
				l = ll[i]
			}
			if i < len(sl) {
				r = sl[i]
			}
			if l != r {
				fmt.Fprintf(&b, "%s line %d:\n  live:   %q\n  served: %q\n", s.name, i+1, l, r)
				break
			}
		}
	}
	return b.String()
}

// serveBundles serves the bundles with serve.Run and returns the
// kubeconfig, whose contexts are named after the bundles.
func serveBundles(t *testing.T, bundles ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var out, errOut syncBuffer
	go func() {
		done <- serve.Run(ctx, serve.Options{Bundles: bundles, Out: &out, ErrOut: &errOut, Ready: func(kc string) { ready <- kc }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case kc := <-ready:
		if s := errOut.String(); s != "" {
			t.Logf("serve warnings:\n%s", s)
		}
		return kc
	case err := <-done:
		t.Fatalf("serve: %v\n%s%s", err, out.String(), errOut.String())
	case <-time.After(time.Minute):
		t.Fatal("serve did not start")
	}
	return ""
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
