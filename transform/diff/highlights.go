package diff

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Highlight is a difference people look for first, naming its object.
type Highlight struct {
	// Type is one of the highlight types below.
	Type      string `json:"type"`
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Detail    string `json:"detail"`
}

// The highlight types, in the order the summary lists them.
const (
	RestartsUp      = "RestartsUp"
	NoLongerRunning = "NoLongerRunning"
	NewWarningEvent = "NewWarningEvent"
	ImageChanged    = "ImageChanged"
	NodeCondition   = "NodeCondition"
	FewerAvailable  = "FewerAvailableReplicas"
	KubeletVersion  = "KubeletVersion"
)

var highlightOrder = []string{RestartsUp, NoLongerRunning, NewWarningEvent, ImageChanged, NodeCondition, FewerAvailable, KubeletVersion}

// highlightTitles are the summary's words for each type.
var highlightTitles = map[string]string{
	RestartsUp: "Restarts up", NoLongerRunning: "No longer Running", NewWarningEvent: "New Warning events",
	ImageChanged: "Image changes", NodeCondition: "Node conditions", FewerAvailable: "Fewer available replicas",
	KubeletVersion: "Kubelet versions",
}

// facts are what the highlights read of one object.
type facts struct {
	phase      string
	restarts   map[string]int64  // container name → restart count
	images     map[string]string // container name → image
	conditions map[string]string // node condition type → status
	available  *int64            // a Deployment's available replicas
	warning    string            // a Warning event: object, reason and message
	count      int64             // an event's count
	kubelet    string
}

// containerPaths are where each workload kind has its containers.
var containerPaths = map[groupKind][]string{
	{"", "Pod"}:                   {"spec"},
	{"apps", "Deployment"}:        {"spec", "template", "spec"},
	{"apps", "StatefulSet"}:       {"spec", "template", "spec"},
	{"apps", "DaemonSet"}:         {"spec", "template", "spec"},
	{"apps", "ReplicaSet"}:        {"spec", "template", "spec"},
	{"batch", "Job"}:              {"spec", "template", "spec"},
	{"batch", "CronJob"}:          {"spec", "jobTemplate", "spec", "template", "spec"},
	{"", "ReplicationController"}: {"spec", "template", "spec"},
}

// factsOf reads the facts of obj, a decoded object of kind gk.
func factsOf(gk groupKind, obj map[string]any) *facts {
	f := &facts{}
	if spec, ok := containerPaths[gk]; ok {
		f.images = map[string]string{}
		for _, field := range []string{"initContainers", "containers"} {
			list := slice(obj, append(append([]string{}, spec...), field)...)
			for _, c := range list {
				m, _ := c.(map[string]any)
				name, _, _ := unstructured.NestedString(m, "name")
				f.images[name], _, _ = unstructured.NestedString(m, "image")
			}
		}
	}
	switch gk {
	case groupKind{"", "Pod"}:
		f.phase, _, _ = unstructured.NestedString(obj, "status", "phase")
		f.restarts = map[string]int64{}
		for _, field := range []string{"initContainerStatuses", "containerStatuses"} {
			list := slice(obj, "status", field)
			for _, c := range list {
				m, _ := c.(map[string]any)
				name, _, _ := unstructured.NestedString(m, "name")
				f.restarts[name], _, _ = unstructured.NestedInt64(m, "restartCount")
			}
		}
	case groupKind{"", "Node"}:
		f.conditions = map[string]string{}
		list := slice(obj, "status", "conditions")
		for _, c := range list {
			m, _ := c.(map[string]any)
			t, _, _ := unstructured.NestedString(m, "type")
			f.conditions[t], _, _ = unstructured.NestedString(m, "status")
		}
		f.kubelet, _, _ = unstructured.NestedString(obj, "status", "nodeInfo", "kubeletVersion")
	case groupKind{"apps", "Deployment"}:
		n, _, _ := unstructured.NestedInt64(obj, "status", "availableReplicas")
		f.available = &n
	case groupKind{"", "Event"}, groupKind{"events.k8s.io", "Event"}:
		f.warning, f.count = eventFacts(obj)
	}
	return f
}

// eventFacts reads a Warning event of either group: what it is about,
// and its count (core) or series count (events.k8s.io).
func eventFacts(obj map[string]any) (string, int64) {
	if t, _, _ := unstructured.NestedString(obj, "type"); t != "Warning" {
		return "", 0
	}
	regarding, ok := obj["involvedObject"].(map[string]any)
	if !ok {
		regarding, _ = obj["regarding"].(map[string]any)
	}
	kind, _, _ := unstructured.NestedString(regarding, "kind")
	name, _, _ := unstructured.NestedString(regarding, "name")
	reason, _, _ := unstructured.NestedString(obj, "reason")
	msg, ok, _ := unstructured.NestedString(obj, "message")
	if !ok {
		msg, _, _ = unstructured.NestedString(obj, "note")
	}
	count, ok, _ := unstructured.NestedInt64(obj, "count")
	if !ok {
		count, _, _ = unstructured.NestedInt64(obj, "series", "count")
	}
	return fmt.Sprintf("%s %s: %s: %s", kind, name, reason, strings.TrimSpace(msg)), count
}

// highlights are what change c shows of the highlight types, from the
// facts of its object on each side (nil where that side's was not read).
func highlights(c *change, a, b *facts) []Highlight {
	if b == nil || (a == nil && c.typ != added) {
		return nil
	}
	if a == nil {
		a = &facts{}
	}
	var out []Highlight
	add := func(typ, format string, args ...any) {
		out = append(out, Highlight{Type: typ, Group: c.key.Group, Kind: c.key.Kind, Namespace: c.key.Namespace, Name: c.key.Name, Detail: fmt.Sprintf(format, args...)})
	}
	if c.typ != added {
		for _, name := range sortedNames(b.restarts) {
			// A re-created pod counts from zero again.
			if rb, ra := b.restarts[name], a.restarts[name]; rb > ra && c.typ == changed {
				add(RestartsUp, "%s %d → %d", name, ra, rb)
			}
		}
		if a.phase == "Running" && b.phase != "Running" {
			add(NoLongerRunning, "Running → %s", orNone(b.phase))
		}
		for _, name := range sortedNames(b.images) {
			if ia, ok := a.images[name]; ok && ia != b.images[name] {
				add(ImageChanged, "%s %s → %s", name, ia, b.images[name])
			}
		}
		for _, t := range sortedNames(b.conditions) {
			if sa := a.conditions[t]; sa != b.conditions[t] {
				add(NodeCondition, "%s %s → %s", t, orNone(sa), b.conditions[t])
			}
		}
		if a.available != nil && b.available != nil && *b.available < *a.available {
			add(FewerAvailable, "%d → %d available", *a.available, *b.available)
		}
		if a.kubelet != "" && b.kubelet != "" && a.kubelet != b.kubelet {
			add(KubeletVersion, "%s → %s", a.kubelet, b.kubelet)
		}
	}
	if b.warning != "" && (c.typ == added || c.typ == replaced || b.count > a.count) {
		add(NewWarningEvent, "%s", b.warning)
	}
	return out
}

// slice is the list at fields of obj, not copied (unstructured.NestedSlice
// copies it), nil when there is none.
func slice(obj map[string]any, fields ...string) []any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	list, _ := v.([]any)
	return list
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// record is f as the spill keeps it from the pass over A to the pass
// over B; readFacts reads it back.
func (f *facts) record() record {
	r := record{}.string(f.phase).uint(uint64(len(f.restarts)))
	for _, name := range sortedNames(f.restarts) {
		r = r.string(name).int(f.restarts[name])
	}
	for _, m := range []map[string]string{f.images, f.conditions} {
		r = r.uint(uint64(len(m)))
		for _, k := range sortedNames(m) {
			r = r.string(k).string(m[k])
		}
	}
	if f.available == nil {
		r = r.uint(0)
	} else {
		r = r.uint(1).int(*f.available)
	}
	return r.string(f.warning).int(f.count).string(f.kubelet)
}

func readFacts(data []byte) (*facts, error) {
	r := &reader{b: data}
	f := &facts{phase: r.string()}
	if n := r.uint(); n > 0 {
		f.restarts = map[string]int64{}
		for i := uint64(0); i < n && r.err == nil; i++ {
			name := r.string()
			f.restarts[name] = r.int()
		}
	}
	for _, m := range []*map[string]string{&f.images, &f.conditions} {
		if n := r.uint(); n > 0 {
			*m = map[string]string{}
			for i := uint64(0); i < n && r.err == nil; i++ {
				k := r.string()
				(*m)[k] = r.string()
			}
		}
	}
	if r.uint() == 1 {
		n := r.int()
		f.available = &n
	}
	f.warning, f.count, f.kubelet = r.string(), r.int(), r.string()
	return f, r.err
}
