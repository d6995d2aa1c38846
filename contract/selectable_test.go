package contract_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

func obj(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func builtin(t *testing.T, g, v, r string) contract.FieldSet {
	t.Helper()
	return builtinAt(t, 0, g, v, r)
}

func builtinAt(t *testing.T, minor int, g, v, r string) contract.FieldSet {
	t.Helper()
	fs, ok := contract.BuiltinFieldSet(schema.GroupVersionResource{Group: g, Version: v, Resource: r}, minor)
	if !ok {
		t.Fatalf("no field set for %s/%s %s", g, v, r)
	}
	return fs
}

func TestFieldSetMessages(t *testing.T) {
	cases := []struct {
		fs   contract.FieldSet
		sel  string
		want string
	}{
		{builtin(t, "", "v1", "pods"), "spec.nodeName=a,spec.nope=x,other=y", "field label not supported: other"}, // fields.ParseSelector sorts terms
		{builtin(t, "", "v1", "pods"), "spec.host=a,status.podIPs=x", ""},
		{builtin(t, "", "v1", "nodes"), "metadata.namespace=x", "field label not supported: metadata.namespace"},
		{builtin(t, "batch", "v1", "jobs"), "status.active=1", `field label "status.active" not supported for Job`},
		{builtin(t, "resource.k8s.io", "v1", "resourceslices"), "spec.pool=x", "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool"},
		{builtin(t, "resource.k8s.io", "v1", "resourceslices"), "spec.pool.name=x", ""},
		{builtin(t, "", "v1", "services"), "spec.type=ClusterIP", ""},
		{contract.DefaultFieldSet(true), "status.replicas=1", `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{contract.DefaultFieldSet(false), "metadata.namespace=x", ""},
		{contract.CustomResourceFieldSet(false, []string{".spec.color"}), "metadata.namespace=x", "field label not supported: metadata.namespace"},
		{contract.CustomResourceFieldSet(true, []string{".spec.color"}), "spec.color=red,metadata.namespace=x", ""},
	}
	for _, c := range cases {
		sel, err := fields.ParseSelector(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.fs.Validate(sel); got != c.want {
			t.Errorf("%s: %q, want %q", c.sel, got, c.want)
		}
	}
}

func TestFieldValuesAsTheServerFormatsThem(t *testing.T) {
	pods := builtin(t, "", "v1", "pods")
	hostPod := obj(t, `{"metadata":{"name":"a","namespace":"ns"},"spec":{"nodeName":"n1","hostNetwork":true},"status":{"podIPs":[{"ip":"10.0.0.9"}]}}`)
	plainPod := obj(t, `{"metadata":{"name":"b","namespace":"ns"},"spec":{},"status":{"podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.2"}]}}`)
	for _, c := range []struct {
		o     map[string]interface{}
		label string
		want  string
	}{
		{hostPod, "spec.hostNetwork", "true"},
		{plainPod, "spec.hostNetwork", "false"},
		{hostPod, "spec.host", "n1"},
		{hostPod, "status.podIP", "10.0.0.9"},
		{plainPod, "status.podIP", "10.0.0.1"},
		{plainPod, "status.podIPs", ""},
		{plainPod, "metadata.namespace", "ns"},
	} {
		if got, ok := pods.FieldValue(c.o, c.label); !ok || got != c.want {
			t.Errorf("pod %s: %q %v, want %q", c.label, got, ok, c.want)
		}
	}
	events := builtin(t, "", "v1", "events")
	if v, _ := events.FieldValue(obj(t, `{"metadata":{"name":"e"},"reportingComponent":"kubelet","source":{}}`), "source"); v != "kubelet" {
		t.Errorf("event source fallback = %q", v)
	}
	if v, _ := events.FieldValue(obj(t, `{"metadata":{"name":"e"},"reportingComponent":"x","source":{"component":"sched"}}`), "source"); v != "sched" {
		t.Errorf("event source = %q", v)
	}
	jobs := builtin(t, "batch", "v1", "jobs")
	if v, _ := jobs.FieldValue(obj(t, `{"metadata":{"name":"j"},"status":{"succeeded":3}}`), "status.successful"); v != "3" {
		t.Errorf("job status.successful = %q", v)
	}
	if v, _ := jobs.FieldValue(obj(t, `{"metadata":{"name":"j"},"status":{}}`), "status.successful"); v != "0" {
		t.Errorf("job without successes = %q", v)
	}
	if v, _ := contract.DefaultFieldSet(false).FieldValue(obj(t, `{"metadata":{"name":"pv","namespace":"stray"}}`), "metadata.namespace"); v != "" {
		t.Errorf("cluster-scoped metadata.namespace = %q, want \"\"", v)
	}
}

func TestFieldSetMatches(t *testing.T) {
	pods := builtin(t, "", "v1", "pods")
	running := obj(t, `{"metadata":{"name":"a","namespace":"ns"},"status":{"phase":"Running"}}`)
	for sel, want := range map[string]bool{
		"status.phase=Running":                       true,
		"status.phase==Running":                      true,
		"status.phase!=Running":                      false,
		"status.phase!=Failed,metadata.namespace=ns": true,
		"spec.nodeName=":                             true,
		"spec.nodeName!=":                            false,
	} {
		s, err := fields.ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := pods.Matches(running, s); got != want {
			t.Errorf("%s: %v, want %v", sel, got, want)
		}
	}
}

func TestDiscoveredFieldSet(t *testing.T) {
	labels, err := contract.ParseSelectableFieldsFile([]byte(`["metadata.name","spec.nodeName","spec.newField"]`))
	if err != nil {
		t.Fatal(err)
	}
	fs := contract.DiscoveredFieldSet(labels, builtin(t, "", "v1", "pods"))
	sel, _ := fields.ParseSelector("status.phase=Running")
	if msg := fs.Validate(sel); msg != "field label not supported: status.phase" {
		t.Errorf("the bundle's list is authoritative: %q", msg)
	}
	if v, ok := fs.FieldValue(obj(t, `{"spec":{"newField":"x"}}`), "spec.newField"); !ok || v != "x" {
		t.Errorf("unknown label falls back to its own path: %q %v", v, ok)
	}
	for _, bad := range []string{`{"a":1}`, `["",""]`, `nope`} {
		if _, err := contract.ParseSelectableFieldsFile([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// TestFieldSetsPerMinor holds the differences of older releases' field
// label conversions (each release's pkg/apis/*/*/conversion.go and
// pkg/registry/**/strategy.go) to what their servers answered.
func TestFieldSetsPerMinor(t *testing.T) {
	cases := []struct {
		minor     int
		g, v, r   string
		sel, want string
	}{
		// Services had no conversion of their own before 1.31 (the 1.24 server's answer, live).
		{30, "", "v1", "services", "spec.type=ClusterIP", `"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{31, "", "v1", "services", "spec.type=ClusterIP", ""},
		{27, "", "v1", "pods", "spec.hostNetwork=true", "field label not supported: spec.hostNetwork"},
		{28, "", "v1", "pods", "spec.hostNetwork=true", ""},
		{20, "batch", "v1", "jobs", "status.active=1", `field label "status.active" not supported for batchv1.Job`},
		{21, "batch", "v1", "jobs", "status.active=1", `field label "status.active" not supported for Job`},
		{12, "batch", "v1", "jobs", "status.active=1", `field label "status.active" not supported for batchv1.Job`}, // older than 1.20: 1.20's
		{36, "resource.k8s.io", "v1", "resourceslices", "spec.pool.name=x", "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool.name"},
		{33, "resource.k8s.io", "v1alpha3", "resourceslices", "spec.driver=x", ""},
		{30, "resource.k8s.io", "v1alpha2", "resourceslices", "spec.driver=x", "field label not supported for resource.k8s.io/v1alpha2, Kind=ResourceSlice: spec.driver"},
		{30, "resource.k8s.io", "v1alpha2", "resourceslices", "driverName=x", ""},
		{24, "batch", "v1beta1", "cronjobs", "spec.schedule=x", `field label "spec.schedule" not supported for "CronJob"`},
		{24, "batch", "v1beta1", "cronjobs", "status.successful=1", ""},
		{24, "events.k8s.io", "v1beta1", "events", "regarding.kind=Pod", ""},
		{99, "", "v1", "services", "spec.type=ClusterIP", ""}, // newer than the pin: the pin's
	}
	for _, c := range cases {
		var fs contract.FieldSet
		if c.g == "" && c.r == "services" && c.minor < 31 {
			if _, ok := contract.BuiltinFieldSet(schema.GroupVersionResource{Version: "v1", Resource: "services"}, c.minor); ok {
				t.Errorf("1.%d: services have a field set of their own", c.minor)
			}
			fs = contract.DefaultFieldSet(true)
		} else {
			fs = builtinAt(t, c.minor, c.g, c.v, c.r)
		}
		sel, err := fields.ParseSelector(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := fs.Validate(sel); got != c.want {
			t.Errorf("1.%d %s/%s %s %s: %q, want %q", c.minor, c.g, c.v, c.r, c.sel, got, c.want)
		}
	}
	cron := builtinAt(t, 24, "batch", "v1beta1", "cronjobs")
	if v, ok := cron.FieldValue(obj(t, `{"metadata":{"name":"c"},"status":{"succeeded":1}}`), "status.successful"); !ok || v != "" {
		t.Errorf("CronJob status.successful = %q %v, want \"\" (not in its registry's set)", v, ok)
	}
}

func TestBuiltinFieldLabelsSpanReleases(t *testing.T) {
	got := contract.BuiltinFieldLabels(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	want := map[string]bool{"spec.hostNetwork": true, "spec.host": true, "status.podIPs": true}
	for _, l := range got {
		delete(want, l)
	}
	if len(want) != 0 {
		t.Errorf("pods labels %v lack %v", got, want)
	}
	if got := contract.BuiltinFieldLabels(schema.GroupVersionResource{Group: "batch", Version: "v1beta1", Resource: "cronjobs"}); len(got) != 3 {
		t.Errorf("cronjobs v1beta1 labels %v", got)
	}
}
