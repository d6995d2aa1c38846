package conformance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// imagePullPod is a pod of the kind gate's 1.37 report (raw-list/pods of
// conformance-a) whose image pull the kubelet kept retrying: the served
// one as collected, ErrImagePull; the live one written again since.
func imagePullPod(rv, statusTime, reason string) map[string]any {
	message := `failed to pull and unpack image "registry.example.com/legacy/app:0.1": failed to resolve reference`
	if reason == "ImagePullBackOff" {
		message = `Back-off pulling image "registry.example.com/legacy/app:0.1": ErrImagePull: ` + message
	}
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata": map[string]any{
			"name": "legacy-qj9b7", "namespace": "conformance-a", "uid": "2aae15ea-3fcd-409b-a6bb-f8f495d38345",
			"resourceVersion": rv,
			"labels":          map[string]any{"app": "legacy"},
			"managedFields": []any{
				map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{}},
					"manager": "kube-controller-manager", "operation": "Update", "time": "2026-11-28T11:54:44Z"},
				map[string]any{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:status": map[string]any{}},
					"manager": "kubelet", "operation": "Update", "subresource": "status", "time": statusTime},
			},
		},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "legacy", "image": "registry.example.com/legacy/app:0.1"}}},
		"status": map[string]any{
			"phase": "Pending",
			"containerStatuses": []any{map[string]any{"name": "legacy", "restartCount": 0, "ready": false,
				"state": map[string]any{"waiting": map[string]any{"reason": reason, "message": message}}}},
		},
	}
}

// set returns a copy of obj with the value at a dotted path set (an index
// of a list as a number: "metadata.managedFields.0.manager").
func set(obj map[string]any, path string, v any) map[string]any {
	b, _ := json.Marshal(obj)
	var out map[string]any
	json.Unmarshal(b, &out)
	var cur any = out
	keys := strings.Split(path, ".")
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[k] = v
			} else {
				cur = c[k]
			}
		case []any:
			var n int
			json.Unmarshal([]byte(k), &n)
			if last {
				c[n] = v
			} else {
				cur = c[n]
			}
		}
	}
	return out
}

func TestStatusWrites(t *testing.T) {
	served := imagePullPod("3116", "2026-11-28T12:01:29Z", "ErrImagePull")
	live := imagePullPod("3571", "2026-11-28T12:06:20Z", "ImagePullBackOff")
	until := time.Date(2026, 11, 28, 12, 6, 30, 0, time.UTC)
	rawList := func(items ...map[string]any) string {
		list := map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{"resourceVersion": "3600"}, "items": items}
		b, _ := json.Marshal(list)
		return string(b)
	}
	for _, tc := range []struct {
		name         string
		live, served map[string]any
		forgiven     bool
	}{
		{name: "status written again", live: live, served: served, forgiven: true},
		{name: "status written again, its fields too", live: set(live, "metadata.managedFields.1.fieldsV1", map[string]any{"f:status": map[string]any{"f:reason": map[string]any{}}}), served: served, forgiven: true},
		{name: "the same revision", live: set(live, "metadata.resourceVersion", "3116"), served: served},
		{name: "an earlier revision", live: set(live, "metadata.resourceVersion", "3000"), served: served},
		{name: "the spec changed too", live: set(live, "spec.containers.0.image", "registry.example.com/legacy/app:0.2"), served: served},
		{name: "a label changed too", live: set(live, "metadata.labels.app", "other"), served: served},
		{name: "another manager wrote too", live: set(live, "metadata.managedFields.0.time", "2026-11-28T12:05:00Z"), served: served},
		{name: "a status writer became another", live: set(live, "metadata.managedFields.1.manager", "other"), served: served},
		{name: "status written after the live run", live: set(live, "metadata.managedFields.1.time", "2026-11-28T12:07:00Z"), served: served},
		{name: "status written before the collection", live: set(live, "metadata.managedFields.1.time", "2026-11-28T12:00:00Z"), served: served},
		{name: "another pod of that name", live: set(live, "metadata.uid", "1dc1eeaf-49d2-4df0-ba84-ea8cdc337390"), served: served},
		{name: "a new status writer", live: set(live, "metadata.managedFields", append(live["metadata"].(map[string]any)["managedFields"].([]any), map[string]any{"manager": "x", "subresource": "status"})), served: served},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Case{Compare: []string{"body"}, Normalize: []string{NormResourceVersion, NormStatusWrites}}
			out := func(o map[string]any) Output {
				return Output{Status: 200, ContentType: "application/json", Body: []byte(rawList(served, o, served))}
			}
			divs, counts := compareOutputs(c, out(tc.live), out(tc.served), window{}, window{}, until)
			if !tc.forgiven {
				if len(divs) == 0 {
					t.Fatalf("forgiven (%v)", counts)
				}
				return
			}
			if len(divs) != 0 {
				t.Fatalf("not forgiven (%v):\n%s", counts, divs[0].Diff)
			}
			if counts[NormStatusWrites] != 1 {
				t.Errorf("counts %v, want 1 statusWrites", counts)
			}
			c.Normalize = []string{NormResourceVersion}
			if divs, counts := compareOutputs(c, out(tc.live), out(tc.served), window{}, window{}, until); len(divs) == 0 {
				t.Errorf("forgiven without statusWrites (%v)", counts)
			}
		})
	}
}

// statusWrites reaches every case of pods, and Gate A only in converted
// tables: a plain table is rendered from the very list the upgrade reads.
func TestStatusWritesRule(t *testing.T) {
	f, err := LoadChecks(nil)
	if err != nil {
		t.Fatal(err)
	}
	rule := f.Resources["pods"]
	if !contains(rule.Normalize, NormStatusWrites) {
		t.Fatalf("the pods rule normalizes %v, want statusWrites", rule.Normalize)
	}
	if contains(gateANormalizations(rule, false), NormStatusWrites) || !contains(gateANormalizations(rule, true), NormStatusWrites) {
		t.Error("Gate A takes statusWrites for plain tables, or not for converted ones")
	}
}
