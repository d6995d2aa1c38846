package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/serve"
)

// serveCorpusForTest serves a real bundle of the corpus as `bundlectl
// serve` does; the sbctl folder needs --collected-at, nothing in it tells
// its time.
func serveCorpusForTest(t *testing.T, in string) (kubeconfig, upgraded string) {
	t.Helper()
	o := &serveOptions{address: "127.0.0.1"}
	if fi, err := os.Stat(in); err == nil && fi.IsDir() {
		o.collectedAt = "2022-04-13T00:00:00Z"
	}
	return serveForTest(t, o, in)
}

// TestServeCorpus serves every real bundle of the corpus as `bundlectl
// serve` does (legacy bundles are upgraded on load; the sbctl folder needs
// --collected-at, nothing in it tells its time) and checks, with the real
// kubectl, that for every resource file the bundle holds `kubectl get`
// shows the kind's real columns, those of its table in the upgraded
// bundle (not only NAME and AGE), and every object of every file, in its
// namespace.
func TestServeCorpus(t *testing.T) {
	corpus := contracttest.CorpusDir(t)
	kubectl := testenv.Kubectl(t)
	for _, rb := range contracttest.RealBundles {
		t.Run(rb.Name, func(t *testing.T) {
			t.Parallel()
			in := filepath.Join(corpus, rb.Path)
			kubeconfig, upgraded := serveCorpusForTest(t, in)
			want := servedKinds(t, upgraded)
			if len(want) == 0 {
				t.Fatal("no resource with objects in the upgraded bundle")
			}
			var names []string
			for _, k := range want {
				names = append(names, k.name)
			}
			stdout, stderr, err := runKubectl(t, kubectl, kubeconfig, "get", strings.Join(names, ","), "-A")
			if err != nil || !onlyDeprecationWarnings(stderr) {
				t.Fatalf("kubectl get %s -A: %v\n%s", strings.Join(names, ","), err, stderr)
			}
			blocks := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n\n")
			if len(blocks) != len(want) {
				t.Fatalf("%d tables for %d resources:\n%s", len(blocks), len(want), stdout)
			}
			objects := 0
			for i, k := range want {
				checkTable(t, k, blocks[i])
				objects += len(k.objects)
			}
			t.Logf("%d objects of %d kinds, each with its table's columns: %s", objects, len(want), strings.Join(names, " "))
		})
	}
}

// serveForTest runs what `bundlectl serve` runs until the test ends, and
// returns the kubeconfig and the bundle served: the upgraded copy for a
// legacy bundle, kept until the test ends.
func serveForTest(t *testing.T, o *serveOptions, bundle string) (kubeconfig, served string) {
	t.Helper()
	var out bytes.Buffer
	o.IOStreams = IOStreams{Out: &out, ErrOut: &out}
	if err := o.Complete([]string{bundle}); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	so := o.serve
	served = bundle
	upgrade := so.Upgrade
	// The upgraded copy is written where it outlives the load (serve
	// removes its own as soon as the bundle is loaded), for the test to
	// read.
	keep := t.TempDir()
	so.Upgrade = func(ctx context.Context, b *contract.Bundle, _ string) (string, []contract.Problem, func(), error) {
		path, problems, _, err := upgrade(ctx, b, keep)
		served = path
		return path, problems, func() {}, err
	}
	ready := make(chan string, 1)
	so.Ready = func(k string) { ready <- k }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve.Run(ctx, so) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case kubeconfig = <-ready:
	case err := <-done:
		done <- err
		t.Fatalf("serve: %v\n%s", err, out.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start:\n%s", out.String())
	}
	if strings.Contains(out.String(), "warning") {
		t.Errorf("serve warned:\n%s", out.String())
	}
	return kubeconfig, served
}

// servedKind is what a bundle holds of one group resource: the kubectl
// name, the headers of its table, and its objects by namespace.
type servedKind struct {
	name      string
	gr        schema.GroupResource
	headers   []string
	perNS     map[string]int
	objects   map[string]bool
	listFiles []string
}

// servedKinds reads, from an upgraded bundle, every group resource that
// holds objects, with the column names of its stored table (those of
// priority 0, uppercased, as kubectl prints them), in kubectl name order.
func servedKinds(t *testing.T, bundle string) []*servedKind {
	t.Helper()
	b, err := contract.Open(bundle, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	kinds := map[schema.GroupResource]*servedKind{}
	listGR := map[contract.ListKey]schema.GroupResource{}
	tables := map[contract.ListKey][]string{}
	err = b.Walk(func(e *contract.Entry) error {
		c := e.Class
		if !b.IsListOfRecord(e) && !(c.Class == contract.ClassTable && e.IsRegular()) {
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			return err
		}
		if c.Class == contract.ClassTable {
			var table metav1.Table
			if err := json.Unmarshal(data, &table); err != nil {
				return fmt.Errorf("%s: %w", e.Rel, err)
			}
			var headers []string
			for _, col := range table.ColumnDefinitions {
				if col.Priority == 0 {
					headers = append(headers, strings.ToUpper(col.Name))
				}
			}
			tables[c.Key] = headers
			return nil
		}
		l, err := contract.DecodeList(data, c.Format)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Rel, err)
		}
		gr := contract.ListGVR(c, l).GroupResource()
		k := kinds[gr]
		if k == nil {
			k = &servedKind{name: gr.Resource, gr: gr, perNS: map[string]int{}, objects: map[string]bool{}}
			if gr.Group != "" {
				k.name = gr.String()
			}
			kinds[gr] = k
		}
		k.listFiles = append(k.listFiles, e.Rel)
		listGR[c.Key] = gr
		for _, it := range l.Items {
			m, err := contract.ItemMeta(it)
			if err != nil {
				return fmt.Errorf("%s: %w", e.Rel, err)
			}
			ns := m.Metadata.Namespace
			if ns == "" {
				ns = c.Key.Namespace
			}
			if key := ns + "/" + m.Metadata.Name; !k.objects[key] {
				k.objects[key] = true
				k.perNS[ns]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key, headers := range tables {
		if gr, ok := listGR[key]; ok && kinds[gr].headers == nil {
			kinds[gr].headers = headers
		}
	}
	var out []*servedKind
	for _, k := range kinds {
		if len(k.objects) == 0 {
			continue
		}
		if k.headers == nil {
			t.Errorf("%s: no table in the upgraded bundle for %v", k.gr, k.listFiles)
			continue
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

var columnGap = regexp.MustCompile(`\s{2,}`)

// checkTable compares one table of `kubectl get a,b,c -A` with what the
// bundle holds: the headers of the stored table (kubectl adds NAMESPACE)
// and one row per object, in its namespace.
func checkTable(t *testing.T, k *servedKind, block string) {
	t.Helper()
	lines := strings.Split(block, "\n")
	header := lines[0]
	got := columnGap.Split(strings.TrimSpace(header), -1)
	if len(got) > 0 && got[0] == "NAMESPACE" {
		got = got[1:]
	}
	if strings.Join(got, "|") != strings.Join(k.headers, "|") {
		t.Errorf("%s (%v): kubectl shows columns %q, the table in the upgraded bundle has %q\n%s", k.name, k.listFiles, got, k.headers, block)
		return
	}
	// The NAMESPACE column ends where the next header starts.
	nameAt := 0
	if rest, ok := strings.CutPrefix(header, "NAMESPACE"); ok {
		nameAt = len(header) - len(strings.TrimLeft(rest, " "))
	}
	perNS := map[string]int{}
	for _, row := range lines[1:] {
		ns := ""
		if nameAt > 0 && len(row) >= nameAt {
			ns = strings.TrimSpace(row[:nameAt])
		}
		perNS[ns]++
	}
	if fmt.Sprint(perNS) != fmt.Sprint(k.perNS) {
		t.Errorf("%s: rows by namespace %v, the bundle holds %v\n%s", k.name, perNS, k.perNS, block)
	}
}

// onlyDeprecationWarnings reports whether kubectl's stderr holds nothing
// but the warnings kube-apiserver sends for deprecated API versions, which
// serve repeats at the bundle's version, and serve's warnings of what the
// bundle did not collect (the sbctl fixture holds ConfigMaps of three of
// its nine namespaces; serve_not_collected.txtar checks them).
func onlyDeprecationWarnings(stderr string) bool {
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line != "" && !(strings.HasPrefix(line, "Warning: ") && strings.Contains(line, " is deprecated in v")) &&
			!strings.HasPrefix(line, "Warning: this support bundle did not collect ") {
			return false
		}
	}
	return true
}

// runKubectl runs kubectl against a served bundle, with a HOME of its own
// (no cache or config of the machine's), and returns what it printed.
func runKubectl(t *testing.T, kubectl, kubeconfig string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(kubectl, args...)
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}
