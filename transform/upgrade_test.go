package transform_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// snapshot is what the upgrade must keep of an input entry: everything.
type snapshot struct {
	typeflag byte
	mode     int64
	mtime    time.Time
	linkname string
	sum      [32]byte
}

// readBundle snapshots every entry of a bundle by name.
func readBundle(t *testing.T, path string) (*contract.Bundle, map[string]snapshot) {
	t.Helper()
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]snapshot{}
	err = b.Walk(func(e *contract.Entry) error {
		data, err := io.ReadAll(e.Reader())
		if err != nil {
			return err
		}
		typeflag := e.Header.Typeflag
		if typeflag == tar.TypeRegA {
			typeflag = tar.TypeReg
		}
		entries[e.Name] = snapshot{typeflag: typeflag, mode: e.Header.Mode, mtime: e.Header.ModTime.UTC(),
			linkname: e.Header.Linkname, sum: sha256.Sum256(data)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b, entries
}

func upgrade(t *testing.T, src, dest string, opts transform.Options) *transform.Summary {
	t.Helper()
	opts.Source, opts.Dest = src, dest
	sum, err := transform.Upgrade(context.Background(), opts)
	if err != nil {
		t.Fatalf("upgrade %s: %v", src, err)
	}
	return sum
}

// checkUpgrade asserts the contract of an upgrade: every input entry is in
// the output unchanged, every new entry is a table beside a raw list,
// discovery.json or another file of _meta, every raw list has a table, and discovery parses.
func checkUpgrade(t *testing.T, in, out string) (tables map[string]bool) {
	t.Helper()
	_, before := readBundle(t, in)
	b, after := readBundle(t, out)
	for name, want := range before {
		got, ok := after[name]
		if !ok {
			t.Errorf("entry %s was dropped", name)
		} else if got != want {
			t.Errorf("entry %s changed: %+v, was %+v", name, got, want)
		}
	}
	tables = map[string]bool{}
	for name := range after {
		if _, ok := before[name]; ok {
			continue
		}
		rel := strings.TrimPrefix(name, b.Root+"/")
		if after[name].typeflag == tar.TypeDir && (rel == contract.MetaPath() || strings.HasPrefix(rel, contract.MetaPath()+"/"+contract.OpenAPIDir) ||
			strings.HasPrefix(rel, contract.MetaPath()+"/"+contract.ConvertedDir)) {
			continue // a folder bundle's new _meta, openapi and converted folders
		}
		switch c := contract.Classify(rel); {
		case c.Class == contract.ClassTable:
			tables[rel] = true
		case c.Class == contract.ClassResourceList && c.Converted:
		case c.Class == contract.ClassDiscovery, c.Class == contract.ClassOpenAPIV3, c.Class == contract.ClassOpenAPIV2, c.Class == contract.ClassRankedRows:
		default:
			t.Errorf("unexpected new entry %s (%s)", name, c.Class)
		}
	}
	d, err := b.Discovery()
	if err != nil || d == nil {
		t.Fatalf("discovery.json: %v, %v", d, err)
	}
	err = b.Walk(func(e *contract.Entry) error {
		if b.IsListOfRecord(e) && !b.Names[contract.TablePathFor(e.Rel)] {
			t.Errorf("%s has no table", e.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tables
}

// upgradeAgainIsANoOp upgrades an upgraded bundle and expects the same bytes.
func upgradeAgainIsANoOp(t *testing.T, upgraded string) {
	t.Helper()
	again := filepath.Join(t.TempDir(), filepath.Base(upgraded))
	sum := upgrade(t, upgraded, again, transform.Options{})
	if sum.Tables() != 0 || sum.Discovery != "kept" || sum.OpenAPI != "kept" {
		t.Errorf("second upgrade made %d tables, discovery %s, openapi %s", sum.Tables(), sum.Discovery, sum.OpenAPI)
	}
	a, err1 := os.ReadFile(upgraded)
	b, err2 := os.ReadFile(again)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("a second upgrade changed the bytes (%d, then %d)", len(a), len(b))
	}
}

const exampleBundle = "../testdata/example-bundle/support-bundle-2025-11-20T10_00_00"

func TestUpgradeExampleBundle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "example.tar.gz")
	sum := upgrade(t, exampleBundle, out, transform.Options{})
	if len(sum.Problems) != 0 {
		t.Errorf("problems: %+v", sum.Problems)
	}
	if sum.CollectedAtSource != contract.TimeFromFolderName || !sum.CollectedAt.Equal(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("collected at %v from %s", sum.CollectedAt, sum.CollectedAtSource)
	}
	tables := checkUpgrade(t, exampleBundle, out)
	// 100 beside the stored lists, and 4 beside the events of its 4
	// namespaces converted to events.k8s.io/v1.
	if len(tables) != sum.Tables()+4 || sum.Tables() != 100 {
		t.Errorf("%d new tables, summary says %d, want 100 and 4 converted", len(tables), sum.Tables())
	}
	if n := sum.ListsConverted["events.k8s.io/v1 events"]; n != 4 || len(sum.ListsConverted) != 1 {
		t.Errorf("lists converted: %v", sum.ListsConverted)
	}
	upgradeAgainIsANoOp(t, out)

	// A folder written from a folder holds the same bytes.
	dir := filepath.Join(t.TempDir(), "example")
	upgrade(t, exampleBundle, dir, transform.Options{})
	checkUpgrade(t, exampleBundle, dir)
}

// Discovery of the example bundle: groups.json's order, plus CRDs and
// every stored version.
func TestUpgradeDiscovery(t *testing.T) {
	out := filepath.Join(t.TempDir(), "example.tar")
	upgrade(t, exampleBundle, out, transform.Options{})
	b, err := contract.Open(out, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Discovery()
	if err != nil {
		t.Fatal(err)
	}
	var groups []metav1.APIGroup
	data, err := os.ReadFile(filepath.Join(exampleBundle, "cluster-resources", "groups.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &groups); err != nil {
		t.Fatal(err)
	}
	for i, g := range groups {
		if d.Groups[i].Name != g.Name || d.Groups[i].PreferredVersion != g.PreferredVersion {
			t.Errorf("group %d is %q (%v), groups.json says %q (%v)", i, d.Groups[i].Name, d.Groups[i].PreferredVersion, g.Name, g.PreferredVersion)
		}
	}
	if d.KubernetesVersion != "v1.35.4" || d.BundleSchemaVersion != contract.SchemaVersion || !d.CollectedTime().Equal(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("discovery header: %s %s %v", d.KubernetesVersion, d.BundleSchemaVersion, d.CollectedTime())
	}
	for _, want := range []struct{ gv, resource, kind string }{
		{"v1", "pods", "Pod"}, {"example.com/v1", "widgets", "Widget"}, {"example.com/v1", "gadgets", "Gadget"},
		{"batch/v1", "cronjobs", "CronJob"},
	} {
		if r, ok := d.Resource(want.gv, want.resource); !ok || r.Kind != want.kind {
			t.Errorf("%s %s: %+v, %v", want.gv, want.resource, r, ok)
		}
	}
}

// A stored version the server no longer lists (CronJobs as batch/v1beta1)
// is added to discovery, described as the served version describes it.
func TestUpgradeDiscoveryAddsStoredVersions(t *testing.T) {
	dir := t.TempDir()
	cronjobs := `{"kind":"CronJobList","apiVersion":"batch/v1beta1","metadata":{"resourceVersion":"9"},"items":[
	 {"metadata":{"name":"nightly","namespace":"default","creationTimestamp":"2022-12-01T00:00:00Z"},
	  "spec":{"schedule":"0 3 * * *","jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox"}],"restartPolicy":"OnFailure"}}}}}}]}`
	p := contracttest.WriteTarGz(t, dir, "old.tgz", []contracttest.File{
		{Name: "support-bundle-2022-12-21T16_44_51/cluster-resources/cronjobs/default.json", Body: cronjobs},
	})
	out := filepath.Join(dir, "new.tgz")
	sum := upgrade(t, p, out, transform.Options{})
	// The list is converted to batch/v1, which the pinned release serves.
	if sum.TablesSynthesized["cronjobs.batch"] != 1 || sum.ListsConverted["batch/v1 cronjobs"] != 1 {
		t.Errorf("tables: %v, converted %v, problems %v", sum.TablesSynthesized, sum.ListsConverted, sum.Problems)
	}
	b, err := contract.Open(out, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := b.Discovery()
	r, ok := d.Resource("batch/v1beta1", "cronjobs")
	if !ok || r.Kind != "CronJob" || !r.Namespaced || len(r.Verbs) == 0 {
		t.Errorf("batch/v1beta1 cronjobs: %+v, %v", r, ok)
	}
	var versions []string
	for _, g := range d.Groups {
		if g.Name == "batch" {
			for _, v := range g.Versions {
				versions = append(versions, v.Version)
			}
			if g.PreferredVersion.Version != "v1" {
				t.Errorf("batch prefers %s", g.PreferredVersion.Version)
			}
		}
	}
	if !contains(versions, "v1beta1") {
		t.Errorf("batch versions %v", versions)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// One file that cannot be tabled is reported; its raw entry is copied and
// the rest of the bundle is upgraded.
func TestUpgradeIsFailsafe(t *testing.T) {
	dir := t.TempDir()
	p := contracttest.WriteTarGz(t, dir, "old.tgz", []contracttest.File{
		{Name: "support-bundle-2025-01-01T00_00_00/cluster-info/cluster_version.json", Body: `{"info":{"gitVersion":"v1.35.4"}}`},
		{Name: "support-bundle-2025-01-01T00_00_00/cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"`},
		{Name: "support-bundle-2025-01-01T00_00_00/cluster-resources/pods/other.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a","namespace":"other"},"spec":{"containers":"not a list"}}]}`},
		{Name: "support-bundle-2025-01-01T00_00_00/cluster-resources/nodes.json", Body: `{"kind":"NodeList","apiVersion":"v1","items":[]}`},
	})
	out := filepath.Join(dir, "new.tgz")
	sum := upgrade(t, p, out, transform.Options{})
	var paths []string
	for _, pr := range sum.Problems {
		paths = append(paths, pr.Path)
	}
	sort.Strings(paths)
	if strings.Join(paths, ",") != "cluster-resources/pods/default.json,cluster-resources/pods/other.json" {
		t.Errorf("problems: %+v", sum.Problems)
	}
	if !strings.Contains(sum.Problems[1].Message, "item 0 (other/a)") {
		t.Errorf("the problem does not name the object: %s", sum.Problems[1].Message)
	}
	if sum.TablesSynthesized["nodes"] != 1 || sum.EntriesCopied != 4 {
		t.Errorf("summary: %+v", sum)
	}
	_, before := readBundle(t, p)
	_, after := readBundle(t, out)
	for name := range before {
		if after[name] != before[name] {
			t.Errorf("%s was not copied unchanged", name)
		}
	}
}

// A bundle that cannot be read is an error naming the entry, and nothing
// is written.
func TestUpgradeRefusesBrokenBundles(t *testing.T) {
	dir := t.TempDir()
	good := contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: `{"items":[]}`},
		{Name: "sb/cluster-resources/nodes.json", Body: strings.Repeat(" ", 100000) + `{"items":[]}`},
	}))
	cases := map[string]struct {
		data []byte
		want string
	}{
		"truncated gzip": {good[:len(good)/2], "truncated"},
		"corrupt gzip":   {append(append([]byte{}, good[:20]...), bytes.Repeat([]byte{0xff}, 200)...), "corrupt"},
		"hostile entry": {contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{
			{Name: "sb/cluster-resources/pods/default.json", Body: `{"items":[]}`},
			{Name: "sb/../../etc/cron.d/x", Body: "boom"},
		})), `"sb/../../etc/cron.d/x"`},
		"link out": {contracttest.Gzip(t, contracttest.Tar(t, []contracttest.File{
			{Name: "sb/cluster-resources/pods/default.json", Typeflag: tar.TypeSymlink, Linkname: "../../../../etc/passwd"},
		})), "leaves the bundle"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".tgz")
			if err := os.WriteFile(in, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out-"+filepath.Base(in))
			_, err := transform.Upgrade(context.Background(), transform.Options{Source: in, Dest: out, CollectedAt: time.Now()})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), in) {
				t.Errorf("error %v, want one naming %s and saying %q", err, in, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("an output was left: %v", err)
			}
		})
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(entries) != 0 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestUpgradeNeverWritesOverItsInput(t *testing.T) {
	dir := t.TempDir()
	p := contracttest.WriteTarGz(t, dir, "support-bundle-2025-01-01T00_00_00.tgz", []contracttest.File{
		{Name: "sb/cluster-resources/nodes.json", Body: `{"items":[]}`},
	})
	before, _ := os.ReadFile(p)
	for _, dest := range []string{p, filepath.Join(dir, ".", filepath.Base(p))} {
		if _, err := transform.Upgrade(context.Background(), transform.Options{Source: p, Dest: dest, Force: true}); err == nil {
			t.Errorf("upgrade %s over itself was accepted", dest)
		}
	}
	folder := filepath.Join(dir, "folder")
	if err := os.MkdirAll(filepath.Join(folder, "cluster-resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := transform.Upgrade(context.Background(), transform.Options{Source: folder, Dest: filepath.Join(folder, "out.tgz"), CollectedAt: time.Now()}); err == nil {
		t.Error("an output inside the input folder was accepted")
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Error("the input changed")
	}
	other := filepath.Join(dir, "exists.tgz")
	if err := os.WriteFile(other, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := transform.Upgrade(context.Background(), transform.Options{Source: p, Dest: other}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("an existing output was replaced without --force: %v", err)
	}
}

func TestUpgradeStdinToStdout(t *testing.T) {
	dir := t.TempDir()
	p := contracttest.WriteTarGz(t, dir, "in.tgz", []contracttest.File{
		{Name: "support-bundle-2025-01-01T00_00_00/cluster-resources/nodes.json", Body: `{"kind":"NodeList","apiVersion":"v1","items":[]}`},
	})
	in, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out bytes.Buffer
	sum, err := transform.Upgrade(context.Background(), transform.Options{Source: "-", Dest: "-", Stdin: in, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Tables() != 1 {
		t.Errorf("tables: %v", sum.TablesSynthesized)
	}
	res := filepath.Join(dir, "out.tgz")
	if err := os.WriteFile(res, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	checkUpgrade(t, p, res)
}

// Cancelling (Ctrl-C) leaves no output.
func TestUpgradeCancelledLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "new.tgz")
	_, err := transform.Upgrade(ctx, transform.Options{Source: exampleBundle, Dest: out})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// The collection time: the flag wins, and a bundle that does not tell
// needs it.
func TestUpgradeCollectionTime(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "support-bundle")
	if err := os.MkdirAll(filepath.Join(folder, "cluster-resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "cluster-resources", "nodes.json"), []byte(`{"items":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := transform.Upgrade(context.Background(), transform.Options{Source: folder, Dest: filepath.Join(dir, "a.tgz")})
	if !errors.Is(err, contract.ErrNoCollectionTime) {
		t.Fatalf("err = %v", err)
	}
	at := time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC)
	sum := upgrade(t, folder, filepath.Join(dir, "b.tgz"), transform.Options{CollectedAt: at})
	if !sum.CollectedAt.Equal(at) || sum.CollectedAtSource != contract.TimeFromFlag {
		t.Errorf("%v from %s", sum.CollectedAt, sum.CollectedAtSource)
	}
}

// invalidTimeCells lists the cells of every table of an upgraded bundle
// that print a time as <invalid>: what the printers show of a time after
// the collection's, which no live server showed of its own objects (an
// event's message may say anything, and is not a time).
func invalidTimeCells(t *testing.T, bundle string) []string {
	t.Helper()
	b, err := contract.Open(bundle, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var bad []string
	err = b.Walk(func(e *contract.Entry) error {
		if e.Class.Class != contract.ClassTable {
			return nil
		}
		data, err := io.ReadAll(e.Reader())
		if err != nil {
			return err
		}
		var table metav1.Table
		if err := json.Unmarshal(data, &table); err != nil {
			return fmt.Errorf("%s: %w", e.Rel, err)
		}
		for _, row := range table.Rows {
			for i, cell := range row.Cells {
				if s, ok := cell.(string); ok && strings.Contains(s, "<invalid>") && table.ColumnDefinitions[i].Name != "Message" {
					bad = append(bad, fmt.Sprintf("%s: %s %q", e.Rel, table.ColumnDefinitions[i].Name, s))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// The bundle of host collectors only is copied as it is: no discovery,
// tables or OpenAPI for a cluster it did not collect, no collection time
// asked for, no problem.
func TestUpgradeHostOnlyBundle(t *testing.T) {
	in := filepath.Join(contracttest.CorpusDir(t), contracttest.HostOnlyBundle.Path)
	out := filepath.Join(t.TempDir(), "upgraded.tar.gz")
	sum := upgrade(t, in, out, transform.Options{})
	if sum.NothingToRender != contract.NoClusterResources || len(sum.Problems) != 0 || sum.Tables() != 0 || sum.Discovery != "" {
		t.Errorf("summary: %+v", sum)
	}
	if sum.CollectedAt.Format(time.RFC3339) != contracttest.HostOnlyBundle.CollectedAt {
		t.Errorf("collected at %v, want %s", sum.CollectionTime, contracttest.HostOnlyBundle.CollectedAt)
	}
	_, before := readBundle(t, in)
	_, after := readBundle(t, out)
	if len(after) != len(before) || sum.EntriesCopied != len(before) {
		t.Errorf("%d entries in, %d out, %d copied", len(before), len(after), sum.EntriesCopied)
	}
	for name, want := range before {
		if got, ok := after[name]; !ok || got != want {
			t.Errorf("entry %s: %+v, was %+v", name, got, want)
		}
	}
	again := filepath.Join(t.TempDir(), "again.tar.gz")
	upgrade(t, out, again, transform.Options{})
	if a, b := readFile(t, out), readFile(t, again); !bytes.Equal(a, b) {
		t.Error("upgrading the copy again changed it")
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// realTables is, per bundle of the corpus, every resource that gets
// tables: all the raw lists each bundle holds.
var realTables = map[string]string{
	"v0.10.10-2021":            "customresourcedefinitions.apiextensions.k8s.io deployments.apps events ingresses.networking.k8s.io limitranges namespaces nodes persistentvolumeclaims persistentvolumes pods services statefulsets.apps storageclasses.storage.k8s.io",
	"v0.50.0-2022":             "addons.k3s.cattle.io clusterrolebindings.rbac.authorization.k8s.io clusterroles.rbac.authorization.k8s.io cronjobs.batch customresourcedefinitions.apiextensions.k8s.io deployments.apps events helmcharts.helm.cattle.io ingresses.networking.k8s.io ingressroutes.traefik.containo.us jobs.batch limitranges namespaces networkpolicies.networking.k8s.io nodes persistentvolumeclaims persistentvolumes poddisruptionbudgets.policy pods replicasets.apps resourcequotas rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io services statefulsets.apps storageclasses.storage.k8s.io",
	"sbctl-2022":               "backupstoragelocations.velero.io backuptargets.longhorn.io configmaps cronjobs.batch customresourcedefinitions.apiextensions.k8s.io deployments.apps engineimages.longhorn.io engines.longhorn.io events ingresses.networking.k8s.io installers.cluster.kurl.sh instancemanagers.longhorn.io jobs.batch limitranges namespaces nodes nodes.longhorn.io persistentvolumeclaims persistentvolumes pods replicas.longhorn.io replicasets.apps services settings.longhorn.io statefulsets.apps storageclasses.storage.k8s.io volumes.longhorn.io",
	"v0.123.0-alpha.9-2025":    "addons.k3s.cattle.io clusterrolebindings.rbac.authorization.k8s.io clusterroles.rbac.authorization.k8s.io configmaps cronjobs.batch customresourcedefinitions.apiextensions.k8s.io daemonsets.apps deployments.apps endpoints endpointslices.discovery.k8s.io events helmcharts.helm.cattle.io ingresses.networking.k8s.io jobs.batch leases.coordination.k8s.io limitranges namespaces networkpolicies.networking.k8s.io nodes persistentvolumeclaims persistentvolumes poddisruptionbudgets.policy pods priorityclasses.scheduling.k8s.io replicasets.apps resourcequotas rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io serviceaccounts services statefulsets.apps storageclasses.storage.k8s.io volumeattachments.storage.k8s.io",
	"v0.123.14-2025":           "addons.k3s.cattle.io clusterrolebindings.rbac.authorization.k8s.io clusterroles.rbac.authorization.k8s.io configmaps cronjobs.batch customresourcedefinitions.apiextensions.k8s.io daemonsets.apps deployments.apps endpoints endpointslices.discovery.k8s.io events helmcharts.helm.cattle.io ingresses.networking.k8s.io ingressroutes.traefik.io jobs.batch leases.coordination.k8s.io limitranges namespaces networkpolicies.networking.k8s.io nodes persistentvolumeclaims persistentvolumes poddisruptionbudgets.policy pods priorityclasses.scheduling.k8s.io replicasets.apps resourcequotas rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io serviceaccounts services statefulsets.apps storageclasses.storage.k8s.io volumeattachments.storage.k8s.io",
	"preflight-v0.123.14-2025": "addons.k3s.cattle.io clusterrolebindings.rbac.authorization.k8s.io clusterroles.rbac.authorization.k8s.io configmaps cronjobs.batch customresourcedefinitions.apiextensions.k8s.io daemonsets.apps deployments.apps endpoints endpointslices.discovery.k8s.io events helmcharts.helm.cattle.io ingresses.networking.k8s.io ingressroutes.traefik.io jobs.batch leases.coordination.k8s.io limitranges namespaces networkpolicies.networking.k8s.io nodes persistentvolumeclaims persistentvolumes poddisruptionbudgets.policy pods priorityclasses.scheduling.k8s.io replicasets.apps resourcequotas rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io serviceaccounts services statefulsets.apps storageclasses.storage.k8s.io volumeattachments.storage.k8s.io",
	"k3s-pr1852-2025":          "addons.k3s.cattle.io clusterrolebindings.rbac.authorization.k8s.io clusterroles.rbac.authorization.k8s.io configmaps cronjobs.batch customresourcedefinitions.apiextensions.k8s.io daemonsets.apps deployments.apps endpoints endpointslices.discovery.k8s.io events helmcharts.helm.cattle.io ingresses.networking.k8s.io jobs.batch leases.coordination.k8s.io limitranges namespaces networkpolicies.networking.k8s.io nodes persistentvolumeclaims persistentvolumes pods priorityclasses.scheduling.k8s.io replicasets.apps resourcequotas rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io serviceaccounts services statefulsets.apps storageclasses.storage.k8s.io volumeattachments.storage.k8s.io",
	"macos-repack-2025":        "addons.k3s.cattle.io clusterrolebindings.rbac.authorization.k8s.io clusterroles.rbac.authorization.k8s.io configmaps cronjobs.batch customresourcedefinitions.apiextensions.k8s.io daemonsets.apps deployments.apps endpoints endpointslices.discovery.k8s.io events helmcharts.helm.cattle.io ingresses.networking.k8s.io ingressroutes.traefik.io jobs.batch leases.coordination.k8s.io limitranges namespaces networkpolicies.networking.k8s.io nodes persistentvolumeclaims persistentvolumes poddisruptionbudgets.policy pods priorityclasses.scheduling.k8s.io replicasets.apps resourcequotas rolebindings.rbac.authorization.k8s.io roles.rbac.authorization.k8s.io serviceaccounts services statefulsets.apps storageclasses.storage.k8s.io volumeattachments.storage.k8s.io",
}

// realMinors are the minors the real bundles' tables are rendered for,
// those of their clusters (cluster_version.json).
var realMinors = map[string]string{
	"v0.10.10-2021":            "1.20",
	"v0.50.0-2022":             "1.24",
	"sbctl-2022":               "1.23",
	"v0.123.0-alpha.9-2025":    "1.33",
	"v0.123.14-2025":           "1.31",
	"preflight-v0.123.14-2025": "1.31",
	"k3s-pr1852-2025":          "1.33",
	"macos-repack-2025":        "1.31",
}

func TestUpgradeRealBundles(t *testing.T) {
	corpus := contracttest.CorpusDir(t)
	for _, rb := range contracttest.RealBundles {
		t.Run(rb.Name, func(t *testing.T) {
			in := filepath.Join(corpus, rb.Path)
			out := filepath.Join(t.TempDir(), "upgraded.tar.gz")
			sum := upgrade(t, in, out, transform.Options{})
			if len(sum.Problems) != 0 {
				t.Errorf("problems: %+v", sum.Problems)
			}
			if sum.CollectedAt.Format(time.RFC3339) != rb.CollectedAt || string(sum.CollectedAtSource) != rb.TimeSource {
				t.Errorf("collected at %v, want %s from %s", sum.CollectionTime, rb.CollectedAt, rb.TimeSource)
			}
			for _, cell := range invalidTimeCells(t, out) {
				t.Errorf("a time printed as no live server printed it: %s", cell)
			}
			if sum.RenderedFor != realMinors[rb.Name] || sum.RenderedForSource != transform.VersionFromClusterVersion {
				t.Errorf("rendered for %s (from %s), want %s from %s", sum.RenderedFor, sum.RenderedForSource, realMinors[rb.Name], transform.VersionFromClusterVersion)
			}
			var got []string
			for r := range sum.TablesSynthesized {
				got = append(got, r)
			}
			sort.Strings(got)
			if strings.Join(got, " ") != realTables[rb.Name] {
				t.Errorf("tables for\n%s\nwant\n%s", strings.Join(got, " "), realTables[rb.Name])
			}
			// Every cluster of the corpus is older than 1.35, whose
			// ServiceAccount table lost the SECRETS column.
			if strings.Contains(realTables[rb.Name], "serviceaccounts") &&
				!bytes.Contains(renderTables(t, out), []byte("serviceaccounts/default.table.json\n   Name:string:name | Secrets:string | Age:string\n")) {
				t.Errorf("the serviceaccounts tables of a %s cluster have no Secrets column", sum.RenderedFor)
			}
			checkUpgrade(t, in, out)
			upgradeAgainIsANoOp(t, out)
			b, err := contract.Open(out, contract.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if d, _ := b.Discovery(); d == nil || d.KubernetesVersion != rb.KubernetesVersion {
				t.Errorf("discovery says Kubernetes %v, want %s", d, rb.KubernetesVersion)
			}
		})
	}
}
