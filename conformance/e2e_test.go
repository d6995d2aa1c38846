package conformance

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// e2eChecks is a small matrix: enough to run kubectl's table, wide,
// describe and raw table paths against both sides in a few seconds.
const e2eChecks = `checks:
- name: get
  for: resources
  where: {resources: [pods, nodes, deployments.apps]}
  kubectl: [get, "{{.Resource}}", "{{.NamespaceFlag}}", -o, wide]
  normalize: [ages]
- name: describe
  for: objects
  where: {resources: [pods], fixtures: true, perResource: 2}
  kubectl: [describe, "{{.Resource}}", "{{.Name}}", "{{.NamespaceFlag}}"]
  normalize: [clientAges]
- name: raw-table
  for: resources
  where: {resources: [pods]}
  request: {path: "{{.CollectionPath}}", accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}
  normalize: [ages, resourceVersion]
`

const e2eBaseline = `divergences:
- case: converted/certificates.k8s.io.v1beta1.podcertificaterequests/*
  output: items
  reason: v1 PodCertificateRequests do not carry the fields v1beta1 adds (baseline.yaml)
`

func runLocalGate(t *testing.T, binDir string, mutate func(string) error) *Result {
	t.Helper()
	baseline := filepath.Join(t.TempDir(), "baseline.yaml")
	// Gate A compares every table and conversion whatever the checks: the
	// one conversion known to differ (see baseline.yaml) is accepted.
	if err := os.WriteFile(baseline, []byte(e2eBaseline), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{
		Provider:     localapiserver.New(localapiserver.Options{BinDir: binDir, NoBuild: true}),
		Kubectl:      testenv.LookPath(t, "kubectl"),
		Baseline:     baseline,
		Prefix:       "e2e",
		WorkDir:      t.TempDir(),
		Log:          &log,
		checksData:   []byte(e2eChecks),
		mutateServed: mutate,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	for _, s := range res.Steps {
		t.Logf("%s: %s", s.Name, s.Duration.Round(time.Millisecond))
	}
	return res
}

func report(res *Result) string {
	var b strings.Builder
	res.WriteText(&b)
	return b.String()
}

// The --local gate end to end, twice: on the bundle as collected it holds
// (with this small check set, whose cases exercise no known divergence),
// and with one cell of a served table changed it fails, on that cell,
// and on nothing else.
func TestLocalGate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local kube-apiserver twice")
	}
	binDir := localtest.RequireBinaries(t)

	res := runLocalGate(t, binDir, nil)
	if !res.Passed() {
		t.Fatalf("the gate failed on an untouched bundle:\n%s", report(res))
	}
	if len(res.Tables) < 50 {
		t.Errorf("Gate A compared %d tables", len(res.Tables))
	}
	if len(res.Cases) < 6 {
		t.Errorf("Gate B ran %d cases", len(res.Cases))
	}
	if res.Normalized()[NormAges] == 0 {
		t.Error("no age was normalized: the gate cannot have compared tables of live ages")
	}
	if res.LiveMinor != contract.PinnedMinor || res.TablesMinor != contract.PinnedMinor {
		t.Errorf("minors: live cluster %q, tables rendered for %q; want %s for both", res.LiveMinor, res.TablesMinor, contract.PinnedMinor)
	}

	// A served table cell changed: Gate B sees it where kubectl prints
	// that table, Gate A (which ran on the bundle as collected) does not.
	var tampered []string
	res = runLocalGate(t, binDir, func(dir string) error {
		files, err := filepath.Glob(filepath.Join(dir, "*", "cluster-resources", "pods", "*.table.json"))
		if err != nil {
			return err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if i := bytes.Index(data, []byte(`"Running"`)); i >= 0 {
				data = append(data[:i:i], append([]byte(`"Tampered"`), data[i+len(`"Running"`):]...)...)
				tampered = append(tampered, f)
				if err := os.WriteFile(f, data, 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if len(tampered) == 0 {
		t.Fatal("no pod table with a Running pod to tamper with")
	}
	if res.Passed() {
		t.Fatalf("the gate passed a served table whose cell was changed:\n%s", report(res))
	}
	failed := map[string]bool{}
	for _, c := range res.all() {
		if c.Failed() {
			failed[c.Case.ID] = true
			for _, d := range c.Divergences {
				if !strings.Contains(d.Diff, "Tampered") {
					t.Errorf("%s: a divergence that is not the tampered cell:\n%s", c.Case.ID, d.Diff)
				}
			}
		}
	}
	for _, id := range []string{"get/pods", "raw-table/pods"} {
		if !failed[id] {
			t.Errorf("%s did not fail; failed: %v", id, failed)
		}
	}
	for id := range failed {
		if strings.HasPrefix(id, tableCheck+"/") || strings.HasPrefix(id, "get/nodes") {
			t.Errorf("%s failed", id)
		}
	}
}
