package transform

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/util/jsonpath"

	"github.com/bundlectl/bundlectl/contract"
)

// crdScheme decodes CustomResourceDefinitions of every version a bundle
// may hold (apiextensions.k8s.io/v1, and v1beta1 from clusters before
// 1.22) to the internal version, with the server's defaults.
var crdDecoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	return serializer.NewCodecFactory(scheme).UniversalDecoder()
}()

var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// crdIndex holds the CRDs of a bundle by resource.
type crdIndex struct {
	byResource map[schema.GroupResource]*crdInfo
}

type crdInfo struct {
	// crd is the CRD without its schemas (withoutSchemas): what tables,
	// discovery and conversions read of it.
	crd *apiextensions.CustomResourceDefinition
	// raw is its item in the list, decoded again, schemas and all, only
	// while its OpenAPI documents are built (eachCRDSpec).
	raw []byte

	mu         sync.Mutex
	convertors map[string]versionConvertor
	variants   map[string]rest.TableConvertor // by version and skipped cells
}

type versionConvertor struct {
	conv  rest.TableConvertor
	dates []int // cells that hold date columns
	err   error
	// costly are the columns whose JSONPath walks recursively, priced on
	// each object before it is evaluated (jsonPathCost).
	costly []costlyColumn
	// columns are the version's columns, to build variants from.
	columns []apiextensionsv1.CustomResourceColumnDefinition
}

// costlyColumn is a printer column with a recursive descent: its cell
// (index in the row) and its parsed path.
type costlyColumn struct {
	cell  int
	nodes []jsonpath.Node
	def   apiextensionsv1.CustomResourceColumnDefinition
}

// newCRDIndex decodes custom-resource-definitions.json. CRDs that do not
// decode are returned as problems of the list's file; the others are indexed without their
// schemas, which are most of a CRD's size and, decoded, many times that:
// a list of many CRDs must not be held decoded whole.
func newCRDIndex(data []byte) (*crdIndex, []error) {
	x := &crdIndex{byResource: map[schema.GroupResource]*crdInfo{}}
	if len(data) == 0 {
		return x, nil
	}
	list, err := contract.DecodeList(data, contract.FormatJSON)
	if err != nil {
		// The list's own table fails with the same error, which the
		// pipeline reports: one problem, said once.
		return x, nil
	}
	var problems []error
	for i, raw := range list.Items {
		crd, err := decodeCRD(raw)
		if err != nil {
			problems = append(problems, fmt.Errorf("its resources get no printer columns: %w", itemError(i, raw, err)))
			continue
		}
		withoutSchemas(crd)
		gr := schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}
		x.byResource[gr] = &crdInfo{crd: crd, raw: raw, convertors: map[string]versionConvertor{}}
	}
	return x, problems
}

// decodeCRD decodes one item of the list to the internal version, with
// the server's defaults.
func decodeCRD(raw []byte) (*apiextensions.CustomResourceDefinition, error) {
	obj, _, err := crdDecoder.Decode(raw, &crdGVK, nil)
	if err != nil {
		return nil, err
	}
	crd, ok := obj.(*apiextensions.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("is a %T", obj)
	}
	return crd, nil
}

// withoutSchemas drops a CRD's validation schemas, which only its OpenAPI
// documents need, and what would keep the decoded v1 object alive: the
// conversion from v1 points PreserveUnknownFields at the v1 object's own
// field (metav1.Convert_bool_To_Pointer_bool), schemas and all.
func withoutSchemas(crd *apiextensions.CustomResourceDefinition) {
	crd.Spec.Validation = nil
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Schema = nil
	}
	if p := crd.Spec.PreserveUnknownFields; p != nil {
		crd.Spec.PreserveUnknownFields = new(*p)
	}
}

func (x *crdIndex) lookup(gr schema.GroupResource) (*crdInfo, bool) {
	if x == nil {
		return nil, false
	}
	c, ok := x.byResource[gr]
	return c, ok
}

// all returns every indexed CRD, without its schemas.
func (x *crdIndex) all() []*apiextensions.CustomResourceDefinition {
	var out []*apiextensions.CustomResourceDefinition
	for _, c := range x.byResource {
		out = append(out, c.crd)
	}
	return out
}

// infos returns every indexed CRD's entry.
func (x *crdIndex) infos() []*crdInfo {
	return slices.Collect(maps.Values(x.byResource))
}

// convertor is the table convertor the apiextensions server builds for a
// served version: the version's printer columns, or a single Age column
// when it has none (apiextensions.GetColumnsForVersion). A column whose
// JSONPath does not parse ends the columns there, as in the server, which
// logs the error and serves what tableconvertor.New returned.
func (c *crdInfo) convertor(version string) (versionConvertor, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if vc, ok := c.convertors[version]; ok {
		return vc, vc.err
	}
	vc := c.build(version)
	c.convertors[version] = vc
	return vc, vc.err
}

// without is the version's convertor with the given costly columns
// evaluated as `.metadata.name`, a path of constant cost, for a caller
// that then empties their cells.
func (c *crdInfo) without(version string, skip []costlyColumn) rest.TableConvertor {
	key := version
	for _, col := range skip {
		key += "/" + strconv.Itoa(col.cell)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if conv, ok := c.variants[key]; ok {
		return conv
	}
	vc := c.convertors[version]
	columns := slices.Clone(vc.columns)
	for _, col := range skip {
		columns[col.cell-1].JSONPath = ".metadata.name"
	}
	conv, _ := tableconvertor.New(columns)
	if c.variants == nil {
		c.variants = map[string]rest.TableConvertor{}
	}
	c.variants[key] = conv
	return conv
}

func (c *crdInfo) build(version string) versionConvertor {
	columns, err := apiextensions.GetColumnsForVersion(c.crd, version)
	if err != nil {
		return versionConvertor{err: fmt.Errorf("CRD %s: %w", c.crd.Name, err)}
	}
	v1columns := make([]apiextensionsv1.CustomResourceColumnDefinition, len(columns))
	for i := range columns {
		if err := apiextensionsv1.Convert_apiextensions_CustomResourceColumnDefinition_To_v1_CustomResourceColumnDefinition(&columns[i], &v1columns[i], nil); err != nil {
			return versionConvertor{err: fmt.Errorf("CRD %s: %w", c.crd.Name, err)}
		}
	}
	conv, _ := tableconvertor.New(v1columns)
	vc := versionConvertor{conv: conv, columns: v1columns}
	for i, col := range v1columns {
		p, err := jsonpath.Parse(col.Name, "{"+col.JSONPath+"}")
		if err != nil {
			// The server's columns end here (tableconvertor.New).
			vc.columns = v1columns[:i]
			break
		}
		if col.Type == "date" {
			vc.dates = append(vc.dates, i+1) // after the Name cell
		}
		if walksRecursively(p.Root.Nodes) {
			vc.costly = append(vc.costly, costlyColumn{cell: i + 1, nodes: p.Root.Nodes, def: col})
		}
	}
	return vc
}

func (c *crdInfo) namespaced() bool {
	return c.crd.Spec.Scope == apiextensions.NamespaceScoped
}
