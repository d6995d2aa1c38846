package transform_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/contract/collect"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/transform"
)

// StorageClasses with the creation times they are given in etcd: three
// annotated default (fast the newest; cheap and standard, with the beta
// annotation, created in the same second, where the first name wins)
// and one not.
var rankedStorageClasses = []struct {
	name, created, tier, annotation string
}{
	{"fast", "2025-09-01T00:00:00Z", "gold", "storageclass.kubernetes.io/is-default-class"},
	{"standard", "2025-03-01T00:00:00Z", "silver", "storageclass.beta.kubernetes.io/is-default-class"},
	{"cheap", "2025-03-01T00:00:00Z", "silver", "storageclass.kubernetes.io/is-default-class"},
	{"archive", "2025-10-01T00:00:00Z", "bronze", ""},
}

// kubectl prints what the pinned kube-apiserver prints for StorageClasses
// of which several are annotated default, whatever the request selects,
// against a bundle collected from it and upgraded, and against the same
// bundle made legacy and upgraded: the server marks " (default)" only on
// the newest annotated class among those of the list it prints (each page
// of a chunked list is one), never on a single GET's.
func TestRankedRowsAreTheLiveServers(t *testing.T) {
	kubectl := anyKubectl(t)
	p, c := localtest.StartWith(t, localtest.Options{})
	for _, sc := range rankedStorageClasses {
		annotations := ""
		if sc.annotation != "" {
			annotations = fmt.Sprintf(`,"annotations":{%q:"true"}`, sc.annotation)
		}
		putEtcd(t, p.EtcdURL(), "/registry/storageclasses/"+sc.name, fmt.Sprintf(`{"kind":"StorageClass","apiVersion":"storage.k8s.io/v1",`+
			`"metadata":{"name":%q,"uid":"%s-5c1e-4a55-9d3a-0c1f2a3b4c5d","creationTimestamp":%q,"labels":{"tier":%q}%s},`+
			`"provisioner":"example.com/%s","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`,
			sc.name, strings.Repeat(sc.name[:1], 8), sc.created, sc.tier, annotations, sc.name))
	}
	cfg, err := collect.LoadConfig(c.Kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	collected := filepath.Join(dir, "collected")
	sum, err := collect.Run(context.Background(), collect.Options{Config: cfg, Dest: collected, Namespaces: []string{"default"}})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(collected, sum.Root)
	legacy := filepath.Join(dir, "legacy", sum.Root)
	stripContract(t, root, legacy)
	var bundles []string
	for name, src := range map[string]string{"from-collected.tgz": root, "from-legacy.tgz": legacy} {
		out := filepath.Join(dir, name)
		up, err := transform.Upgrade(context.Background(), transform.Options{Source: src, Dest: out})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"storageclasses.storage.k8s.io"}, up.RankedRows); d != "" {
			t.Errorf("%s: ranked rows (-want +got):\n%s\nproblems: %+v", name, d, up.Problems)
		}
		bundles = append(bundles, out)
	}
	served := serveBundles(t, bundles...)
	for _, args := range [][]string{
		{"get", "storageclasses"},
		{"get", "sc", "-o", "wide"},
		{"get", "sc", "-l", "tier!=gold"},
		{"get", "sc", "-l", "tier!=gold", "-o", "wide"},
		{"get", "sc", "-l", "tier=silver"},
		{"get", "sc", "-l", "tier in (gold,bronze)"},
		{"get", "sc", "-l", "tier=bronze"},
		{"get", "sc", "--field-selector", "metadata.name=standard"},
		{"get", "sc", "--field-selector", "metadata.name!=fast"},
		{"get", "sc", "--field-selector", "metadata.name=archive"},
		{"get", "sc", "fast"},
		{"get", "sc", "cheap"},
		{"get", "sc", "standard", "-o", "wide"},
		{"get", "sc", "fast", "standard", "archive"},
		{"get", "sc", "--chunk-size=1"},
		{"get", "sc", "--chunk-size=2"},
		{"get", "sc", "--chunk-size=3", "-l", "tier!=gold"},
	} {
		live := runKubectl(t, kubectl, c.Kubeconfig, "", "", args...)
		if live.code != 0 {
			t.Fatalf("live: kubectl %s: exit %d\n%s", strings.Join(args, " "), live.code, live.stderr)
		}
		for _, kc := range []string{"from-collected", "from-legacy"} {
			snap := runKubectl(t, kubectl, served, kc, "", args...)
			if d := cmp.Diff(live, snap, cmp.AllowUnexported(kubectlResult{})); d != "" {
				t.Errorf("kubectl %s: live (-) and the %s bundle (+) differ:\n%s", strings.Join(args, " "), kc, d)
			}
		}
	}
	// What the live server printed, which the served bundles printed too:
	// the premises of the test.
	for args, want := range map[string][]string{
		"get sc":                {"fast"},
		"get sc -l tier!=gold":  {"cheap"},
		"get sc -l tier=bronze": nil,
		"get sc fast":           nil,
		"get sc --chunk-size=1": {"cheap", "fast", "standard"},
		"get sc --field-selector=metadata.name=standard": {"standard"},
	} {
		if got := markedDefault(runKubectl(t, kubectl, c.Kubeconfig, "", "", strings.Fields(args)...).stdout); !slices.Equal(got, want) {
			t.Errorf("live kubectl %s marks %q, want %q", args, got, want)
		}
	}
}

// markedDefault are the names kubectl printed with " (default)".
func markedDefault(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if name, _, ok := strings.Cut(line, " (default) "); ok {
			names = append(names, name)
		}
	}
	return names
}
