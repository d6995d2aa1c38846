package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// kubectl aligns columns to their widest cell, so a shorter served age
// moves every column after it; the lines still compare equal cell by
// cell, and each advanced age is counted.
func TestTextAgesRealigned(t *testing.T) {
	live := `NAME          READY   STATUS             RESTARTS      AGE     IP
crashloop     0/1     CrashLoopBackOff   7 (10h ago)   2m19s   10.244.1.11
web-ready     2/2     Running            0             2m19s   10.244.1.10
`
	served := `NAME          READY   STATUS             RESTARTS      AGE   IP
crashloop     0/1     CrashLoopBackOff   7 (10h ago)   2s    10.244.1.11
web-ready     2/2     Running            0             2s    10.244.1.10
`
	n := newNormalizer([]string{NormAges}, window{0, 150 * time.Second}, window{})
	l, s := n.text(live, served)
	if l != s {
		t.Fatalf("not equal after normalization:\n%s\n%s", l, s)
	}
	if n.counts[NormAges] != 2 {
		t.Errorf("counts %v, want 2 ages", n.counts)
	}

	// Anything else that changed is left for the diff.
	live2 := strings.Replace(live, "Running ", "Pending ", 1)
	if d := textDiff(newNormalizer([]string{NormAges}, window{0, 150 * time.Second}, window{}), live2, served); !strings.Contains(d, "Pend") || changedLine(d, "crashloop") {
		t.Errorf("diff should show the web-ready line only:\n%s", d)
	}

	// Without the normalization, or with too little time elapsed, the
	// ages are divergences.
	if d := textDiff(newNormalizer(nil, window{0, time.Hour}, window{}), live, served); d == "" {
		t.Error("ages forgiven without the normalization")
	}
	if d := textDiff(newNormalizer([]string{NormAges}, window{0, 100 * time.Second}, window{}), live, served); d == "" {
		t.Error("ages 137s ahead forgiven when only 100s elapsed")
	}
	// A served age ahead of the live one is never forgiven.
	if d := textDiff(newNormalizer([]string{NormAges}, window{0, time.Hour}, window{}), served, live); d == "" {
		t.Error("a live age behind the served one was forgiven")
	}
}

func TestTextDescribeIndentation(t *testing.T) {
	live := "Events:\n  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n  Normal  Pulled   11s   kubelet  pulled\n"
	served := "Events:\n  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n  Normal  Pulled   10s   kubelet  pulled\n"
	if d := textDiff(newNormalizer([]string{NormAges}, window{0, 5 * time.Second}, window{}), live, served); d != "" {
		t.Errorf("diff:\n%s", d)
	}
	// Indentation is structure: a line moved out of its section differs.
	moved := strings.Replace(live, "  Normal", "Normal", 1)
	if d := textDiff(newNormalizer([]string{NormAges}, window{0, 5 * time.Second}, window{}), moved, served); d == "" {
		t.Error("a change of indentation was forgiven")
	}
}

func TestKlogPrefix(t *testing.T) {
	live := "E1123 07:01:09.123456   12345 memcache.go:265] couldn't get current server API group list\n"
	served := "E1123 07:01:10.654321   99 memcache.go:265] couldn't get current server API group list\n"
	n := newNormalizer([]string{NormKlogPrefix}, window{0, 0}, window{})
	if l, s := n.text(live, served); l != s || n.counts[NormKlogPrefix] != 2 {
		t.Errorf("got %q %q %v", l, s, n.counts)
	}
	other := "E1123 07:01:10.654321   99 cached_discovery.go:88] couldn't get current server API group list\n"
	if d := textDiff(newNormalizer([]string{NormKlogPrefix}, window{0, 0}, window{}), live, other); d == "" {
		t.Error("a different source line was forgiven")
	}
}

func TestUnorderedRowsText(t *testing.T) {
	live := "NAME                 STATUS\nscheduler            Unhealthy\ncontroller-manager   Unhealthy\netcd-0               Healthy\n"
	served := "NAME                 STATUS\netcd-0               Healthy\nscheduler            Unhealthy\ncontroller-manager   Unhealthy\n"
	n := newNormalizer([]string{NormUnorderedRows}, window{0, 0}, window{})
	if l, s := n.text(live, served); l != s || n.counts[NormUnorderedRows] != 1 {
		t.Errorf("got\n%s\n%s\n%v", l, s, n.counts)
	}
	// -o name has no header: every line is a row.
	n = newNormalizer([]string{NormUnorderedRows}, window{0, 0}, window{})
	if l, s := n.text("componentstatus/scheduler\ncomponentstatus/etcd-0\n", "componentstatus/etcd-0\ncomponentstatus/scheduler\n"); l != s {
		t.Errorf("got\n%s\n%s", l, s)
	}
	// A row that differs still differs.
	if d := textDiff(newNormalizer([]string{NormUnorderedRows}, window{0, 0}, window{}), live, strings.Replace(served, "Healthy\n", "Unhealthy\n", 1)); d == "" {
		t.Error("a changed row was forgiven")
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := decodeJSON([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJSONResourceVersion(t *testing.T) {
	live := decode(t, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"900"},"items":[{"metadata":{"name":"a","resourceVersion":"12"}}]}`)
	served := decode(t, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"528"},"items":[{"metadata":{"name":"a","resourceVersion":"12"}}]}`)
	n := newNormalizer([]string{NormResourceVersion}, window{0, 0}, window{})
	n.json(live, served)
	if d := cmp.Diff(live, served); d != "" || n.counts[NormResourceVersion] != 1 {
		t.Errorf("list revision not forgiven (%v):\n%s", n.counts, d)
	}
	// An object's resourceVersion is never forgiven: on a cluster that
	// does not change, the served object must be the live one.
	live = decode(t, `{"kind":"PodList","metadata":{"resourceVersion":"900"},"items":[{"metadata":{"name":"a","resourceVersion":"13"}}]}`)
	served = decode(t, `{"kind":"PodList","metadata":{"resourceVersion":"528"},"items":[{"metadata":{"name":"a","resourceVersion":"12"}}]}`)
	n = newNormalizer([]string{NormResourceVersion}, window{0, 0}, window{})
	n.json(live, served)
	if d := cmp.Diff(live, served); !strings.Contains(d, `"13"`) {
		t.Errorf("an object's resourceVersion was forgiven:\n%s", d)
	}
	// A Table's revision moves the same way.
	live = decode(t, `{"kind":"Table","metadata":{"resourceVersion":"900"},"rows":[]}`)
	served = decode(t, `{"kind":"Table","metadata":{"resourceVersion":"528"},"rows":[]}`)
	n = newNormalizer([]string{NormResourceVersion}, window{0, 0}, window{})
	n.json(live, served)
	if d := cmp.Diff(live, served); d != "" {
		t.Errorf("table revision not forgiven:\n%s", d)
	}
}

// kubectl -o json prints an empty list written without items (1.26's
// admissionregistration v1alpha1 lists) as one item, the list itself:
// its revision moves too, and nothing else is forgiven.
func TestTextResourceVersionOfKubectlJSON(t *testing.T) {
	doc := func(listRV, itemRV string) string {
		return "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"admissionregistration.k8s.io/v1alpha1\",\n" +
			"            \"kind\": \"ValidatingAdmissionPolicyList\",\n            \"metadata\": {\n                \"resourceVersion\": \"" + listRV + "\"\n            }" + itemRV + "\n        }\n    ],\n" +
			"    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	}
	n := newNormalizer([]string{NormResourceVersion}, window{0, 0}, window{})
	if l, s := n.text(doc("478", ""), doc("472", "")); l != s {
		t.Errorf("the list's revision was not forgiven:\n%s", cmp.Diff(lines(l), lines(s)))
	}
	n = newNormalizer([]string{NormResourceVersion}, window{0, 0}, window{})
	if l, s := n.text(doc("478", `,\n            "x": 1`), doc("472", `,\n            "x": 2`)); l == s {
		t.Error("a difference besides the revision was forgiven")
	}
	n = newNormalizer(nil, window{0, 0}, window{})
	if l, s := n.text(doc("478", ""), doc("472", "")); l == s {
		t.Error("forgiven without the normalization")
	}
}

func TestJSONManagedFieldsTimeAndAges(t *testing.T) {
	live := decode(t, `{"kind":"Table","rows":[{"cells":["web","2m19s"],"object":{"metadata":{"name":"web","managedFields":[{"manager":"kubectl","time":"2026-11-23T07:00:00Z"}]}}}]}`)
	served := decode(t, `{"kind":"Table","rows":[{"cells":["web","2s"],"object":{"metadata":{"name":"web","managedFields":[{"manager":"kubectl","time":"2026-11-23T06:00:00Z"}]}}}]}`)
	n := newNormalizer([]string{NormManagedFieldsTime, NormAges}, window{0, 3 * time.Minute}, window{})
	n.json(live, served)
	if d := cmp.Diff(live, served); d != "" || n.counts[NormManagedFieldsTime] != 1 || n.counts[NormAges] != 1 {
		t.Errorf("counts %v, diff:\n%s", n.counts, d)
	}
	// A manager that changed is not a time.
	live = decode(t, `{"metadata":{"managedFields":[{"manager":"kubectl","time":"2026-11-23T07:00:00Z"}]}}`)
	served = decode(t, `{"metadata":{"managedFields":[{"manager":"helm","time":"2026-11-23T06:00:00Z"}]}}`)
	n = newNormalizer([]string{NormManagedFieldsTime}, window{0, 0}, window{})
	n.json(live, served)
	if d := cmp.Diff(live, served); !changedLine(d, "helm") || changedLine(d, "time") {
		t.Errorf("diff:\n%s", d)
	}
}

func TestJSONUnorderedItems(t *testing.T) {
	live := decode(t, `{"kind":"ComponentStatusList","items":[{"metadata":{"name":"scheduler"}},{"metadata":{"name":"etcd-0"}}]}`)
	served := decode(t, `{"kind":"ComponentStatusList","items":[{"metadata":{"name":"etcd-0"}},{"metadata":{"name":"scheduler"}}]}`)
	n := newNormalizer([]string{NormUnorderedRows}, window{0, 0}, window{})
	n.json(live, served)
	if d := cmp.Diff(live, served); d != "" || n.counts[NormUnorderedRows] != 1 {
		t.Errorf("counts %v, diff:\n%s", n.counts, d)
	}
}

func TestCompareOutputs(t *testing.T) {
	c := Case{Compare: []string{"stdout", "stderr", "exitCode"}, Normalize: []string{NormAges}}
	live := Output{Stdout: "NAME   AGE\nweb    10m\n", Stderr: "Warning: v1 Endpoints is deprecated in v1.33+\n"}
	served := Output{Stdout: "NAME   AGE\nweb    9m\n", ExitCode: 0}
	divs, counts := compareOutputs(c, live, served, window{0, 2 * time.Minute}, window{}, time.Time{})
	if len(divs) != 1 || divs[0].Output != "stderr" || counts[NormAges] != 1 {
		t.Fatalf("got %+v %v", divs, counts)
	}
	divs, _ = compareOutputs(c, Output{ExitCode: 1}, Output{}, window{}, window{}, time.Time{})
	if len(divs) != 1 || divs[0].Output != "exitCode" {
		t.Fatalf("got %+v", divs)
	}
	r := Case{Compare: []string{"status", "contentType", "body"}}
	divs, _ = compareOutputs(r,
		Output{Status: 404, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found\n")},
		Output{Status: 404, ContentType: "application/json", Body: []byte(`{"kind":"Status"}`)}, window{}, window{}, time.Time{})
	if len(divs) != 2 || divs[0].Output != "contentType" || divs[1].Output != "body" {
		t.Fatalf("got %+v", divs)
	}
	// JSON bodies compare as documents: spacing and key order do not matter.
	divs, _ = compareOutputs(r,
		Output{Status: 200, ContentType: "application/json", Body: []byte("{\n  \"b\": 1,\n  \"a\": [1, 2]\n}")},
		Output{Status: 200, ContentType: "application/json", Body: []byte(`{"a":[1,2],"b":1}`)}, window{}, window{}, time.Time{})
	if len(divs) != 0 {
		t.Fatalf("got %+v", divs)
	}
}

// changedLine says whether a line of a go-cmp diff marked as changed
// contains text.
func changedLine(diff, text string) bool {
	for _, line := range strings.Split(diff, "\n") {
		t := strings.TrimLeft(line, " \t\u00a0")
		if (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && strings.Contains(t, text) {
			return true
		}
	}
	return false
}

// An AGE column that is the same on both sides, where its precision would
// show the time between the collection and the query, is a served age
// that moved with the clock.
func TestFrozenAges(t *testing.T) {
	out := "NAME   STATUS    AGE   IP\nweb    Running   2m19s   10.0.0.1\nold    Running   400d    10.0.0.2\n"
	ages := window{lo: 130 * time.Second, hi: 145 * time.Second}
	n := newNormalizer([]string{NormAges}, ages, window{})
	n.text(out, out)
	if len(n.violations) != 1 || !strings.Contains(n.violations[0], "2m19s") {
		t.Errorf("violations %q", n.violations)
	}
	// The same output with kubectl's own ages (describe) is fine.
	n = newNormalizer([]string{NormClientAges}, ages, window{0, time.Second})
	n.text(out, out)
	if len(n.violations) != 0 {
		t.Errorf("client ages: violations %q", n.violations)
	}
	// A finished Job's DURATION is no age: only the AGE column is checked.
	jobs := "NAME   STATUS     COMPLETIONS   DURATION   AGE\ndone   Complete   1/1           45s        10h\n"
	n = newNormalizer([]string{NormAges}, ages, window{})
	n.text(jobs, jobs)
	if len(n.violations) != 0 {
		t.Errorf("jobs: violations %q", n.violations)
	}
	// A line forgiven for its advanced ages is no frozen age.
	live := "NAME   STATUS    AGE   IP\nweb    Running   2m19s   10.0.0.1\n"
	served := "NAME   STATUS    AGE   IP\nweb    Running   2s   10.0.0.1\n"
	n = newNormalizer([]string{NormAges}, ages, window{})
	if l, s := n.text(live, served); l != s || len(n.violations) != 0 {
		t.Errorf("forgiven line: violations %q", n.violations)
	}
	// compareOutputs reports the violation although the texts are equal.
	divs, _ := compareOutputs(Case{Compare: []string{"stdout"}, Normalize: []string{NormAges}}, Output{Stdout: out}, Output{Stdout: out}, ages, window{}, time.Time{})
	if len(divs) != 1 || !strings.Contains(divs[0].Diff, "moved with the clock") {
		t.Errorf("divergences %+v", divs)
	}
}

func TestClientAges(t *testing.T) {
	live := "Events:\n  Type    Reason   Age   From     Message\n  Normal  Pulled   12s   kubelet  pulled\n"
	served := "Events:\n  Type    Reason   Age   From     Message\n  Normal  Pulled   11s   kubelet  pulled\n"
	if d := textDiff(newNormalizer([]string{NormClientAges}, window{}, window{0, 2 * time.Second}), live, served); d != "" {
		t.Errorf("diff:\n%s", d)
	}
	// Server-side ages, as of the collection minutes ago, would need the
	// live age far ahead: a second is no such thing.
	if d := textDiff(newNormalizer([]string{NormAges}, window{130 * time.Second, 145 * time.Second}, window{}), live, served); d == "" {
		t.Error("a second's difference passed as the time since the collection")
	}
}

// The served bundle's warning about namespaces the gate did not collect is
// dropped, counted; one naming a collected namespace stays.
func TestDropOutsideCollection(t *testing.T) {
	stderr := "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n" +
		"Warning: this support bundle did not collect pods in namespaces default, kube-system: an empty answer there does not mean they had none\n" +
		"Warning: this support bundle did not collect leases.coordination.k8s.io in namespace kube-node-lease: an empty answer there does not mean it had none\n" +
		"Warning: this support bundle did not collect events in namespaces conformance-a, default: an empty answer there does not mean they had none\n"
	got, n := dropOutsideCollection(stderr, []string{"conformance-a", "conformance-b"})
	want := "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n" +
		"Warning: this support bundle did not collect events in namespaces conformance-a, default: an empty answer there does not mean they had none\n"
	if got != want || n != 2 {
		t.Errorf("dropped %d:\n%s", n, got)
	}
	if got, n := dropOutsideCollection(stderr, nil); got != stderr || n != 0 {
		t.Errorf("a collection of every namespace dropped %d", n)
	}
}

// A node's heartbeats move on while the gate runs: the lease's RenewTime
// and the conditions' LastHeartbeatTime of the live node may be later
// than the served ones, within the window; nothing else on the line may
// differ.
func TestTextHeartbeats(t *testing.T) {
	served := `Name:               kind-control-plane
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   Fri, 28 Nov 2026 07:00:10 +0000   Fri, 28 Nov 2026 06:50:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
  Ready            True    Fri, 28 Nov 2026 07:00:10 +0000   Fri, 28 Nov 2026 06:50:30 +0000   KubeletReady                 kubelet is posting ready status
Lease:
  HolderIdentity:  kind-control-plane
  RenewTime:       Fri, 28 Nov 2026 07:00:40 +0000
`
	live := strings.ReplaceAll(served, "07:00:10", "07:01:10")
	live = strings.Replace(live, "07:00:40", "07:01:20", 1)
	n := newNormalizer([]string{NormHeartbeats}, window{0, 2 * time.Minute}, window{})
	if l, s := n.text(live, served); l != s {
		t.Fatalf("not equal after normalization:\n%s\n%s", l, s)
	}
	if n.counts[NormHeartbeats] != 3 {
		t.Errorf("counts %v, want 3 heartbeats", n.counts)
	}
	for name, l := range map[string]string{
		"without the normalization": "",
		"a transition time moved":   strings.Replace(live, "06:50:30", "06:59:30", 1),
		"a status changed":          strings.Replace(live, "Ready            True ", "Ready            False", 1),
		"a live heartbeat earlier":  strings.Replace(served, "07:00:40", "07:00:30", 1),
		"past the window":           strings.Replace(served, "07:00:40", "07:04:00", 1),
	} {
		norm := []string{NormHeartbeats}
		if l == "" {
			l, norm = live, nil
		}
		if d := textDiff(newNormalizer(norm, window{0, 2 * time.Minute}, window{}), l, served); d == "" {
			t.Errorf("%s: forgiven", name)
		}
	}
}

// The Events of testdata/kind-report/1.37: a failing pull's BackOff and
// Failed, a crash loop's BackOff, that the kubelet recorded again between
// the collection (08:35:29) and the live query (08:36:00 to 08:36:10).
var (
	repeatsUntil = time.Date(2026, 11, 28, 8, 36, 10, 0, time.UTC)
	// get's ages, rendered by the server at the collection and at the query.
	repeatsAges = window{lo: 25 * time.Second, hi: 45 * time.Second}
	// kubectl events' and describe's, computed by each kubectl run.
	repeatsClient = window{lo: 0, hi: 3 * time.Second}
)

// aligned prints tab-separated rows as kubectl does: its printers with
// a padding of 3, describe with 2.
func aligned(padding int, rows ...string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, padding, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	w.Flush()
	return b.String()
}

// get-selector-not/events: kubectl get events, the server's table.
var getEvents = aligned(3,
	"LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE",
	"23m\tWarning\tFailed\tpod/web-8f86d9b9d-brscw\tError: ErrImagePull",
	"4m26s\tNormal\tBackOff\tpod/web-8f86d9b9d-brscw\tBack-off pulling image \"registry.example.com/shop/web:1.4.2\"",
	"4m26s\tWarning\tFailed\tpod/web-8f86d9b9d-brscw\tError: ImagePullBackOff",
	"22m\tNormal\tBackOff\tpod/web-8f86d9b9d-d8sql\tBack-off pulling image \"registry.example.com/shop/exporter:0.9\"",
)

// get-wide/events.events.k8s.io: with FIRST SEEN and COUNT.
func getEventsWide(lastSeen, firstSeen, count string) string {
	return aligned(3,
		"LAST SEEN\tTYPE\tREASON\tOBJECT\tSUBOBJECT\tSOURCE\tMESSAGE\tFIRST SEEN\tCOUNT\tNAME\tLABELS",
		"23m\tWarning\tFailed\tpod/web-8f86d9b9d-brscw\tspec.containers{web}\tkubelet, bundlectl-conformance-worker\tError: ErrImagePull\t24m\t4\tweb-8f86d9b9d-brscw.18ec27322782aaff\t<none>",
		lastSeen+"\tNormal\tBackOff\tpod/web-8f86d9b9d-brscw\tspec.containers{web}\tkubelet, bundlectl-conformance-worker\tBack-off pulling image \"registry.example.com/shop/web:1.4.2\"\t"+firstSeen+"\t"+count+"\tweb-8f86d9b9d-brscw.18ec27328a74aba0\t<none>",
		"22m\tNormal\tBackOff\tpod/web-8f86d9b9d-d8sql\tspec.containers{exporter}\tkubelet, bundlectl-conformance-worker\tBack-off pulling image \"registry.example.com/shop/exporter:0.9\"\t24m\t8\tweb-8f86d9b9d-d8sql.18ec27328d56f19d\t<none>",
	)
}

// events/conformance-run: kubectl events sorts by the last time, so the
// repeated events move to the end of the live output.
const crashloopBackOff = "Warning\tBackOff\tPod/crashloop\tBack-off restarting failed container worker in pod crashloop_conformance-run(8c2dc3b4-eb8b-418e-bffc-66708c4b1000)"

var (
	kubectlEventsServed = aligned(3,
		"LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE",
		"22m (x5 over 26m)\tNormal\tPulling\tPod/imagepull\tPulling image \"registry.bundlectl.invalid/shop/web:1.4.2\"",
		"8m31s (x9 over 25m)\tNormal\tStarted\tPod/crashloop\tContainer started",
		"5m38s (x86 over 25m)\tNormal\tBackOff\tPod/imagepull\tBack-off pulling image \"registry.bundlectl.invalid/shop/web:1.4.2\"",
		"5m26s (x87 over 25m)\tWarning\tFailed\tPod/imagepull\tError: ImagePullBackOff",
		"3m19s (x10 over 26m)\tNormal\tCreated\tPod/crashloop\tContainer created",
		"3m19s (x10 over 26m)\tNormal\tPulled\tPod/crashloop\tContainer image \"busybox:1.35.0\" already present on machine and can be accessed by the pod",
		"88s (x6 over 26m)\tWarning\tFailedScheduling\tPod/unschedulable\t0/7 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
		"70s (x24 over 25m)\t"+crashloopBackOff,
	)
	kubectlEventsLive = aligned(3,
		"LAST SEEN\tTYPE\tREASON\tOBJECT\tMESSAGE",
		"22m (x5 over 26m)\tNormal\tPulling\tPod/imagepull\tPulling image \"registry.bundlectl.invalid/shop/web:1.4.2\"",
		"8m31s (x9 over 25m)\tNormal\tStarted\tPod/crashloop\tContainer started",
		"3m20s (x10 over 26m)\tNormal\tCreated\tPod/crashloop\tContainer created",
		"3m20s (x10 over 26m)\tNormal\tPulled\tPod/crashloop\tContainer image \"busybox:1.35.0\" already present on machine and can be accessed by the pod",
		"89s (x6 over 26m)\tWarning\tFailedScheduling\tPod/unschedulable\t0/7 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
		"33s (x108 over 25m)\tWarning\tFailed\tPod/imagepull\tError: ImagePullBackOff",
		"33s (x108 over 25m)\tNormal\tBackOff\tPod/imagepull\tBack-off pulling image \"registry.bundlectl.invalid/shop/web:1.4.2\"",
		"8s (x25 over 25m)\t"+crashloopBackOff,
	)
)

// describe/pods/conformance-run/crashloop: describe's Events section; a
// scheduler event seen once prints the age of its first time.
func describeCrashloop(scheduled, backOff string) string {
	return aligned(2,
		"Name:\tcrashloop",
		"Namespace:\tconformance-run",
		"Events:",
		"  Type\tReason\tAge\tFrom\tMessage",
		"  ----\t------\t----\t----\t-------",
		"  Normal\tScheduled\t26m\tdefault-scheduler\tSuccessfully assigned conformance-run/crashloop to bundlectl-conformance-worker",
		"  Warning\tFailedMount\t"+scheduled+"\tkubelet\tMountVolume.SetUp failed for volume \"config\" : configmap \"crashloop\" not found",
		"  Normal\tPulled\t3m19s (x10 over 26m)\tkubelet\tspec.containers{worker}: Container image \"busybox:1.35.0\" already present on machine and can be accessed by the pod",
		"  Warning\tBackOff\t"+backOff+"\tkubelet\tspec.containers{worker}: Back-off restarting failed container worker in pod crashloop_conformance-run(8c2dc3b4-eb8b-418e-bffc-66708c4b1000)",
	)
}

// backOffEvent is web-8f86d9b9d-brscw's BackOff, at events.k8s.io/v1.
func backOffEvent(count int, last, rv, written string) map[string]any {
	return map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"deprecatedCount": count, "deprecatedFirstTimestamp": "2026-11-28T08:10:49Z", "deprecatedLastTimestamp": last,
		"deprecatedSource": map[string]any{"component": "kubelet", "host": "bundlectl-conformance-worker"},
		"eventTime":        nil,
		"metadata": map[string]any{
			"creationTimestamp": "2026-11-28T08:11:05Z",
			"managedFields": []any{map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubelet", "operation": "Update", "time": written,
				"fieldsV1": map[string]any{"f:count": map[string]any{}, "f:lastTimestamp": map[string]any{}}}},
			"name": "web-8f86d9b9d-brscw.18ec27328a74aba0", "namespace": "conformance-a", "resourceVersion": rv, "uid": "0a17a906-f6e3-4799-941e-c3cdd4a30c08",
		},
		"note": `Back-off pulling image "registry.example.com/shop/web:1.4.2"`, "reason": "BackOff", "type": "Normal",
		"regarding":           map[string]any{"apiVersion": "v1", "kind": "Pod", "name": "web-8f86d9b9d-brscw", "namespace": "conformance-a", "fieldPath": "spec.containers{web}"},
		"reportingController": "kubelet", "reportingInstance": "bundlectl-conformance-worker",
	}
}

var (
	servedBackOff = func() map[string]any { return backOffEvent(86, "2026-11-28T08:31:03Z", "4561", "2026-11-28T08:31:03Z") }
	liveBackOff   = func() map[string]any {
		return backOffEvent(107, "2026-11-28T08:35:59Z", "5024", "2026-11-28T08:35:59Z")
	}
)

// kubectlList prints objects as kubectl get -o json does.
func kubectlList(objs ...map[string]any) string {
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = o
	}
	b, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}, "", "    ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// with returns a copy of an event with one field, at a dotted path, set.
func with(obj map[string]any, path string, v any) map[string]any {
	b, _ := json.Marshal(obj)
	var out map[string]any
	json.Unmarshal(b, &out)
	m := out
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		if k == "managedFields" {
			m = m[k].([]any)[0].(map[string]any)
			continue
		}
		m = m[k].(map[string]any)
	}
	m[keys[len(keys)-1]] = v
	return out
}

// eventsTable is raw-table/events: the server's Table of core Events, a
// row of the legacy pod's BackOff.
func eventsTable(rv, lastSeen string, count int, written, objectRV string) string {
	col := func(name, typ string) map[string]any {
		return map[string]any{"name": name, "type": typ, "format": "", "description": name, "priority": 0}
	}
	t := map[string]any{
		"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": map[string]any{"resourceVersion": rv},
		"columnDefinitions": []any{col("Last Seen", "string"), col("Type", "string"), col("Reason", "string"), col("Object", "string"),
			col("Subobject", "string"), col("Source", "string"), col("Message", "string"), col("First Seen", "string"), col("Count", "integer"), col("Name", "string")},
		"rows": []any{map[string]any{
			"cells": []any{lastSeen, "Normal", "BackOff", "pod/legacy-mzchx", "spec.containers{app}", "kubelet, bundlectl-conformance-worker",
				`Back-off pulling image "registry.example.com/legacy/app:0.1"`, "24m", count, "legacy-mzchx.18ec27325b3fe9e9"},
			"object": map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": map[string]any{
				"creationTimestamp": "2026-11-28T08:11:05Z",
				"managedFields":     []any{map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubelet", "operation": "Update", "time": written}},
				"name":              "legacy-mzchx.18ec27325b3fe9e9", "namespace": "conformance-a", "resourceVersion": objectRV, "uid": "b9168b9f-9fc6-45f3-92c1-2cf92077b6ba",
			}},
		}},
	}
	b, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// The shapes of events the 1.37 kind gate reported, each forgiven as a
// repeat (and only with eventRepeats); and every change a repeat does not
// make, which stays a divergence.
func TestEventRepeats(t *testing.T) {
	servedTable := eventsTable("4700", "4m22s", 87, "2026-11-28T08:31:07Z", "4569")
	liveTable := eventsTable("4975", "4s", 109, "2026-11-28T08:36:06Z", "5044")
	coreYAML := func(count int, last, rv string) string {
		b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Event", "count": count, "firstTimestamp": "2026-11-28T08:10:49Z", "lastTimestamp": last,
			"involvedObject": map[string]any{"kind": "Pod", "name": "crashloop", "namespace": "conformance-run"},
			"message":        "Back-off restarting failed container worker", "reason": "BackOff", "type": "Warning",
			"metadata": map[string]any{"name": "crashloop.18ec273722e2d4cc", "namespace": "conformance-run", "resourceVersion": rv}})
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	scheduling := func(count int, observed string) map[string]any {
		e := with(servedBackOff(), "reason", "FailedScheduling")
		e["deprecatedCount"], e["deprecatedLastTimestamp"], e["eventTime"] = 0, nil, "2026-11-28T08:10:40.123456Z"
		if count > 0 {
			e["series"] = map[string]any{"count": count, "lastObservedTime": observed}
		}
		return e
	}
	for _, tc := range []struct {
		name         string
		live, served string
		body         bool // a raw request's JSON body, else kubectl's stdout
		norms        []string
		forgiven     bool
		repeats      int    // events (or tables reordered) eventRepeats counts
		diffHas      string // what the diff of a divergence shows
	}{
		{name: "get table", live: strings.ReplaceAll(getEvents, "4m26s", "1s   "), served: getEvents, norms: []string{NormAges}, forgiven: true, repeats: 2},
		{name: "get table: last seen older than the window allows", live: strings.ReplaceAll(getEvents, "4m26s", "5m20s"), served: getEvents, norms: []string{NormAges}},
		{name: "get table: a reason changed", live: strings.Replace(strings.ReplaceAll(getEvents, "4m26s", "1s   "), "BackOff ", "Pulling ", 1), served: getEvents, norms: []string{NormAges}},
		{name: "get table: a live row without a partner", live: getEvents + "1s          Normal    Pulling   pod/web-8f86d9b9d-brscw   Pulling image\n", served: getEvents, norms: []string{NormAges}},
		{name: "get table: a served row without a partner", live: strings.Join(lines(getEvents)[:4], "\n") + "\n", served: getEvents, norms: []string{NormAges}},

		{name: "get -o wide", live: getEventsWide("1s", "25m", "107"), served: getEventsWide("4m26s", "24m", "86"), norms: []string{NormAges}, forgiven: true, repeats: 1},
		{name: "get -o wide: count went down", live: getEventsWide("1s", "25m", "85"), served: getEventsWide("4m26s", "24m", "86"), norms: []string{NormAges}},
		{name: "get -o wide: seen again without a higher count", live: getEventsWide("1s", "25m", "86"), served: getEventsWide("4m26s", "24m", "86"), norms: []string{NormAges}},
		{name: "get -o wide: first seen moved back", live: getEventsWide("1s", "20m", "107"), served: getEventsWide("4m26s", "24m", "86"), norms: []string{NormAges}},

		{name: "get -o json", live: kubectlList(liveBackOff()), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}, forgiven: true, repeats: 1},
		{name: "get -o json: count went down", live: kubectlList(with(liveBackOff(), "deprecatedCount", 85)), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: last time moved back", live: kubectlList(with(liveBackOff(), "deprecatedLastTimestamp", "2026-11-28T08:30:00Z")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: last time after the live run", live: kubectlList(with(liveBackOff(), "deprecatedLastTimestamp", "2026-11-28T08:37:00Z")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: written after the live run", live: kubectlList(with(liveBackOff(), "metadata.managedFields.time", "2026-11-28T08:37:00Z")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: another note", live: kubectlList(with(liveBackOff(), "note", "Error: ImagePullBackOff")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: another object", live: kubectlList(with(liveBackOff(), "regarding.name", "web-8f86d9b9d-d8sql")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: another event in its place", live: kubectlList(with(liveBackOff(), "metadata.uid", "1dc1eeaf-49d2-4df0-ba84-ea8cdc337390")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: written again, count unchanged", live: kubectlList(with(servedBackOff(), "metadata.resourceVersion", "5024")), served: kubectlList(servedBackOff()), norms: []string{NormResourceVersion}},
		{name: "get -o json: a series counted on", live: kubectlList(scheduling(7, "2026-11-28T08:35:41.500000Z")), served: kubectlList(scheduling(6, "2026-11-28T08:34:41.250000Z")), norms: []string{NormResourceVersion}, forgiven: true, repeats: 1},
		{name: "get -o json: a singleton's series started", live: kubectlList(scheduling(2, "2026-11-28T08:35:41.500000Z")), served: kubectlList(scheduling(0, "")), norms: []string{NormResourceVersion}, forgiven: true, repeats: 1},
		{name: "get -o json: a series counted back", live: kubectlList(scheduling(5, "2026-11-28T08:35:41.500000Z")), served: kubectlList(scheduling(6, "2026-11-28T08:34:41.250000Z")), norms: []string{NormResourceVersion}},
		{name: "get -o yaml", live: coreYAML(25, "2026-11-28T08:36:02Z", "5031"), served: coreYAML(24, "2026-11-28T08:34:50Z", "4711"), forgiven: true, repeats: 1},
		{name: "get -o yaml: count went down", live: coreYAML(23, "2026-11-28T08:36:02Z", "5031"), served: coreYAML(24, "2026-11-28T08:34:50Z", "4711")},

		{name: "raw Table", live: liveTable, served: servedTable, body: true, norms: []string{NormAges, NormResourceVersion}, forgiven: true, repeats: 1},
		{name: "raw Table: count went down", live: eventsTable("4975", "4s", 86, "2026-11-28T08:36:06Z", "5044"), served: servedTable, body: true, norms: []string{NormAges, NormResourceVersion}},
		{name: "raw Table: last seen older", live: eventsTable("4975", "5m30s", 109, "2026-11-28T08:36:06Z", "5044"), served: servedTable, body: true, norms: []string{NormAges, NormResourceVersion}},
		{name: "raw Table: written after the live run", live: eventsTable("4975", "4s", 109, "2026-11-28T08:40:06Z", "5044"), served: servedTable, body: true, norms: []string{NormAges, NormResourceVersion}},
		{name: "raw Table: another event in its place", live: strings.Replace(liveTable, "legacy-mzchx.18ec27325b3fe9e9", "legacy-mzchx.18ec27325b41ce9d", -1), served: servedTable, body: true, norms: []string{NormAges, NormResourceVersion}, diffHas: `s"109"`},
		{name: "raw Table: another reason", live: strings.Replace(liveTable, `"BackOff"`, `"Pulling"`, 1), served: servedTable, body: true, norms: []string{NormAges, NormResourceVersion}},

		{name: "kubectl events, reordered", live: kubectlEventsLive, served: kubectlEventsServed, norms: []string{NormClientAges}, forgiven: true, repeats: 4},
		{name: "kubectl events: count went down", live: strings.Replace(kubectlEventsLive, "x25 over", "x23 over", 1), served: kubectlEventsServed, norms: []string{NormClientAges}},
		{name: "kubectl events: over age moved", live: strings.Replace(kubectlEventsLive, "8s (x25 over 25m)", "8s (x25 over 40m)", 1), served: kubectlEventsServed, norms: []string{NormClientAges}},
		{name: "kubectl events: a type changed", live: strings.Replace(kubectlEventsLive, "Warning   BackOff", "Normal    BackOff", 1), served: kubectlEventsServed, norms: []string{NormClientAges}},
		{name: "kubectl events: a row missing", live: strings.Replace(kubectlEventsLive, lines(kubectlEventsLive)[3]+"\n", "", 1), served: kubectlEventsServed, norms: []string{NormClientAges}},

		{name: "describe", live: describeCrashloop("26m", "8s (x25 over 25m)"), served: describeCrashloop("26m", "70s (x24 over 25m)"), norms: []string{NormClientAges}, forgiven: true, repeats: 1},
		{name: "describe: an event seen once, seen again", live: describeCrashloop("3s (x2 over 26m)", "70s (x24 over 25m)"), served: describeCrashloop("26m", "70s (x24 over 25m)"), norms: []string{NormClientAges}, forgiven: true, repeats: 1},
		{name: "describe: an event seen once, younger", live: describeCrashloop("3s", "70s (x24 over 25m)"), served: describeCrashloop("26m", "70s (x24 over 25m)"), norms: []string{NormClientAges}},
		{name: "describe: seen again, its last time moved back", live: describeCrashloop("26m", "2m (x25 over 25m)"), served: describeCrashloop("26m", "70s (x24 over 25m)"), norms: []string{NormClientAges}},
		{name: "describe: another section reordered", live: strings.Replace(describeCrashloop("26m", "70s (x24 over 25m)"), "Name:       crashloop\nNamespace:  conformance-run", "Namespace:  conformance-run\nName:       crashloop", 1), served: describeCrashloop("26m", "70s (x24 over 25m)"), norms: []string{NormClientAges}},

		{name: "not an event: a pod's restarts", live: "NAME        READY   STATUS             RESTARTS      AGE\ncrashloop   0/1     CrashLoopBackOff   25 (8s ago)   26m\n", served: "NAME        READY   STATUS             RESTARTS       AGE\ncrashloop   0/1     CrashLoopBackOff   24 (70s ago)   26m\n", norms: []string{NormAges}},
		{name: "not an event: pods reordered", live: "NAME   READY\nb      1/1\na      1/1\n", served: "NAME   READY\na      1/1\nb      1/1\n", norms: []string{NormAges}},
		{name: "not an event: a pod written again", live: kubectlList(with(with(servedBackOff(), "kind", "Pod"), "metadata.resourceVersion", "5024")), served: kubectlList(with(servedBackOff(), "kind", "Pod")), norms: []string{NormResourceVersion}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Case{Compare: []string{"stdout"}}
			live, served := Output{Stdout: tc.live}, Output{Stdout: tc.served}
			if tc.body {
				c.Compare = []string{"body"}
				live = Output{Status: 200, ContentType: "application/json", Body: []byte(tc.live)}
				served = Output{Status: 200, ContentType: "application/json", Body: []byte(tc.served)}
			}
			c.Normalize = append(tc.norms, NormEventRepeats)
			divs, counts := compareOutputs(c, live, served, repeatsAges, repeatsClient, repeatsUntil)
			if !tc.forgiven {
				if len(divs) == 0 {
					t.Fatalf("forgiven (%v)", counts)
				}
				if !strings.Contains(divs[0].Diff, tc.diffHas) {
					t.Errorf("the diff does not show %s:\n%s", tc.diffHas, divs[0].Diff)
				}
				return
			}
			if len(divs) != 0 {
				t.Fatalf("not forgiven (%v):\n%s", counts, divs[0].Diff)
			}
			if counts[NormEventRepeats] != tc.repeats {
				t.Errorf("counts %v, want %d eventRepeats", counts, tc.repeats)
			}
			c.Normalize = tc.norms
			if divs, counts := compareOutputs(c, live, served, repeatsAges, repeatsClient, repeatsUntil); len(divs) == 0 {
				t.Errorf("forgiven without eventRepeats (%v)", counts)
			}
		})
	}
}

// Gate A: the server's table of events at events.k8s.io/v1, which the
// collector had to take at a later revision than the core list the
// upgrade converted (table/_meta/converted/events.k8s.io.v1.events/
// conformance-a): the server's event counts one more, was written later.
func TestEventRepeatsGateA(t *testing.T) {
	table := func(rv string, count int, written, objectRV string) string {
		return strings.NewReplacer(`"4700"`, `"`+rv+`"`).Replace(eventsTableOf(count, written, objectRV))
	}
	server := table("2133", 6, "2026-11-28T08:11:51Z", "2130")
	synth := table("2126", 5, "2026-11-28T08:11:50Z", "2124")
	converted := gateANormalizations(ResourceRule{Normalize: []string{NormEventRepeats}}, true)
	compare := func(norms []string, server, synth string) ([]Divergence, map[string]int) {
		n := newNormalizer(append(norms, NormAges, NormResourceVersion), window{0, time.Second}, window{})
		n.until = time.Date(2026, 11, 28, 8, 12, 30, 0, time.UTC)
		d, err := compareTables([]byte(server), []byte(synth), n)
		if err != nil {
			t.Fatal(err)
		}
		return d, n.counts
	}
	if d, counts := compare(converted, server, synth); len(d) != 0 || counts[NormEventRepeats] != 1 {
		t.Errorf("converted: %v %+v", counts, d)
	}
	// The upgrade's list may be the later one: its events are then ahead.
	if d, _ := compare(converted, table("2126", 5, "2026-11-28T08:11:50Z", "2124"), table("2133", 6, "2026-11-28T08:11:51Z", "2130")); len(d) != 0 {
		t.Errorf("converted, the upgrade's later: %+v", d)
	}
	for name, tc := range map[string]struct {
		norms         []string
		server, synth string
	}{
		// A plain table is rendered from the list the upgrade reads: a
		// transform that printed a lower count must fail.
		"a plain table":                        {gateANormalizations(ResourceRule{Normalize: []string{NormEventRepeats}}, false), server, synth},
		"the server's earlier but counts more": {converted, table("2120", 6, "2026-11-28T08:11:51Z", "2130"), synth},
		"the same revision":                    {converted, table("2126", 6, "2026-11-28T08:11:51Z", "2130"), synth},
	} {
		if d, _ := compare(tc.norms, tc.server, tc.synth); len(d) == 0 {
			t.Errorf("%s: forgiven", name)
		}
	}
}

// eventsTableOf is Gate A's converted events table: its revision is 4700.
func eventsTableOf(count int, written, objectRV string) string {
	return strings.Replace(eventsTable("4700", "1s", count, written, objectRV), `"24m"`, `"37s"`, 1)
}

// Gate A's converted lists (converted/events.k8s.io.v1.events/
// conformance-a): the server's, read at a later revision, counts one
// more; the later list may only be ahead.
func TestEventRepeatsConvertedLists(t *testing.T) {
	item := func(count int, written, rv string) any {
		e := backOffEvent(count, "2026-11-28T08:11:50Z", rv, written)
		delete(e, "kind")
		delete(e, "apiVersion")
		return decode(t, kubectlList(e)).(map[string]any)["items"].([]any)[0]
	}
	for name, tc := range map[string]struct {
		server, synth convertedList
		forgiven      bool
	}{
		"the server's later":    {convertedList{[]any{item(6, "2026-11-28T08:11:51Z", "2130")}, "2133"}, convertedList{[]any{item(5, "2026-11-28T08:11:50Z", "2124")}, "2126"}, true},
		"the upgrade's later":   {convertedList{[]any{item(5, "2026-11-28T08:11:50Z", "2124")}, "2126"}, convertedList{[]any{item(6, "2026-11-28T08:11:51Z", "2130")}, "2133"}, true},
		"the earlier ahead":     {convertedList{[]any{item(6, "2026-11-28T08:11:51Z", "2130")}, "2120"}, convertedList{[]any{item(5, "2026-11-28T08:11:50Z", "2124")}, "2126"}, false},
		"the same revision":     {convertedList{[]any{item(6, "2026-11-28T08:11:51Z", "2130")}, "2126"}, convertedList{[]any{item(5, "2026-11-28T08:11:50Z", "2124")}, "2126"}, false},
		"a revision not etcd's": {convertedList{[]any{item(6, "2026-11-28T08:11:51Z", "2130")}, "a"}, convertedList{[]any{item(5, "2026-11-28T08:11:50Z", "2124")}, "2126"}, false},
	} {
		n := newNormalizer([]string{NormEventRepeats}, window{}, window{})
		n.until = time.Date(2026, 11, 28, 8, 12, 30, 0, time.UTC)
		n.forgiveConverted(tc.server, tc.synth)
		if d := cmp.Diff(tc.server.items, tc.synth.items); (d == "") != tc.forgiven {
			t.Errorf("%s: forgiven %v, want %v:\n%s", name, d == "", tc.forgiven, d)
		}
	}
}
