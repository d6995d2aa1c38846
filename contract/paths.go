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
	TableSuffix         = ".table.json"
	ClusterVersionPath  = "cluster-info/cluster_version.json"
	CRDListPath         = "cluster-resources/custom-resource-definitions.json"
	VersionFilePath     = "version.yaml"
)

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
	g := gvr.Group
	if g == "" {
		g = "core"
	}
	return path.Join(ClusterResourcesDir, MetaDir, SelectableFieldsDir, g+"."+gvr.Version+"."+gvr.Resource+".json")
}

// ParseSelectableFieldsName is the inverse of SelectableFieldsPath's file name.
// Groups hold dots, versions never do, so the version is the first dot-separated
// element that looks like a Kubernetes version, scanning from the right.
func ParseSelectableFieldsName(name string) (schema.GroupVersionResource, bool) {
	name = strings.TrimSuffix(path.Base(name), ".json")
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
