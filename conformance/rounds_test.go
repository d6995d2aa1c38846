package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What moved between two collections: objects by resourceVersion, logs
// by content, and what appeared or went.
func TestMovedBetween(t *testing.T) {
	pods := func(objs ...ObjectRef) []*Resource {
		return []*Resource{{Plural: "pods", Version: "v1", Objects: objs}}
	}
	a := &Inventory{
		Resources: pods(ObjectRef{Namespace: "x", Name: "same", ResourceVersion: "1"}, ObjectRef{Namespace: "x", Name: "moved", ResourceVersion: "2"}, ObjectRef{Namespace: "x", Name: "gone", ResourceVersion: "3"}),
		Logs:      []LogRef{{Namespace: "x", Pod: "same", Container: "c", Digest: "d1"}, {Namespace: "x", Pod: "moved", Container: "c", Digest: "d2"}},
	}
	b := &Inventory{
		Resources: pods(ObjectRef{Namespace: "x", Name: "same", ResourceVersion: "1"}, ObjectRef{Namespace: "x", Name: "moved", ResourceVersion: "5"}, ObjectRef{Namespace: "x", Name: "new", ResourceVersion: "6"}),
		Logs:      []LogRef{{Namespace: "x", Pod: "same", Container: "c", Digest: "d1"}, {Namespace: "x", Pod: "moved", Container: "c", Digest: "d9"}, {Namespace: "x", Pod: "moved", Container: "c", Previous: true, Digest: "d3"}},
	}
	want := []string{"log x/moved/c", "log x/moved/c (previous) (new)", "pods x/gone (gone)", "pods x/moved", "pods x/new (new)"}
	if d := cmp.Diff(want, movedBetween(a, b)); d != "" {
		t.Errorf("moved (-want +got):\n%s", d)
	}
	if got := movedBetween(a, a); len(got) != 0 {
		t.Errorf("an unchanged collection moved: %v", got)
	}
}
