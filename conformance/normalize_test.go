package conformance

import (
	"strings"
	"testing"
	"time"
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
	n := newNormalizer([]string{NormAges}, 150*time.Second)
	l, s := n.text(live, served)
	if l != s {
		t.Fatalf("not equal after normalization:\n%s\n%s", l, s)
	}
	if n.counts[NormAges] != 2 {
		t.Errorf("counts %v, want 2 ages", n.counts)
	}

	// Anything else that changed is left for the diff.
	live2 := strings.Replace(live, "Running ", "Pending ", 1)
	if d := textDiff(newNormalizer([]string{NormAges}, 150*time.Second), live2, served); !strings.Contains(d, "Pend") || changedLine(d, "crashloop") {
		t.Errorf("diff should show the web-ready line only:\n%s", d)
	}

	// Without the normalization, or with too little time elapsed, the
	// ages are divergences.
	if d := textDiff(newNormalizer(nil, time.Hour), live, served); d == "" {
		t.Error("ages forgiven without the normalization")
	}
	if d := textDiff(newNormalizer([]string{NormAges}, 100*time.Second), live, served); d == "" {
		t.Error("ages 137s ahead forgiven when only 100s elapsed")
	}
	// A served age ahead of the live one is never forgiven.
	if d := textDiff(newNormalizer([]string{NormAges}, time.Hour), served, live); d == "" {
		t.Error("a live age behind the served one was forgiven")
	}
}

func TestTextDescribeIndentation(t *testing.T) {
	live := "Events:\n  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n  Normal  Pulled   11s   kubelet  pulled\n"
	served := "Events:\n  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n  Normal  Pulled   10s   kubelet  pulled\n"
	if d := textDiff(newNormalizer([]string{NormAges}, 5*time.Second), live, served); d != "" {
		t.Errorf("diff:\n%s", d)
	}
	// Indentation is structure: a line moved out of its section differs.
	moved := strings.Replace(live, "  Normal", "Normal", 1)
	if d := textDiff(newNormalizer([]string{NormAges}, 5*time.Second), moved, served); d == "" {
		t.Error("a change of indentation was forgiven")
	}
}

func TestKlogPrefix(t *testing.T) {
	live := "E1123 07:01:09.123456   12345 memcache.go:265] couldn't get current server API group list\n"
	served := "E1123 07:01:10.654321   99 memcache.go:265] couldn't get current server API group list\n"
	n := newNormalizer([]string{NormKlogPrefix}, 0)
	if l, s := n.text(live, served); l != s || n.counts[NormKlogPrefix] != 2 {
		t.Errorf("got %q %q %v", l, s, n.counts)
	}
	other := "E1123 07:01:10.654321   99 cached_discovery.go:88] couldn't get current server API group list\n"
	if d := textDiff(newNormalizer([]string{NormKlogPrefix}, 0), live, other); d == "" {
		t.Error("a different source line was forgiven")
	}
}

func TestUnorderedRowsText(t *testing.T) {
	live := "NAME                 STATUS\nscheduler            Unhealthy\ncontroller-manager   Unhealthy\netcd-0               Healthy\n"
	served := "NAME                 STATUS\netcd-0               Healthy\nscheduler            Unhealthy\ncontroller-manager   Unhealthy\n"
	n := newNormalizer([]string{NormUnorderedRows}, 0)
	if l, s := n.text(live, served); l != s || n.counts[NormUnorderedRows] != 1 {
		t.Errorf("got\n%s\n%s\n%v", l, s, n.counts)
	}
	// -o name has no header: every line is a row.
	n = newNormalizer([]string{NormUnorderedRows}, 0)
	if l, s := n.text("componentstatus/scheduler\ncomponentstatus/etcd-0\n", "componentstatus/etcd-0\ncomponentstatus/scheduler\n"); l != s {
		t.Errorf("got\n%s\n%s", l, s)
	}
	// A row that differs still differs.
	if d := textDiff(newNormalizer([]string{NormUnorderedRows}, 0), live, strings.Replace(served, "Healthy\n", "Unhealthy\n", 1)); d == "" {
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
	n := newNormalizer([]string{NormResourceVersion}, 0)
	n.json(live, served)
	if d := cmpDiff(live, served); d != "" || n.counts[NormResourceVersion] != 1 {
		t.Errorf("list revision not forgiven (%v):\n%s", n.counts, d)
	}
	// An object's resourceVersion is never forgiven: on a cluster that
	// does not change, the served object must be the live one.
	live = decode(t, `{"kind":"PodList","metadata":{"resourceVersion":"900"},"items":[{"metadata":{"name":"a","resourceVersion":"13"}}]}`)
	served = decode(t, `{"kind":"PodList","metadata":{"resourceVersion":"528"},"items":[{"metadata":{"name":"a","resourceVersion":"12"}}]}`)
	n = newNormalizer([]string{NormResourceVersion}, 0)
	n.json(live, served)
	if d := cmpDiff(live, served); !strings.Contains(d, `"13"`) {
		t.Errorf("an object's resourceVersion was forgiven:\n%s", d)
	}
	// A Table's revision moves the same way.
	live = decode(t, `{"kind":"Table","metadata":{"resourceVersion":"900"},"rows":[]}`)
	served = decode(t, `{"kind":"Table","metadata":{"resourceVersion":"528"},"rows":[]}`)
	n = newNormalizer([]string{NormResourceVersion}, 0)
	n.json(live, served)
	if d := cmpDiff(live, served); d != "" {
		t.Errorf("table revision not forgiven:\n%s", d)
	}
}

func TestJSONManagedFieldsTimeAndAges(t *testing.T) {
	live := decode(t, `{"kind":"Table","rows":[{"cells":["web","2m19s"],"object":{"metadata":{"name":"web","managedFields":[{"manager":"kubectl","time":"2026-11-23T07:00:00Z"}]}}}]}`)
	served := decode(t, `{"kind":"Table","rows":[{"cells":["web","2s"],"object":{"metadata":{"name":"web","managedFields":[{"manager":"kubectl","time":"2026-11-23T06:00:00Z"}]}}}]}`)
	n := newNormalizer([]string{NormManagedFieldsTime, NormAges}, 3*time.Minute)
	n.json(live, served)
	if d := cmpDiff(live, served); d != "" || n.counts[NormManagedFieldsTime] != 1 || n.counts[NormAges] != 1 {
		t.Errorf("counts %v, diff:\n%s", n.counts, d)
	}
	// A manager that changed is not a time.
	live = decode(t, `{"metadata":{"managedFields":[{"manager":"kubectl","time":"2026-11-23T07:00:00Z"}]}}`)
	served = decode(t, `{"metadata":{"managedFields":[{"manager":"helm","time":"2026-11-23T06:00:00Z"}]}}`)
	n = newNormalizer([]string{NormManagedFieldsTime}, 0)
	n.json(live, served)
	if d := cmpDiff(live, served); !changedLine(d, "helm") || changedLine(d, "time") {
		t.Errorf("diff:\n%s", d)
	}
}

func TestJSONUnorderedItems(t *testing.T) {
	live := decode(t, `{"kind":"ComponentStatusList","items":[{"metadata":{"name":"scheduler"}},{"metadata":{"name":"etcd-0"}}]}`)
	served := decode(t, `{"kind":"ComponentStatusList","items":[{"metadata":{"name":"etcd-0"}},{"metadata":{"name":"scheduler"}}]}`)
	n := newNormalizer([]string{NormUnorderedRows}, 0)
	n.json(live, served)
	if d := cmpDiff(live, served); d != "" || n.counts[NormUnorderedRows] != 1 {
		t.Errorf("counts %v, diff:\n%s", n.counts, d)
	}
}

func TestCompareOutputs(t *testing.T) {
	c := Case{Compare: []string{"stdout", "stderr", "exitCode"}, Normalize: []string{NormAges}}
	live := Output{Stdout: "NAME   AGE\nweb    10m\n", Stderr: "Warning: v1 Endpoints is deprecated in v1.33+\n"}
	served := Output{Stdout: "NAME   AGE\nweb    9m\n", ExitCode: 0}
	divs, counts := compareOutputs(c, live, served, 2*time.Minute)
	if len(divs) != 1 || divs[0].Output != "stderr" || counts[NormAges] != 1 {
		t.Fatalf("got %+v %v", divs, counts)
	}
	divs, _ = compareOutputs(c, Output{ExitCode: 1}, Output{}, 0)
	if len(divs) != 1 || divs[0].Output != "exitCode" {
		t.Fatalf("got %+v", divs)
	}
	r := Case{Compare: []string{"status", "contentType", "body"}}
	divs, _ = compareOutputs(r,
		Output{Status: 404, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found\n")},
		Output{Status: 404, ContentType: "application/json", Body: []byte(`{"kind":"Status"}`)}, 0)
	if len(divs) != 2 || divs[0].Output != "contentType" || divs[1].Output != "body" {
		t.Fatalf("got %+v", divs)
	}
	// JSON bodies compare as documents: spacing and key order do not matter.
	divs, _ = compareOutputs(r,
		Output{Status: 200, ContentType: "application/json", Body: []byte("{\n  \"b\": 1,\n  \"a\": [1, 2]\n}")},
		Output{Status: 200, ContentType: "application/json", Body: []byte(`{"a":[1,2],"b":1}`)}, 0)
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
