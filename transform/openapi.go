package transform

import (
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/bundlectl/bundlectl/contract"
)

// The OpenAPI documents of an upgraded bundle are the ones a server of
// the cluster's release would publish for the API its discovery.json
// advertises:
//
//   - each built-in group version's /openapi/v3 document, and the
//     documents that are not group versions (api, apis, apis/<group>,
//     version, ...), as the release's kube-apiserver serves them
//     (builtin/openapi-1.NN.tar.zst, builtin.go);
//   - each custom resource group version's document built from the
//     bundle's CRDs by the apiextensions server's own builder, merged per
//     group version as its OpenAPI v3 controller does;
//   - /openapi/v2: the release's document cut down to the group versions
//     discovery advertises (the paths of the others, and the definitions
//     only they reach, removed: what a server serving just those versions
//     publishes), with the CRDs merged in as the apiextensions OpenAPI
//     controller and the aggregator merge them.
//
// A group version of the bundle that neither knows (one the release no
// longer serves, such as batch/v1beta1) gets no document.

// openAPIFiles are the documents to add: v3 by path under /openapi/v3/.
type openAPIFiles struct {
	v3 map[string][]byte
	v2 []byte
}

// synthesizeOpenAPI makes the documents for a discovery and its CRDs,
// the built-in ones of the cluster's minor.
// CRDs whose schema cannot be built are problems, and left out, as the
// server logs and leaves them out.
func synthesizeOpenAPI(d *contract.Discovery, crds *crdIndex, minor int) (*openAPIFiles, []error) {
	builtin, err := loadBuiltinOpenAPI(minor)
	if err != nil {
		return nil, []error{err}
	}
	gvs := discoveryGroupVersions(d)
	out := &openAPIFiles{v3: map[string][]byte{}}

	keptGroups := map[string]bool{}
	custom := map[schema.GroupVersion]*v3Merger{}
	for gv := range gvs {
		p := openAPIPath(gv)
		if doc, ok := builtin.v3[p]; ok {
			out.v3[p] = doc
			keptGroups[gv.Group] = true
			continue
		}
		custom[gv] = &v3Merger{}
	}
	for p, doc := range builtin.v3 {
		if _, ok := out.v3[p]; ok || isGroupVersionPath(p) {
			continue
		}
		if keepNonGroupVersionDoc(p, keptGroups) {
			out.v3[p] = doc
		}
	}

	var problems []error
	v2, err := filterOpenAPIV2(builtin.v2, func(p string) bool { return keepV2Path(p, gvs, keptGroups) })
	var merger *v2Merger
	if err == nil {
		merger = newV2Merger(v2)
	}
	v2Problem := func(err error) {
		problems = append(problems, fmt.Errorf("%s: %w", contract.OpenAPIV2Path(), err))
		merger = nil
	}
	if err != nil {
		v2Problem(err)
	}
	problems = append(problems, eachCRDSpec(crds, gvs, func(gv schema.GroupVersion, v3 *spec3.OpenAPI) {
		if m := custom[gv]; m != nil {
			m.add(v3)
		}
	}, func(v2 *spec.Swagger) {
		if merger == nil {
			return
		}
		if err := merger.add(v2); err != nil {
			v2Problem(err)
		}
	})...)
	for gv, m := range custom {
		p := openAPIPath(gv)
		doc, err := m.document()
		delete(custom, gv) // its parts, once written in the document
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", contract.OpenAPIV3Path(p), err))
		} else if doc != nil {
			out.v3[p] = doc
		}
	}
	if merger != nil {
		if out.v2, err = merger.document(); err != nil {
			v2Problem(err)
		}
	}
	if minor < openAPIV3Since {
		// Its server answered /openapi/v3 with a 404, and kubectl
		// explained from /openapi/v2.
		out.v3 = map[string][]byte{}
	}
	return out, problems
}

// openAPIV3Since is the first minor whose kube-apiserver served
// /openapi/v3 by default: the OpenAPIV3 feature gate was alpha (off) in
// 1.23 and beta (on) in 1.24 (pkg/features/kube_features.go).
const openAPIV3Since = 24

// discoveryGroupVersions are the group versions discovery advertises.
func discoveryGroupVersions(d *contract.Discovery) map[schema.GroupVersion]bool {
	out := map[schema.GroupVersion]bool{}
	for _, g := range d.Groups {
		for _, v := range g.Versions {
			out[schema.GroupVersion{Group: g.Name, Version: v.Version}] = true
		}
	}
	for gv := range d.Resources {
		if parsed, err := schema.ParseGroupVersion(gv); err == nil && parsed.Version != "" {
			out[parsed] = true
		}
	}
	return out
}

// openAPIPath is the /openapi/v3 path of a group version's document.
func openAPIPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

func isGroupVersionPath(p string) bool {
	return strings.HasPrefix(p, "api/") || strings.HasPrefix(p, "apis/") && strings.Count(p, "/") == 2
}

// keepNonGroupVersionDoc keeps a group's document (apis/<group>) when one
// of its versions is kept, the core group's (api) when v1 is, and the
// server's other documents (apis, version, ...) always.
func keepNonGroupVersionDoc(p string, keptGroups map[string]bool) bool {
	switch {
	case p == "api":
		return keptGroups[""]
	case strings.HasPrefix(p, "apis/"):
		return keptGroups[strings.TrimPrefix(p, "apis/")]
	}
	return true
}

// keepV2Path applies the same rule to the paths of the v2 document:
// /api/v1/..., /apis/<group>/<version>/... and /apis/<group>/.
func keepV2Path(p string, gvs map[schema.GroupVersion]bool, keptGroups map[string]bool) bool {
	if rest, ok := strings.CutPrefix(p, "/api/"); ok {
		if rest == "" {
			return keptGroups[""]
		}
		version, _, _ := strings.Cut(rest, "/")
		return gvs[schema.GroupVersion{Version: version}]
	}
	if rest, ok := strings.CutPrefix(p, "/apis/"); ok && rest != "" {
		group, rest, _ := strings.Cut(rest, "/")
		if rest == "" {
			return keptGroups[group]
		}
		version, _, _ := strings.Cut(rest, "/")
		return gvs[schema.GroupVersion{Group: group, Version: version}]
	}
	return true
}

// eachCRDSpec builds every served version of every CRD as the
// apiextensions server's OpenAPI controllers do (openapiv3.Controller's
// buildV3Spec, openapi.Controller's createSpecCache), CRDs in name order,
// and hands each on at once: a version's v3 spec to v3, the CRD's v2 spec
// (its versions merged) to v2. One CRD is decoded, schemas and all, at a
// time: the builder's specs are many times the size of the schema they
// are built from, and a list may hold hundreds of large CRDs.
func eachCRDSpec(crds *crdIndex, gvs map[schema.GroupVersion]bool, v3 func(schema.GroupVersion, *spec3.OpenAPI), v2 func(*spec.Swagger)) []error {
	if crds == nil {
		return nil
	}
	var problems []error
	all := crds.infos()
	sort.Slice(all, func(i, j int) bool { return all[i].crd.Name < all[j].crd.Name })
	for _, info := range all {
		if !established(info.crd) {
			continue
		}
		internal, err := decodeCRD(info.raw)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err == nil {
			err = apiextensionsv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(internal, crd, nil)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: CRD %s: %w", contract.CRDListPath, info.crd.Name, err))
			continue
		}
		merged := &spec.Swagger{}
		for _, v := range crd.Spec.Versions {
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
			if !v.Served || !gvs[gv] {
				continue
			}
			opts := builder.Options{IncludeSelectableFields: true} // CustomResourceFieldSelectors is GA
			spec3, err := builder.BuildOpenAPIV3(crd, v.Name, opts)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: CRD %s version %s: %w", contract.OpenAPIV3Path(openAPIPath(gv)), crd.Name, v.Name, err))
				continue
			}
			v3(gv, spec3)
			opts.V2 = true
			spec2, err := builder.BuildOpenAPIV2(crd, v.Name, opts)
			if err == nil {
				// Pruned as the controller does, to merge cleanly with
				// the built-in spec, whose defaults are pruned.
				spec2.Definitions = handler.PruneDefaults(spec2.Definitions)
				merged, err = builder.MergeSpecs(merged, spec2)
			}
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: CRD %s version %s: %w", contract.OpenAPIV2Path(), crd.Name, v.Name, err))
			}
		}
		if merged.Paths != nil {
			v2(merged)
		}
	}
	return problems
}
