package contract_test

import (
	"time"

	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// count maps the summary rows to the counts the corpus table names.
func count(rep *contract.Report) map[string]int {
	got := map[string]int{}
	for _, r := range rep.Resources {
		key := ""
		switch {
		case r.Custom:
			key = "crs"
		case r.Group == "" && r.Resource == "pods":
			key = "pods"
		case r.Group == "" && r.Resource == "events":
			key = "events"
		case r.Group == "apps" && r.Resource == "deployments":
			key = "deployments"
		case r.Group == "apps" && r.Resource == "replicasets":
			key = "replicasets"
		case r.Group == "" && r.Resource == "nodes":
			key = "nodes"
		case r.Group == "" && r.Resource == "namespaces":
			key = "namespaces"
		case r.Resource == "customresourcedefinitions":
			key = "crds"
		default:
			continue
		}
		got[key] += r.Objects
	}
	return got
}

func TestInspectRealBundles(t *testing.T) {
	dir := contracttest.CorpusDir(t)
	for _, rb := range contracttest.RealBundles {
		t.Run(rb.Name, func(t *testing.T) {
			b, err := contract.Open(filepath.Join(dir, rb.Path), contract.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			rep, err := contract.Inspect(b)
			if err != nil {
				t.Fatal(err)
			}
			if want, _, _ := contract.TableMinor(rb.KubernetesVersion); rep.TablesMinor != want || want == "" {
				t.Errorf("tables minor = %q, want %q", rep.TablesMinor, want)
			}
			if rep.KubernetesVersion != rb.KubernetesVersion {
				t.Errorf("Kubernetes version = %q, want %q", rep.KubernetesVersion, rb.KubernetesVersion)
			}
			got := count(rep)
			for k, want := range rb.Counts {
				if got[k] != want {
					t.Errorf("%s: %d objects, want %d", k, got[k], want)
				}
			}
			if len(rep.Problems) != 0 {
				t.Errorf("problems: %+v", rep.Problems)
			}
			if rep.Schema != "legacy" {
				t.Errorf("schema = %q, want legacy", rep.Schema)
			}
			if rep.CollectionTime == nil || rep.CollectedAt.Format(time.RFC3339) != rb.CollectedAt || string(rep.CollectedAtSource) != rb.TimeSource {
				t.Errorf("collection time %v, want %s from %s", rep.CollectionTime, rb.CollectedAt, rb.TimeSource)
			}
		})
	}
}

// The quirks that matter for serving: where each layout puts its objects.
func TestInspectLegacyQuirks(t *testing.T) {
	dir := contracttest.CorpusDir(t)
	open := func(name string) *contract.Report {
		t.Helper()
		for _, rb := range contracttest.RealBundles {
			if rb.Name == name {
				b, err := contract.Open(filepath.Join(dir, rb.Path), contract.DefaultLimits)
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				rep, err := contract.Inspect(b)
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
		}
		t.Fatalf("no bundle %s", name)
		return nil
	}
	find := func(rep *contract.Report, group, resource string) contract.ResourceSummary {
		t.Helper()
		for _, r := range rep.Resources {
			if r.Group == group && r.Resource == resource {
				return r
			}
		}
		t.Fatalf("%s: no %s.%s", rep.Path, resource, group)
		return contract.ResourceSummary{}
	}

	alpha := open("v0.123.0-alpha.9-2025")
	rs := find(alpha, "apps", "replicasets")
	if rs.Objects != 4 || rs.Paths[0] != "cluster-resources/statefulsets-errors.json/default.json" {
		t.Errorf("replicasets in statefulsets-errors.json/: %+v", rs)
	}

	old := open("v0.50.0-2022")
	if cj := find(old, "batch", "cronjobs"); cj.Version != "v1beta1" {
		t.Errorf("CronJobs stored as %s, want batch/v1beta1", cj.Version)
	}
	if pdb := find(old, "policy", "poddisruptionbudgets"); pdb.Version != "v1beta1" {
		t.Errorf("PDBs stored as %s, want policy/v1beta1", pdb.Version)
	}
	if crb := find(old, "rbac.authorization.k8s.io", "clusterrolebindings"); crb.Paths[0] != "cluster-resources/clusterRoleBindings.json" || crb.Objects == 0 {
		t.Errorf("clusterRoleBindings.json: %+v", crb)
	}
	if rq := find(old, "", "resourcequotas"); rq.Paths[0] != "cluster-resources/resource-quotas/default.json" {
		t.Errorf("resource-quotas/: %+v", rq)
	}
	// v0.50.0: the canonical files, each also behind an all-logs/ link;
	// static-hi is a runPod's, whose pod the bundle does not list.
	if len(old.Logs) != 19 || len(old.UnmappedLogs) != 0 {
		t.Errorf("v0.50.0 pod logs = %d, unmapped %v; want 19 and none", len(old.Logs), old.UnmappedLogs)
	}
	for _, l := range old.Logs {
		if l.Pod == "static-hi" {
			if l.PodInBundle || len(l.Links) != 1 || l.Links[0] != "static-hi.log" {
				t.Errorf("static-hi: %+v", l)
			}
		} else if len(l.Links) != 1 || !strings.HasPrefix(l.Links[0], "all-logs/"+l.Pod+"/") {
			t.Errorf("%s/%s %s: links %v, want its all-logs/ link", l.Namespace, l.Pod, l.Container, l.Links)
		}
	}

	// v0.10.10: the logs collector's <name>/<pod>.log form of single-
	// container pods, the namespace found from the pods; the file two
	// namespaces' kotsadm-postgres-0 wrote in turn is each one's, marked
	// as possibly the other's.
	v10 := open("v0.10.10-2021")
	var got []string
	for _, l := range v10.Logs {
		got = append(got, fmt.Sprintf("%s/%s/%s %s %v", l.Namespace, l.Pod, l.Container, l.Layout, l.Ambiguous))
	}
	want := []string{
		"default/kotsadm-bb98f747c-h8525/kotsadm " + contract.LayoutSingleContainer + " []",
		"default/kotsadm-fs-minio-5f7799dff8-tl95g/minio " + contract.LayoutSingleContainer + " []",
		"default/kotsadm-operator-7c598c864c-pgh7g/kotsadm-operator " + contract.LayoutSingleContainer + " []",
		"default/kotsadm-postgres-0/postgres " + contract.LayoutSingleContainer + " [qakots/kotsadm-postgres-0]",
		"qakots/kotsadm-postgres-0/kotsadm-postgres " + contract.LayoutSingleContainer + " [default/kotsadm-postgres-0]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("v0.10.10 logs %q, want %q", got, want)
	}
	// analysis.json: the verdicts, fails first; none before v0.13.10.
	if n := len(old.Analysis); n != 10 || old.Analysis[0].Severity != "error" || old.Analysis[6].Severity != "error" || old.Analysis[7].Severity != "debug" {
		t.Errorf("v0.50.0 analysis: %d results, %+v", n, old.Analysis)
	}
	if old.Analysis[0].Title != "Custom resource definition rook" || old.Analysis[0].Message != "The Rook CRD was not found in the cluster." {
		t.Errorf("v0.50.0 first verdict %+v", old.Analysis[0])
	}
	if v10.Analysis != nil || alpha.Analysis == nil || len(alpha.Analysis) != 0 {
		t.Errorf("analysis of v0.10.10 %v (want none), of v0.123.0-alpha.9 %v (want empty)", v10.Analysis, alpha.Analysis)
	}
	if len(v10.UnmappedLogs) != 0 {
		t.Errorf("v0.10.10 unmapped %v, want none", v10.UnmappedLogs)
	}

	sb := open("sbctl-2022")
	// engines.longhorn.io is YAML broken by ***HIDDEN***:10000 redactions.
	if e := find(sb, "longhorn.io", "engines"); e.Objects != 1 || e.Version != "v1beta1" || !e.Custom {
		t.Errorf("longhorn engines: %+v", e)
	}
	if sb.Format != "folder" || sb.Root != "" {
		t.Errorf("sbctl fixture read as %s with root %q", sb.Format, sb.Root)
	}

	pre := open("preflight-v0.123.14-2025")
	if pre.Root != "preflightbundle-2025-12-10T17_26_50" || pre.CollectedAtSource != contract.TimeFromFolderName {
		t.Errorf("preflight root %q, time from %q", pre.Root, pre.CollectedAtSource)
	}
}

// inspect names what discovery advertises as listable and the bundle
// never collected, so that an empty answer is not read as "none".
func TestInspectNotCollected(t *testing.T) {
	d := contract.Discovery{BundleSchemaVersion: contract.SchemaVersion, APIVersion: "v1", Resources: map[string][]metav1.APIResource{
		"v1": {
			{Name: "pods", Namespaced: true, Kind: "Pod", Verbs: []string{"get", "list", "watch"}},
			{Name: "pods/log", Namespaced: true, Kind: "Pod", Verbs: []string{"get"}},
			{Name: "bindings", Namespaced: true, Kind: "Binding", Verbs: []string{"create"}},
			{Name: "secrets", Namespaced: true, Kind: "Secret", Verbs: []string{"get", "list"}},
		},
		"autoscaling/v1": {{Name: "horizontalpodautoscalers", Namespaced: true, Kind: "HorizontalPodAutoscaler", Verbs: []string{"list"}}},
		"autoscaling/v2": {{Name: "horizontalpodautoscalers", Namespaced: true, Kind: "HorizontalPodAutoscaler", Verbs: []string{"list"}}},
	}}
	disc, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	rep := inspectFiles(t, []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: podList},
		{Name: "sb/cluster-resources/_meta/discovery.json", Body: string(disc)},
	})
	if want := []string{"horizontalpodautoscalers.autoscaling", "secrets"}; !slices.Equal(rep.NotCollected, want) {
		t.Errorf("NotCollected = %q, want %q", rep.NotCollected, want)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "not collected: 2") {
		t.Errorf("the text report does not say it:\n%s", text.String())
	}
}

// inspectFiles inspects an archive of these files.
func inspectFiles(t *testing.T, files []contracttest.File) *contract.Report {
	t.Helper()
	b, err := contract.Open(contracttest.WriteTarGz(t, t.TempDir(), "b.tgz", files), contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
