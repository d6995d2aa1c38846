package diff

import (
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// Options configure Run.
type Options struct {
	// A and B are the bundles, as contract.OpenContext names them
	// (archives, folders, https:// URLs, "-" for Stdin: one side at most).
	A, B  string
	Stdin io.Reader
	HTTP  contract.HTTPOptions
	// Limits are the readers' limits; zero is contract.DefaultLimits.
	Limits contract.Limits
	// Log is told what the upgrade of a legacy side did; nil discards it.
	Log io.Writer
	// All keeps the noise (see normalize.go): objects that differ only in
	// it are changed, and their details list it.
	All bool
	// Kinds, when set, are the only kinds compared: each a resource or
	// kind, optionally with its group (pods, Pod, deployments.apps).
	Kinds []string
	// Namespace, when set, is the only namespace compared (cluster-scoped
	// objects are then left out).
	Namespace string
	// Selector, when set, keeps the objects whose labels it matches on
	// either side.
	Selector labels.Selector
	// Logs compares the pod logs the bundles hold, by size and last lines.
	Logs bool

	// runBudget is defaultRunBudget but in tests.
	runBudget int
}

// wantKind says whether a list of gvr holding kind is compared.
func (o *Options) wantKind(gvr schema.GroupVersionResource, kind string) bool {
	if len(o.Kinds) == 0 {
		return true
	}
	for _, k := range o.Kinds {
		name, group, hasGroup := strings.Cut(strings.ToLower(k), ".")
		if hasGroup && group != strings.ToLower(gvr.Group) {
			continue
		}
		if name == gvr.Resource || name == strings.ToLower(kind) {
			return true
		}
	}
	return false
}

// wantObject says whether an object of namespace ns, with labels, is
// compared on its side.
func (o *Options) wantObject(ns string, l map[string]string) bool {
	if o.Namespace != "" && ns != o.Namespace {
		return false
	}
	return o.Selector == nil || o.Selector.Matches(labels.Set(l))
}
