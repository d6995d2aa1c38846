package contracttest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bundlectl/bundlectl/contract"
)

type entry struct {
	hdr  *tar.Header
	body []byte
}

// generate writes spec to memory and reads the archive back, in order.
func generate(t testing.TB, spec BundleSpec) (BundleStats, []byte, []entry) {
	t.Helper()
	var buf bytes.Buffer
	stats, err := WriteBundle(&buf, spec)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var entries []entry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry{hdr, body})
	}
	return stats, buf.Bytes(), entries
}

func TestWriteBundleIsDeterministic(t *testing.T) {
	spec := Small()
	_, a, _ := generate(t, spec)
	_, b, _ := generate(t, spec)
	if !bytes.Equal(a, b) {
		t.Fatal("the same spec gave different bytes")
	}
	// Items are marshalled on every CPU; one CPU gives the same bytes.
	prev := runtime.GOMAXPROCS(1)
	_, c, _ := generate(t, spec)
	runtime.GOMAXPROCS(prev)
	if !bytes.Equal(a, c) {
		t.Fatal("GOMAXPROCS=1 gave different bytes")
	}
	spec.Seed++
	_, d, _ := generate(t, spec)
	if bytes.Equal(a, d) {
		t.Fatal("another seed gave the same bytes")
	}
}

// Files larger than spoolMemory go through a temporary file, which is
// removed, and the bytes are the same.
func TestWriteBundleSpoolsToDisk(t *testing.T) {
	spec := Small()
	_, want, _ := generate(t, spec)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	prev := spoolMemory
	spoolMemory = 64 << 10
	defer func() { spoolMemory = prev }()
	stats, got, _ := generate(t, spec)
	if !bytes.Equal(got, want) {
		t.Error("spooling to disk changed the bytes")
	}
	if stats.LargestFile <= spoolMemory {
		t.Errorf("no file was spooled (largest %d bytes)", stats.LargestFile)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteBundleRefusesBadSpecs(t *testing.T) {
	for _, spec := range []BundleSpec{
		{Pods: 10, Namespaces: 1, Deployments: 1, Nodes: 1},                                      // no CollectedAt
		{Pods: 10, Namespaces: 1, Deployments: 0, Nodes: 1, CollectedAt: GeneratedAt},            // pods without a Deployment
		{Pods: 10, Namespaces: 1, Deployments: 1, Nodes: 0, CollectedAt: GeneratedAt},            // pods without a node
		{Pods: 0, Namespaces: 0, Deployments: 1, CollectedAt: GeneratedAt},                       // a Deployment without a namespace
		{Pods: -1, Namespaces: 1, Deployments: 1, Nodes: 1, CollectedAt: GeneratedAt},            // negative
		{Pods: 1, Namespaces: 1, Deployments: 1, Nodes: 1, Events: -5, CollectedAt: GeneratedAt}, // negative
	} {
		if _, err := WriteBundle(io.Discard, spec); err == nil {
			t.Errorf("%+v: no error", spec)
		}
	}
	// Degenerate but valid: an empty cluster, and one node.
	for _, spec := range []BundleSpec{
		{CollectedAt: GeneratedAt},
		{Pods: 3, Namespaces: 2, Deployments: 1, Nodes: 1, Events: 4, CollectedAt: GeneratedAt},
	} {
		stats, err := WriteBundle(io.Discard, spec)
		if err != nil {
			t.Errorf("%+v: %v", spec, err)
		} else if stats.Objects["Pod"] != spec.Pods || stats.Objects["Event"] != spec.Events {
			t.Errorf("%+v: %+v", spec, stats.Objects)
		}
	}
}

// Entries are regular files under one support-bundle-<time> folder, with
// the collection time as mtime, and every list is laid out byte for byte
// as troubleshoot writes it: json.MarshalIndent of the typed list.
func TestWriteBundleLayout(t *testing.T) {
	spec := Small()
	_, _, entries := generate(t, spec)
	root := "support-bundle-2025-11-20T10_00_00/"
	if BundleRoot(spec.CollectedAt)+"/" != root {
		t.Fatalf("root %s", BundleRoot(spec.CollectedAt))
	}
	seen := map[string]bool{}
	lists := map[string]int{}
	for _, e := range entries {
		rel, ok := strings.CutPrefix(e.hdr.Name, root)
		if !ok || e.hdr.Typeflag != tar.TypeReg || e.hdr.Mode != 0o600 || !e.hdr.ModTime.Equal(spec.CollectedAt) {
			t.Errorf("entry %s: type %c, mode %o, mtime %v", e.hdr.Name, e.hdr.Typeflag, e.hdr.Mode, e.hdr.ModTime)
			continue
		}
		if seen[rel] {
			t.Errorf("%s twice", rel)
		}
		seen[rel] = true
		c := contract.Classify(rel)
		switch c.Class {
		case contract.ClassResourceList:
			lists[c.Key.Dir]++
			checkListBytes(t, rel, c.Kind, e.body)
		case contract.ClassPodLog:
			if len(e.body) == 0 || len(e.body) > spec.LogBytesPerPod {
				t.Errorf("%s: %d bytes", rel, len(e.body))
			}
		case contract.ClassVersionFile, contract.ClassClusterVersion, contract.ClassLegacyGroups, contract.ClassLegacyResources:
		default:
			t.Errorf("unexpected entry %s (%s)", rel, c.Class)
		}
	}
	want := map[string]int{"namespaces": 1, "nodes": 1, "pods": spec.Namespaces, "deployments": spec.Namespaces,
		"replicasets": spec.Namespaces, "services": spec.Namespaces, "events": spec.Namespaces}
	if fmt.Sprint(lists) != fmt.Sprint(want) {
		t.Errorf("lists per folder %v, want %v", lists, want)
	}
	if !bytes.Equal(entries[0].body, []byte("apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionNumber: v0.123.16\n")) {
		t.Errorf("version.yaml:\n%s", entries[0].body)
	}
}

// checkListBytes decodes a list into its typed List and marshals it again
// as troubleshoot does; the bytes must not change.
func checkListBytes(t *testing.T, rel, kind string, body []byte) {
	t.Helper()
	var list any
	switch kind {
	case "Pod":
		list = &corev1.PodList{}
	case "Node":
		list = &corev1.NodeList{}
	case "Namespace":
		list = &corev1.NamespaceList{}
	case "Service":
		list = &corev1.ServiceList{}
	case "Event":
		list = &corev1.EventList{}
	case "Deployment":
		list = &appsv1.DeploymentList{}
	case "ReplicaSet":
		list = &appsv1.ReplicaSetList{}
	default:
		t.Errorf("%s: unexpected kind %s", rel, kind)
		return
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(list); err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	again, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, body) {
		t.Errorf("%s is not json.MarshalIndent of its typed list (%d bytes, marshalled again %d)", rel, len(body), len(again))
	}
	var head struct {
		Kind, APIVersion string
		Metadata         struct{ ResourceVersion string }
		Items            []struct{ Kind, APIVersion string }
	}
	if err := json.Unmarshal(body, &head); err != nil {
		t.Fatal(err)
	}
	if head.Kind != kind+"List" || head.APIVersion == "" || head.Metadata.ResourceVersion == "" {
		t.Errorf("%s: kind %q apiVersion %q resourceVersion %q", rel, head.Kind, head.APIVersion, head.Metadata.ResourceVersion)
	}
	for i, it := range head.Items {
		if it.Kind != kind || it.APIVersion != head.APIVersion {
			t.Errorf("%s item %d: kind %q apiVersion %q", rel, i, it.Kind, it.APIVersion)
		}
	}
}

// groups.json and resources.json are the example bundle's, without its
// CRD group, since generated bundles hold no custom resources.
func TestWriteBundleDiscoveryFiles(t *testing.T) {
	_, _, entries := generate(t, BundleSpec{CollectedAt: GeneratedAt})
	example := filepath.Join(RepoRoot(t), "testdata/example-bundle/support-bundle-2025-11-20T10_00_00/cluster-resources")
	for _, f := range []struct{ name, key string }{{"groups.json", "name"}, {"resources.json", "groupVersion"}} {
		data, err := os.ReadFile(filepath.Join(example, f.name))
		if err != nil {
			t.Fatal(err)
		}
		var all []json.RawMessage
		if err := json.Unmarshal(data, &all); err != nil {
			t.Fatal(err)
		}
		var kept []json.RawMessage
		for _, raw := range all {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if name, _ := m[f.key].(string); name != "example.com" && !strings.HasPrefix(name, "example.com/") {
				kept = append(kept, raw)
			}
		}
		want, err := json.MarshalIndent(kept, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, e := range entries {
			if strings.HasSuffix(e.hdr.Name, "/cluster-resources/"+f.name) {
				got = e.body
			}
		}
		if !bytes.Equal(got, want) || len(kept) == len(all) {
			t.Errorf("%s differs from the example's without example.com (%d bytes, want %d)", f.name, len(got), len(want))
		}
	}
}

// The stats tell exactly what the archive holds.
func TestWriteBundleStats(t *testing.T) {
	spec := Small()
	stats, archive, entries := generate(t, spec)
	want := map[string]int{"Pod": spec.Pods, "Namespace": spec.Namespaces, "Node": spec.Nodes, "Deployment": spec.Deployments,
		"ReplicaSet": spec.Deployments, "Service": spec.Deployments, "Event": spec.Events}
	if fmt.Sprint(stats.Objects) != fmt.Sprint(want) {
		t.Errorf("objects %v, want %v", stats.Objects, want)
	}
	got := BundleStats{Objects: map[string]int{}, ArchiveBytes: int64(len(archive)), Entries: len(entries)}
	for _, e := range entries {
		rel := strings.SplitN(e.hdr.Name, "/", 2)[1]
		n := int64(len(e.body))
		got.UncompressedBytes += n
		c := contract.Classify(rel)
		switch {
		case c.Class == contract.ClassPodLog:
			got.Logs++
			got.LogBytes += n
		case strings.HasPrefix(rel, "cluster-resources/"):
			got.ResourceBytes += n
			if c.Class == contract.ClassResourceList {
				l, err := contract.DecodeList(e.body, c.Format)
				if err != nil {
					t.Fatal(err)
				}
				got.Objects[c.Kind] += len(l.Items)
				if c.Kind == "Pod" {
					got.PodListBytes += n
				}
			}
		}
	}
	if fmt.Sprint(got.Objects) != fmt.Sprint(stats.Objects) || got.ArchiveBytes != stats.ArchiveBytes || got.Entries != stats.Entries ||
		got.UncompressedBytes != stats.UncompressedBytes || got.ResourceBytes != stats.ResourceBytes || got.PodListBytes != stats.PodListBytes ||
		got.Logs != stats.Logs || got.LogBytes != stats.LogBytes {
		t.Errorf("stats %+v\nthe archive holds %+v", stats, got)
	}
	sum := 0
	for _, n := range stats.PodStates {
		sum += n
	}
	if sum != spec.Pods || stats.PodStates["Running"] < spec.Pods*3/4 || stats.PodStates["CrashLoopBackOff"] == 0 || stats.Logs == 0 {
		t.Errorf("pod states %v, %d logs", stats.PodStates, stats.Logs)
	}
}

// The bundle opens with the contract's reader, and inspect finds every
// object, the versions and the collection time, and no problem.
func TestWriteBundleOpensAndInspects(t *testing.T) {
	spec := Small()
	p := filepath.Join(t.TempDir(), "bundle.tar.gz")
	stats, err := WriteBundleFile(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != stats.ArchiveBytes {
		t.Fatalf("%v, %d bytes written, stats say %d", err, fi.Size(), stats.ArchiveBytes)
	}
	b, err := contract.Open(p, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems: %+v", rep.Problems)
	}
	if rep.Root != BundleRoot(spec.CollectedAt) || rep.TroubleshootVersion != TroubleshootVersion ||
		rep.KubernetesVersion != "v1.35.4" || rep.CollectionTime == nil || !rep.CollectedAt.Equal(spec.CollectedAt) ||
		rep.CollectedAtSource != contract.TimeFromFolderName || rep.Entries != stats.Entries || rep.Schema != "legacy" {
		t.Errorf("report: %+v", rep)
	}
	got := map[string]int{}
	for _, r := range rep.Resources {
		got[r.Kind] += r.Objects
	}
	if fmt.Sprint(got) != fmt.Sprint(stats.Objects) {
		t.Errorf("inspect counts %v, the generator wrote %v", got, stats.Objects)
	}
	if len(rep.Logs) != stats.Logs {
		t.Errorf("inspect finds %d logs, the generator wrote %d", len(rep.Logs), stats.Logs)
	}
}

// Pods weigh what real ones do: with managed fields, two containers and a
// full status, 4-7 KiB of compact JSON as the apiserver returns it (about
// twice that as troubleshoot indents it into the list).
func TestWriteBundlePodSizes(t *testing.T) {
	stats, _, entries := generate(t, Small())
	var n, total, lo, hi int
	lo = 1 << 30
	for _, e := range entries {
		if !strings.Contains(e.hdr.Name, "/cluster-resources/pods/") || strings.Contains(e.hdr.Name, "/logs/") {
			continue
		}
		var l struct{ Items []json.RawMessage }
		if err := json.Unmarshal(e.body, &l); err != nil {
			t.Fatal(err)
		}
		for _, it := range l.Items {
			var c bytes.Buffer
			if err := json.Compact(&c, it); err != nil {
				t.Fatal(err)
			}
			n++
			total += c.Len()
			lo, hi = min(lo, c.Len()), max(hi, c.Len())
		}
	}
	mean := total / max(n, 1)
	t.Logf("%d pods: %d-%d bytes, mean %d (compact); %d bytes each in the lists", n, lo, hi, mean, stats.PodListBytes/int64(max(n, 1)))
	if lo < 3<<10 || hi > 7<<10 || mean < 4<<10 || mean > 6<<10 {
		t.Errorf("pod sizes %d-%d bytes, mean %d: want 3-7 KiB, mean 4-6 KiB", lo, hi, mean)
	}
}

var timestamp = regexp.MustCompile(`"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z)"`)

// Every time in the bundle is before the collection, ages run from seconds
// to months, and the objects agree with each other as in a live cluster.
func TestWriteBundleIsConsistent(t *testing.T) {
	t.Run("small", func(t *testing.T) { checkConsistent(t, Small()) })
	t.Run("medium", func(t *testing.T) {
		if testing.Short() {
			t.Skip("2,000 pods")
		}
		// Enough Services for node ports, nodes for NotReady and cordoned ones.
		checkConsistent(t, BundleSpec{Pods: 2000, Namespaces: 8, Deployments: 150, Nodes: 30, Events: 1000,
			LogBytesPerPod: 1024, CollectedAt: GeneratedAt.Add(-36 * time.Hour), Seed: 7})
	})
}

func checkConsistent(t *testing.T, spec BundleSpec) {
	_, _, entries := generate(t, spec)
	var (
		pods        []corev1.Pod
		nodes       []corev1.Node
		events      []corev1.Event
		services    []corev1.Service
		deployments []appsv1.Deployment
		replicasets []appsv1.ReplicaSet
	)
	youngest, oldest := time.Duration(1<<62), time.Duration(0)
	for _, e := range entries {
		for _, m := range timestamp.FindAllSubmatch(e.body, -1) {
			ts, err := time.Parse(time.RFC3339Nano, string(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			age := spec.CollectedAt.Sub(ts)
			if age <= 0 && !strings.HasSuffix(e.hdr.Name, ".log") {
				t.Errorf("%s: %s is not before the collection", e.hdr.Name, m[1])
			}
			youngest, oldest = min(youngest, age), max(oldest, age)
		}
		rel := strings.SplitN(e.hdr.Name, "/", 2)[1]
		c := contract.Classify(rel)
		if c.Class != contract.ClassResourceList {
			continue
		}
		var err error
		switch c.Kind {
		case "Pod":
			pods, err = appendItems[corev1.PodList](pods, e.body, func(l *corev1.PodList) []corev1.Pod { return l.Items })
		case "Node":
			nodes, err = appendItems[corev1.NodeList](nodes, e.body, func(l *corev1.NodeList) []corev1.Node { return l.Items })
		case "Event":
			events, err = appendItems[corev1.EventList](events, e.body, func(l *corev1.EventList) []corev1.Event { return l.Items })
		case "Service":
			services, err = appendItems[corev1.ServiceList](services, e.body, func(l *corev1.ServiceList) []corev1.Service { return l.Items })
		case "Deployment":
			deployments, err = appendItems[appsv1.DeploymentList](deployments, e.body, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
		case "ReplicaSet":
			replicasets, err = appendItems[appsv1.ReplicaSetList](replicasets, e.body, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items })
		}
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
	}
	if youngest > time.Minute || oldest < 60*24*time.Hour {
		t.Errorf("ages from %v to %v, want seconds to months", youngest, oldest)
	}

	uids := map[string]string{}
	for _, d := range deployments {
		uids[string(d.UID)] = "Deployment/" + d.Namespace + "/" + d.Name
	}
	type counts struct{ active, ready int }
	perRS := map[string]*counts{}
	for _, rs := range replicasets {
		uids[string(rs.UID)] = "ReplicaSet/" + rs.Namespace + "/" + rs.Name
		perRS[string(rs.UID)] = &counts{}
		if o := rs.OwnerReferences; len(o) != 1 || !strings.HasPrefix(uids[string(o[0].UID)], "Deployment/"+rs.Namespace+"/") {
			t.Errorf("ReplicaSet %s: owner %v", rs.Name, o)
		}
	}
	nodeCIDR := map[string]netip.Prefix{}
	notReady := 0
	for _, n := range nodes {
		nodeCIDR[n.Name] = netip.MustParsePrefix(n.Spec.PodCIDR)
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
				notReady++
			}
		}
	}
	if notReady == 0 {
		t.Error("no node is NotReady")
	}
	ips := map[string]string{}
	restarted, states := 0, map[string]int{}
	for _, p := range pods {
		uids[string(p.UID)] = "Pod/" + p.Namespace + "/" + p.Name
		if o := p.OwnerReferences; len(o) != 1 || perRS[string(o[0].UID)] == nil || p.Labels["pod-template-hash"] == "" ||
			p.GenerateName != o[0].Name+"-" {
			t.Errorf("pod %s: owner %v", p.Name, o)
			continue
		}
		c := perRS[string(p.OwnerReferences[0].UID)]
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			c.active++
		}
		ready := false
		for _, cond := range p.Status.Conditions {
			ready = ready || cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue
		}
		if ready {
			c.ready++
		}
		if p.Status.PodIP != "" {
			if other, ok := ips[p.Status.PodIP]; ok {
				t.Errorf("pods %s and %s share %s", other, p.Name, p.Status.PodIP)
			}
			ips[p.Status.PodIP] = p.Name
			if cidr, ok := nodeCIDR[p.Spec.NodeName]; !ok || !cidr.Contains(netip.MustParseAddr(p.Status.PodIP)) {
				t.Errorf("pod %s: IP %s not in node %s's CIDR %v", p.Name, p.Status.PodIP, p.Spec.NodeName, cidr)
			}
		}
		if len(p.Spec.Containers) != 2 || len(p.ManagedFields) != 2 {
			t.Errorf("pod %s: %d containers, %d managed fields", p.Name, len(p.Spec.Containers), len(p.ManagedFields))
		}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.RestartCount > 0 && cs.LastTerminationState.Terminated != nil {
				restarted++
			}
			if cs.State.Waiting != nil {
				states[cs.State.Waiting.Reason]++
			}
		}
		states[string(p.Status.Phase)]++
	}
	if restarted == 0 || states["CrashLoopBackOff"] == 0 || states["Pending"] == 0 || states["Succeeded"] == 0 || states["Failed"] == 0 {
		t.Errorf("pod states %v, %d restarted containers", states, restarted)
	}
	for _, rs := range replicasets {
		c := perRS[string(rs.UID)]
		if int(*rs.Spec.Replicas) != c.active || int(rs.Status.Replicas) != c.active || int(rs.Status.ReadyReplicas) != c.ready {
			t.Errorf("ReplicaSet %s: spec %d, status %d/%d ready, its pods %d/%d", rs.Name, *rs.Spec.Replicas, rs.Status.ReadyReplicas, rs.Status.Replicas, c.ready, c.active)
		}
	}
	for _, d := range deployments {
		var rs *appsv1.ReplicaSet
		for i := range replicasets {
			if o := replicasets[i].OwnerReferences; len(o) == 1 && o[0].UID == d.UID {
				rs = &replicasets[i]
			}
		}
		if rs == nil || *d.Spec.Replicas != *rs.Spec.Replicas || d.Status.ReadyReplicas != rs.Status.ReadyReplicas ||
			d.Status.UnavailableReplicas != rs.Status.Replicas-rs.Status.ReadyReplicas {
			t.Errorf("Deployment %s does not match its ReplicaSet", d.Name)
		}
	}
	if len(services) != len(deployments) {
		t.Errorf("%d services for %d deployments", len(services), len(deployments))
	}
	taken := map[string]string{}
	for _, svc := range services {
		claims := append([]string(nil), svc.Spec.ClusterIPs...)
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				claims = append(claims, fmt.Sprint("node port ", p.NodePort))
			}
		}
		for _, c := range claims {
			if other, ok := taken[c]; ok {
				t.Errorf("services %s and %s both have %s", other, svc.Name, c)
			}
			taken[c] = svc.Namespace + "/" + svc.Name
		}
		if !strings.HasPrefix(uids[string(findDeployment(deployments, svc.Namespace, svc.Spec.Selector["app"]))], "Deployment/") {
			t.Errorf("service %s selects %v, no Deployment's pods", svc.Name, svc.Spec.Selector)
		}
	}
	series := 0
	names := map[string]bool{}
	for _, e := range events {
		if names[e.Namespace+"/"+e.Name] {
			t.Errorf("event %s/%s twice", e.Namespace, e.Name)
		}
		names[e.Namespace+"/"+e.Name] = true
		if uids[string(e.InvolvedObject.UID)] != e.InvolvedObject.Kind+"/"+e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name {
			t.Errorf("event %s is about %v, which the bundle does not hold", e.Name, e.InvolvedObject)
		}
		if e.ReportingController == "" {
			t.Errorf("event %s has no reportingComponent", e.Name)
		}
		if e.Series != nil {
			series++
		}
	}
	if series == 0 {
		t.Error("no event has a series")
	}
}

func findDeployment(ds []appsv1.Deployment, ns, app string) types.UID {
	for _, d := range ds {
		if d.Namespace == ns && d.Spec.Selector.MatchLabels["app"] == app {
			return d.UID
		}
	}
	return ""
}

func appendItems[L any, T any](to []T, body []byte, items func(*L) []T) ([]T, error) {
	var l L
	if err := json.Unmarshal(body, &l); err != nil {
		return to, err
	}
	return append(to, items(&l)...), nil
}

// BenchmarkWriteBundleHeap reports the heap's peak while a 220 MB bundle
// is written: the generator streams, so it follows the largest file (a
// namespace's pods), not the bundle.
func BenchmarkWriteBundleHeap(b *testing.B) {
	spec := BundleSpec{Pods: 20000, Namespaces: 20, Deployments: 500, Nodes: 50, Events: 2000, CollectedAt: GeneratedAt, Seed: 3}
	for range b.N {
		runtime.GC()
		var peak uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		})
		stats, err := WriteBundle(io.Discard, spec)
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak)/1e6, "heap-peak-MB")
		b.ReportMetric(float64(stats.LargestFile)/1e6, "largest-file-MB")
		b.ReportMetric(float64(stats.UncompressedBytes)/1e6, "bundle-MB")
	}
}

// The benchmark bundle holds what it says (BenchmarkWriteBundleLarge
// measures how fast it is made).
func TestWriteBundleLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes the 10,000-pod bundle")
	}
	stats, err := WriteBundleFile(filepath.Join(t.TempDir(), "large.tar.gz"), Large())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Large(): %d entries, %.1f MB of lists (%.1f MB pods), %.1f MB of logs, %.1f MB archive; pods %v",
		stats.Entries, float64(stats.ResourceBytes)/1e6, float64(stats.PodListBytes)/1e6,
		float64(stats.LogBytes)/1e6, float64(stats.ArchiveBytes)/1e6, stats.PodStates)
	want := map[string]int{"Pod": 10000, "Namespace": 20, "Node": 50, "Deployment": 500, "ReplicaSet": 500, "Service": 500, "Event": 5000}
	if fmt.Sprint(stats.Objects) != fmt.Sprint(want) {
		t.Errorf("objects %v, want %v", stats.Objects, want)
	}
}

func BenchmarkWriteBundleLarge(b *testing.B) {
	var stats BundleStats
	for range b.N {
		var err error
		if stats, err = WriteBundle(io.Discard, Large()); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(stats.UncompressedBytes)
	b.ReportMetric(float64(stats.ArchiveBytes)/1e6, "archive-MB")
}
