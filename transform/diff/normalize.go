package diff

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// digest identifies an object's content: the first half of a SHA-256.
type digest [16]byte

// sha is the digest of data.
func sha(data []byte) digest {
	h := sha256.Sum256(data)
	return digest(h[:16])
}

// canonical is obj's canonical JSON (keys sorted, as encoding/json writes
// maps): two serializers' key orders and indentation are the same.
func canonical(obj map[string]any) ([]byte, error) { return json.Marshal(obj) }

// noiseFields are left out of every object: they change with every write
// or only repeat what another field says. metadata.generation moves with
// the spec (whose change is reported itself), so a change of it alone is
// a generation-only bump; kind and apiVersion are in the object's
// identity (its group and kind), and a list may write them or not.
var noiseFields = [][]string{
	{"metadata", "resourceVersion"},
	{"metadata", "managedFields"},
	{"metadata", "generation"},
	{"metadata", "selfLink"},
	{"status", "observedGeneration"},
	{"kind"},
	{"apiVersion"},
}

// clockFields are the timestamps of a kind that move with the clock
// alone: a lease's renewal, a node's heartbeats.
var clockFields = map[groupKind][][]string{
	{"coordination.k8s.io", "Lease"}: {{"spec", "renewTime"}},
}

// groupKind is an object's group and kind.
type groupKind struct{ Group, Kind string }

func (gk groupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// normalize removes the noise from obj, in place: noiseFields, the kind's
// clockFields, conditions' observedGeneration and heartbeat times, and
// the order of a node's images (the kubelet sorts them by size, which
// moves as images come and go).
func normalize(gk groupKind, obj map[string]any) {
	for _, f := range noiseFields {
		unstructured.RemoveNestedField(obj, f...)
	}
	for _, f := range clockFields[gk] {
		unstructured.RemoveNestedField(obj, f...)
	}
	if conds, ok, _ := unstructured.NestedFieldNoCopy(obj, "status", "conditions"); ok {
		if list, ok := conds.([]any); ok {
			for _, c := range list {
				if m, ok := c.(map[string]any); ok {
					delete(m, "observedGeneration")
					delete(m, "lastHeartbeatTime")
				}
			}
		}
	}
	if gk == (groupKind{"", "Node"}) {
		if images, ok, _ := unstructured.NestedFieldNoCopy(obj, "status", "images"); ok {
			if list, ok := images.([]any); ok {
				sort.SliceStable(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
			}
		}
	}
}
