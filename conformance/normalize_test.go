package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	divs, counts := compareOutputs(c, live, served, window{0, 2 * time.Minute}, window{})
	if len(divs) != 1 || divs[0].Output != "stderr" || counts[NormAges] != 1 {
		t.Fatalf("got %+v %v", divs, counts)
	}
	divs, _ = compareOutputs(c, Output{ExitCode: 1}, Output{}, window{}, window{})
	if len(divs) != 1 || divs[0].Output != "exitCode" {
		t.Fatalf("got %+v", divs)
	}
	r := Case{Compare: []string{"status", "contentType", "body"}}
	divs, _ = compareOutputs(r,
		Output{Status: 404, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found\n")},
		Output{Status: 404, ContentType: "application/json", Body: []byte(`{"kind":"Status"}`)}, window{}, window{})
	if len(divs) != 2 || divs[0].Output != "contentType" || divs[1].Output != "body" {
		t.Fatalf("got %+v", divs)
	}
	// JSON bodies compare as documents: spacing and key order do not matter.
	divs, _ = compareOutputs(r,
		Output{Status: 200, ContentType: "application/json", Body: []byte("{\n  \"b\": 1,\n  \"a\": [1, 2]\n}")},
		Output{Status: 200, ContentType: "application/json", Body: []byte(`{"a":[1,2],"b":1}`)}, window{}, window{})
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
	divs, _ := compareOutputs(Case{Compare: []string{"stdout"}, Normalize: []string{NormAges}}, Output{Stdout: out}, Output{Stdout: out}, ages, window{})
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
