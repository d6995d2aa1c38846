package index

import (
	_ "embed"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/embedded"
)

// kube-apiserver decides whether a request to an API version warns from the
// lifecycle methods of the type (generated from prerelease-lifecycle-gen
// tags, or written by hand) of its own release: the pinned client-go
// scheme knows neither the versions removed before the pin (batch/v1beta1
// CronJob, storagemigration.k8s.io/v1alpha1) nor the lifecycles older
// releases declared. lifecycles.json.gz holds them for every minor bundlectl
// supports, read from each release's k8s.io/api, apiextensions-apiserver
// and kube-aggregator source by TestLifecyclesData (-update writes it).

//go:embed lifecycles.json.gz
var lifecyclesData []byte

// A lifecycle is what one API type's lifecycle methods return in the
// releases 1.First to 1.Last of k8s.io/api; zero where a method is absent
// or returns zero, as the apiserver reads both.
type lifecycle struct {
	GVK         schema.GroupVersionKind `json:"gvk"`
	First       int                     `json:"first"`
	Last        int                     `json:"last"`
	Deprecated  [2]int                  `json:"deprecated,omitzero"`
	Removed     [2]int                  `json:"removed,omitzero"`
	Replacement schema.GroupVersionKind `json:"replacement,omitzero"`
}

// lifecycleFirst and lifecycleLast are the first and last minors of 1.x
// the data holds: the oldest release bundlectl supports and the pin.
var lifecycleFirst, lifecycleLast = contract.MinorNumber(contract.OldestMinor), contract.MinorNumber(contract.PinnedMinor)

// decodeLifecycles reads the data file (gzipped JSON, a list of lifecycles).
func decodeLifecycles(data []byte) ([]lifecycle, error) {
	return embedded.GzipJSON[[]lifecycle](data)
}

// lifecyclesByMinor indexes the embedded data by minor and kind. The data
// is compiled in and proven by the tests, so failing to read it is a
// broken build.
var lifecyclesByMinor = sync.OnceValue(func() map[int]map[schema.GroupVersionKind]lifecycle {
	all, err := decodeLifecycles(lifecyclesData)
	if err != nil {
		panic(fmt.Sprintf("serve/index: embedded lifecycles.json.gz: %v", err))
	}
	out := map[int]map[schema.GroupVersionKind]lifecycle{}
	for _, l := range all {
		for minor := l.First; minor <= l.Last; minor++ {
			if out[minor] == nil {
				out[minor] = map[schema.GroupVersionKind]lifecycle{}
			}
			out[minor][l.GVK] = l
		}
	}
	return out
})

// lifecycleMinor is the minor whose lifecycles a server of major.minor
// used: its own; for 1.19, the first release that warned, the oldest the
// data holds; the pin's for a newer release or an unknown version (0.0),
// as before the data existed. Servers before 1.19 sent no warnings: false.
func lifecycleMinor(major, minor int) (int, bool) {
	switch {
	case major == 0 && minor == 0, major > 1, major == 1 && minor > lifecycleLast:
		return lifecycleLast, true
	case major == 1 && minor >= 19 && minor < lifecycleFirst:
		return lifecycleFirst, true
	case major == 1 && minor >= lifecycleFirst:
		return minor, true
	}
	return 0, false
}

// lifecycleObject stands for a versioned object of the server's scheme in
// the apiserver's deprecation rules, which ask only its kind and its
// lifecycle methods.
type lifecycleObject struct {
	metav1.TypeMeta
	l lifecycle
}

// newLifecycleObject is the object of kind gvk as the server of major.minor
// knew it, or false if its release declared no lifecycle for the kind.
func newLifecycleObject(gvk schema.GroupVersionKind, major, minor int) (runtime.Object, bool) {
	m, ok := lifecycleMinor(major, minor)
	if !ok {
		return nil, false
	}
	l, ok := lifecyclesByMinor()[m][gvk]
	if !ok {
		return nil, false
	}
	o := &lifecycleObject{l: l}
	o.SetGroupVersionKind(gvk)
	return o, true
}

func (o *lifecycleObject) DeepCopyObject() runtime.Object { c := *o; return &c }

func (o *lifecycleObject) APILifecycleDeprecated() (major, minor int) {
	return o.l.Deprecated[0], o.l.Deprecated[1]
}

func (o *lifecycleObject) APILifecycleRemoved() (major, minor int) {
	return o.l.Removed[0], o.l.Removed[1]
}

func (o *lifecycleObject) APILifecycleReplacement() schema.GroupVersionKind {
	return o.l.Replacement
}
