package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// Inventory is what a bundle holds, for the templating of the checks:
// every resource with a raw list (empty or not) and every object, every
// pod log.
type Inventory struct {
	CollectedAt time.Time
	Resources   []*Resource // sorted by group, then resource
	Logs        []LogRef
}

// Resource is one resource the bundle has lists of.
type Resource struct {
	Group, Version, Plural, Kind string
	Namespaced                   bool
	Verbs                        []string
	Objects                      []ObjectRef // sorted by namespace, then name
	// versioned says that the bundle holds the resource at other
	// versions too, so that cases name the version (CaseName).
	versioned bool
}

// CaseName names the resource in case IDs: its GroupResource, or, where
// the bundle holds it at several versions (HorizontalPodAutoscalers at
// autoscaling/v2 and, converted, at v1), its kubectl argument
// "horizontalpodautoscalers.v1.autoscaling", so that each version's
// cases have IDs of their own.
func (r *Resource) CaseName() string {
	if r.versioned {
		return r.Plural + "." + r.Version + "." + r.Group
	}
	return r.GroupResource()
}

// GroupResource names the resource as the checks and the baseline do:
// "pods", "deployments.apps".
func (r *Resource) GroupResource() string {
	return schema.GroupResource{Group: r.Group, Resource: r.Plural}.String()
}

// Arg is the resource as kubectl's argument, fully qualified so that
// kubectl asks for the version the bundle holds: "pods",
// "deployments.v1.apps".
func (r *Resource) Arg() string {
	if r.Group == "" {
		return r.Plural
	}
	return r.Plural + "." + r.Version + "." + r.Group
}

// CollectionPath is the API path of the resource's list in namespace ns
// (ignored for cluster-scoped resources; "" lists every namespace).
func (r *Resource) CollectionPath(ns string) string {
	p := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		p = "/api/" + r.Version
	}
	if r.Namespaced && ns != "" {
		p += "/namespaces/" + ns
	}
	return p + "/" + r.Plural
}

func (r *Resource) hasVerb(v string) bool {
	for _, x := range r.Verbs {
		if x == v {
			return true
		}
	}
	return false
}

// ObjectRef is one object of a resource.
type ObjectRef struct {
	Namespace, Name, UID string
	Labels               map[string]string
	// ResourceVersion changes with every write of the object: two
	// collections tell by it what moved in between.
	ResourceVersion string
}

// LogRef is one container log the bundle holds.
type LogRef struct {
	Namespace, Pod, Container string
	Previous                  bool
	// Digest is the SHA-256 of the log as collected.
	Digest string
}

// ReadInventory reads the inventory of a contract bundle (a folder or an
// archive): discovery.json for each resource's scope, kind and verbs, and
// the raw lists for the objects.
func ReadInventory(path string) (*Inventory, error) {
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	d, err := b.Discovery()
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, errors.New("the bundle has no discovery.json: not a contract bundle")
	}
	inv := &Inventory{CollectedAt: d.CollectedTime()}
	byGVR := map[schema.GroupVersionResource]*Resource{}
	find := func(gvr schema.GroupVersionResource) *Resource {
		if r, ok := byGVR[gvr]; ok {
			return r
		}
		gv := gvr.GroupVersion().String()
		for _, ar := range d.Resources[gv] {
			if ar.Name == gvr.Resource {
				r := &Resource{Group: gvr.Group, Version: gvr.Version, Plural: gvr.Resource, Kind: ar.Kind, Namespaced: ar.Namespaced, Verbs: ar.Verbs}
				byGVR[gvr] = r
				return r
			}
		}
		return nil
	}
	err = b.Walk(func(e *contract.Entry) error {
		switch {
		case e.Class.Class == contract.ClassPodLog:
			h := sha256.New()
			if _, err := io.Copy(h, e.Reader()); err != nil {
				return fmt.Errorf("%s: %w", e.Rel, err)
			}
			inv.Logs = append(inv.Logs, LogRef{Namespace: e.Class.Key.Namespace, Pod: e.Class.Pod, Container: e.Class.Container, Previous: e.Class.Previous, Digest: hex.EncodeToString(h.Sum(nil))})
			return nil
		case !b.IsListOfRecord(e):
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			return err
		}
		r := find(contract.ListGVR(e.Class, l))
		if r == nil {
			return nil // not a resource discovery knows: nothing kubectl can ask for
		}
		for _, item := range l.Items {
			var o struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(item, &o); err != nil {
				return fmt.Errorf("%s: %w", e.Rel, err)
			}
			r.Objects = append(r.Objects, ObjectRef{Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, UID: string(o.Metadata.UID), Labels: o.Metadata.Labels, ResourceVersion: o.Metadata.ResourceVersion})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range byGVR {
		sort.Slice(r.Objects, func(i, j int) bool {
			a, b := r.Objects[i], r.Objects[j]
			if a.Namespace != b.Namespace {
				return a.Namespace < b.Namespace
			}
			return a.Name < b.Name
		})
		inv.Resources = append(inv.Resources, r)
	}
	sort.Slice(inv.Resources, func(i, j int) bool {
		a, b := inv.Resources[i], inv.Resources[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Plural != b.Plural {
			return a.Plural < b.Plural
		}
		return a.Version < b.Version
	})
	versions := map[string]int{}
	for _, r := range inv.Resources {
		versions[r.GroupResource()]++
	}
	for _, r := range inv.Resources {
		r.versioned = versions[r.GroupResource()] > 1
	}
	sort.Slice(inv.Logs, func(i, j int) bool {
		a, b := inv.Logs[i], inv.Logs[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Pod != b.Pod {
			return a.Pod < b.Pod
		}
		if a.Container != b.Container {
			return a.Container < b.Container
		}
		return !a.Previous && b.Previous
	})
	return inv, nil
}
