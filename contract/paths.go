package contract

import (
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Names of the folders and files that the contract adds to a bundle. All
// paths in this package are slash-separated and relative to the bundle root
// (the folder that holds version.yaml and cluster-resources/).
const (
	ClusterResourcesDir = "cluster-resources"
	CustomResourcesDir  = "custom-resources"
	MetaDir             = "_meta"
	DiscoveryFile       = "discovery.json"
	SelectableFieldsDir = "selectable-fields"
	RankedRowsDir       = "ranked-rows"
	ConvertedDir        = "converted"
	OpenAPIDir          = "openapi"
	TableSuffix         = ".table.json"
	ClusterVersionPath  = "cluster-info/cluster_version.json"
	CRDListPath         = "cluster-resources/custom-resource-definitions.json"
	VersionFilePath     = "version.yaml"
	// HostCollectorsDir holds what troubleshoot's host collectors found
	// of the machines (a host-only bundle holds nothing else).
	HostCollectorsDir = "host-collectors"
)

// NoClusterResources says why a bundle without cluster-resources/ has
// no tables, discovery or objects: it was made by host collectors, or
// holds an analysis or a preflight's results only.
const NoClusterResources = "the bundle holds no cluster resources (" + noClusterResourcesWhy + ")"

const noClusterResourcesWhy = "no cluster-resources/ folder: host collectors, analysis or preflight results only"

// DiscoveryPath is where a bundle of the new schema keeps its discovery.
func DiscoveryPath() string {
	return path.Join(ClusterResourcesDir, MetaDir, DiscoveryFile)
}

// MetaPath is the folder of the contract's metadata.
func MetaPath() string { return path.Join(ClusterResourcesDir, MetaDir) }

// ResourcePath is the raw list of a resource folder: dir is the bundle's
// folder name for the resource (pods, pvs, storage-classes, or
// custom-resources/<plural.group>), ns is empty for cluster-scoped lists.
func ResourcePath(dir, ns string) string {
	if ns == "" {
		return path.Join(ClusterResourcesDir, dir+".json")
	}
	return path.Join(ClusterResourcesDir, dir, ns+".json")
}

// TablePath is the meta.k8s.io/v1 Table that sits beside ResourcePath(dir, ns).
func TablePath(dir, ns string) string {
	if ns == "" {
		return path.Join(ClusterResourcesDir, dir+TableSuffix)
	}
	return path.Join(ClusterResourcesDir, dir, ns+TableSuffix)
}

// CustomResourceDir is the folder name of a CRD's objects: custom-resources/<plural.group>.
func CustomResourceDir(crdName string) string {
	return path.Join(CustomResourcesDir, crdName)
}

// SelectableFieldsPath is the optional list of field-selector labels that the
// live server accepted for gvr: _meta/selectable-fields/{group|core}.{version}.{resource}.json.
func SelectableFieldsPath(gvr schema.GroupVersionResource) string {
	return path.Join(ClusterResourcesDir, MetaDir, SelectableFieldsDir, gvrName(gvr)+".json")
}

// RankedRowsPath is where a bundle keeps the ranked rows of gr
// (RankedRows): _meta/ranked-rows/{group|core}.{resource}.json.
func RankedRowsPath(gr schema.GroupResource) string {
	g := gr.Group
	if g == "" {
		g = "core"
	}
	return path.Join(ClusterResourcesDir, MetaDir, RankedRowsDir, g+"."+gr.Resource+".json")
}

// ParseRankedRowsName is the inverse of RankedRowsPath's file name.
// Groups hold dots and resources never do, so the resource is the last
// dot-separated element.
func ParseRankedRowsName(name string) (schema.GroupResource, bool) {
	stem := strings.TrimSuffix(path.Base(name), ".json")
	dot := strings.LastIndexByte(stem, '.')
	if dot <= 0 || dot == len(stem)-1 {
		return schema.GroupResource{}, false
	}
	g, r := stem[:dot], stem[dot+1:]
	if g == "core" {
		g = ""
	}
	return schema.GroupResource{Group: g, Resource: r}, true
}

// ConvertedListDir is the folder (relative to cluster-resources/, as
// ListKey.Dir) of the lists of gvr that the upgrade converted from the
// version or group the bundle stored them at:
// _meta/converted/{group|core}.{version}.{resource}. ResourcePath and
// TablePath with this folder give each list and its table:
// _meta/converted/events.k8s.io.v1.events/<ns>.json and, for a
// cluster-scoped resource, _meta/converted/<gvr name>.json.
func ConvertedListDir(gvr schema.GroupVersionResource) string {
	return path.Join(MetaDir, ConvertedDir, gvrName(gvr))
}

// gvrName is {group|core}.{version}.{resource}, the name the contract
// gives a file or folder of one group version resource.
func gvrName(gvr schema.GroupVersionResource) string {
	g := gvr.Group
	if g == "" {
		g = "core"
	}
	return g + "." + gvr.Version + "." + gvr.Resource
}

// ParseSelectableFieldsName is the inverse of SelectableFieldsPath's file name.
func ParseSelectableFieldsName(name string) (schema.GroupVersionResource, bool) {
	return parseGVRName(strings.TrimSuffix(path.Base(name), ".json"))
}

// parseGVRName is the inverse of gvrName. Groups hold dots, versions and
// resources never do, so the resource is the last dot-separated element
// and the version the one before it.
func parseGVRName(name string) (schema.GroupVersionResource, bool) {
	parts := strings.Split(name, ".")
	if len(parts) < 3 {
		return schema.GroupVersionResource{}, false
	}
	resource := parts[len(parts)-1]
	version := parts[len(parts)-2]
	group := strings.Join(parts[:len(parts)-2], ".")
	if group == "core" {
		group = ""
	}
	if resource == "" || version == "" || !strings.HasPrefix(version, "v") {
		return schema.GroupVersionResource{}, false
	}
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, true
}

// OpenAPIV3Path is where a bundle keeps the OpenAPI v3 document the server
// serves at /openapi/v3/<docPath> (docPath as the /openapi/v3 index names
// it: "api/v1", "apis/apps/v1", "version"):
// _meta/openapi/v3/<docPath>.json, the document byte for byte.
func OpenAPIV3Path(docPath string) string {
	return path.Join(ClusterResourcesDir, MetaDir, OpenAPIDir, "v3", docPath+".json")
}

// OpenAPIV2Path is where a bundle keeps the server's /openapi/v2 document,
// as JSON: _meta/openapi/v2.json.
func OpenAPIV2Path() string {
	return path.Join(ClusterResourcesDir, MetaDir, OpenAPIDir, "v2.json")
}

// OpenAPIV3DocPath is the inverse of OpenAPIV3Path: the path under
// /openapi/v3/ whose document the file holds. It is false for any other
// file and for a path no server could serve (empty, "." or ".." elements,
// characters outside letters, digits and ".-_~").
func OpenAPIV3DocPath(rel string) (string, bool) {
	p, ok := strings.CutPrefix(rel, path.Join(ClusterResourcesDir, MetaDir, OpenAPIDir, "v3")+"/")
	if !ok {
		return "", false
	}
	p, ok = strings.CutSuffix(p, ".json")
	if !ok || !ValidOpenAPIV3DocPath(p) {
		return "", false
	}
	return p, true
}

// ValidOpenAPIV3DocPath says whether p can name an /openapi/v3 document:
// slash-separated elements of letters, digits and ".-_~", none empty, "."
// or "..".
func ValidOpenAPIV3DocPath(p string) bool {
	if p == "" {
		return false
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		for _, r := range elem {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_~", r)) {
				return false
			}
		}
	}
	return true
}

// TablePathFor is the table path beside a raw list at rel, whatever its legacy
// extension: pods/default.json, custom-resources/x.y/ns.yaml and the
// extensionless pvs all get <stem>.table.json.
func TablePathFor(rel string) string {
	for _, ext := range []string{".json", ".yaml"} {
		if strings.HasSuffix(rel, ext) {
			return strings.TrimSuffix(rel, ext) + TableSuffix
		}
	}
	return rel + TableSuffix
}
