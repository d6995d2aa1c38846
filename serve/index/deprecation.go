package index

import (
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/endpoints/deprecation"

	"github.com/bundlectl/bundlectl/contract"
)

// A request to a deprecated API version gets a Warning header from
// kube-apiserver, which kubectl prints ("Warning: v1 Endpoints is
// deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"). The
// installer asks the lifecycle of the kind each resource and subresource
// is registered with, as its own release declared it, at the server's
// version (lifecycles.go); the apiextensions server warns for CRD versions
// marked deprecated. Both are worked out here at load, at the bundle's
// version, with the apiserver's own rules and text.

func deprecationKey(gv schema.GroupVersion, resource string) string {
	return gv.String() + "/" + resource
}

func deprecations(d *contract.Discovery, v version.Info, crds []apiextensionsv1.CustomResourceDefinition) map[string][]string {
	out := map[string][]string{}
	major, minor, err := deprecation.MajorMinor(v)
	if err != nil {
		major, minor = 0, 0 // unknown: as the server, every deprecated API warns
	}
	for gvString, resources := range d.Resources {
		gv, err := schema.ParseGroupVersion(gvString)
		if err != nil {
			continue
		}
		for _, r := range resources {
			gvk := gv.WithKind(r.Kind)
			if r.Version != "" {
				// Storage naming its kind (a scale subresource's
				// autoscaling/v1 Scale) is registered with that kind.
				gvk = schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
			}
			obj, ok := newLifecycleObject(gvk, major, minor)
			if ok && deprecation.IsDeprecated(obj, major, minor) {
				out[deprecationKey(gv, r.Name)] = []string{deprecation.WarningMessage(obj)}
			}
		}
	}
	for _, crd := range crds {
		for _, ver := range crd.Spec.Versions {
			if !ver.Deprecated {
				continue
			}
			msg := crdDeprecationWarning(ver.Name, crd.Spec)
			if ver.DeprecationWarning != nil {
				msg = *ver.DeprecationWarning
			}
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: ver.Name}
			for _, res := range []string{crd.Spec.Names.Plural, crd.Spec.Names.Plural + "/status", crd.Spec.Names.Plural + "/scale"} {
				out[deprecationKey(gv, res)] = []string{msg}
			}
		}
	}
	return out
}

// crdDeprecationWarning is the apiextensions server's default warning for
// a deprecated version: the newest served version that is not deprecated
// is named as the one to use.
func crdDeprecationWarning(deprecated string, spec apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, deprecated, spec.Names.Kind)
	var newer []string
	for _, v := range spec.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecated, v.Name) < 0 {
			newer = append(newer, v.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, newer[0], spec.Names.Kind)
}
