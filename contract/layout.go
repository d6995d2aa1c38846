package contract

import (
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// LegacyDir is one folder or file name that troubleshoot has used for a
// built-in resource, with the group version it normally stores. The version
// is only a default: a list that carries apiVersion (CronJobs stored as
// batch/v1beta1 before troubleshoot v0.93.1) says what it really holds.
type LegacyDir struct {
	Name       string
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
	// Canonical is false for names that were regressions or renames; the
	// contract keeps reading them but writers use the canonical name.
	Canonical bool
}

func gvr(g, v, r string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: g, Version: v, Resource: r}
}

// legacyDirs lists every name troubleshoot has written under
// cluster-resources/ for a resource list, from v0.9 (2020) to v0.133 (2026).
// See ../shared/research/troubleshoot-format.md §2.1, §2.4 and §2.7.
var legacyDirs = []LegacyDir{
	{"namespaces", gvr("", "v1", "namespaces"), "Namespace", false, true},
	{"namespace", gvr("", "v1", "namespaces"), "Namespace", false, false}, // v0.56–v0.59
	{"nodes", gvr("", "v1", "nodes"), "Node", false, true},
	{"pvs", gvr("", "v1", "persistentvolumes"), "PersistentVolume", false, true},
	{"storage-classes", gvr("storage.k8s.io", "v1", "storageclasses"), "StorageClass", false, true},
	{"ingress-classes", gvr("networking.k8s.io", "v1", "ingressclasses"), "IngressClass", false, true},
	{"priorityclasses", gvr("scheduling.k8s.io", "v1", "priorityclasses"), "PriorityClass", false, true},
	{"custom-resource-definitions", gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions"), "CustomResourceDefinition", false, true},
	{"clusterroles", gvr("rbac.authorization.k8s.io", "v1", "clusterroles"), "ClusterRole", false, true},
	{"clusterrolebindings", gvr("rbac.authorization.k8s.io", "v1", "clusterrolebindings"), "ClusterRoleBinding", false, true},
	{"clusterRoleBindings", gvr("rbac.authorization.k8s.io", "v1", "clusterrolebindings"), "ClusterRoleBinding", false, false}, // before v0.65
	{"volumeattachments", gvr("storage.k8s.io", "v1", "volumeattachments"), "VolumeAttachment", false, true},
	{"certificatesigningrequests", gvr("certificates.k8s.io", "v1", "certificatesigningrequests"), "CertificateSigningRequest", false, true},
	{"validating-webhook-configurations", gvr("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"), "ValidatingWebhookConfiguration", false, true},
	{"mutating-webhook-configurations", gvr("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"), "MutatingWebhookConfiguration", false, true},

	{"pods", gvr("", "v1", "pods"), "Pod", true, true},
	{"services", gvr("", "v1", "services"), "Service", true, true},
	{"events", gvr("", "v1", "events"), "Event", true, true},
	{"limitranges", gvr("", "v1", "limitranges"), "LimitRange", true, true},
	{"pvcs", gvr("", "v1", "persistentvolumeclaims"), "PersistentVolumeClaim", true, true},
	{"endpoints", gvr("", "v1", "endpoints"), "Endpoints", true, true},
	{"serviceaccounts", gvr("", "v1", "serviceaccounts"), "ServiceAccount", true, true},
	{"configmaps", gvr("", "v1", "configmaps"), "ConfigMap", true, true},
	{"resource-quota", gvr("", "v1", "resourcequotas"), "ResourceQuota", true, true},
	{"resource-quotas", gvr("", "v1", "resourcequotas"), "ResourceQuota", true, false}, // v0.44–v0.55
	{"deployments", gvr("apps", "v1", "deployments"), "Deployment", true, true},
	{"statefulsets", gvr("apps", "v1", "statefulsets"), "StatefulSet", true, true},
	{"daemonsets", gvr("apps", "v1", "daemonsets"), "DaemonSet", true, true},
	{"replicasets", gvr("apps", "v1", "replicasets"), "ReplicaSet", true, true},
	// v0.56.0–v0.123.15 wrote ReplicaSets into a folder named like the
	// StatefulSet error file (troubleshoot issue #1916).
	{"statefulsets-errors.json", gvr("apps", "v1", "replicasets"), "ReplicaSet", true, false},
	{"jobs", gvr("batch", "v1", "jobs"), "Job", true, true},
	{"cronjobs", gvr("batch", "v1", "cronjobs"), "CronJob", true, true},
	{"ingress", gvr("networking.k8s.io", "v1", "ingresses"), "Ingress", true, true},
	{"network-policy", gvr("networking.k8s.io", "v1", "networkpolicies"), "NetworkPolicy", true, true},
	{"pod-disruption-budgets", gvr("policy", "v1", "poddisruptionbudgets"), "PodDisruptionBudget", true, true},
	{"roles", gvr("rbac.authorization.k8s.io", "v1", "roles"), "Role", true, true},
	{"rolebindings", gvr("rbac.authorization.k8s.io", "v1", "rolebindings"), "RoleBinding", true, true},
	{"endpointslices", gvr("discovery.k8s.io", "v1", "endpointslices"), "EndpointSlice", true, true},
	{"leases", gvr("coordination.k8s.io", "v1", "leases"), "Lease", true, true},
}

// extensionless names: v0.56–v0.69 wrote these cluster-scoped lists without .json.
var extensionless = map[string]bool{"pvs": true, "clusterroles": true, "clusterRoleBindings": true}

var legacyByName = func() map[string]LegacyDir {
	m := make(map[string]LegacyDir, len(legacyDirs))
	for _, d := range legacyDirs {
		m[d.Name] = d
	}
	return m
}()

// LegacyDirFor returns the canonical bundle folder name for a built-in
// resource, or false when troubleshoot has never collected it; writers then
// use GenericDir.
func LegacyDirFor(gr schema.GroupResource) (LegacyDir, bool) {
	for _, d := range legacyDirs {
		if d.Canonical && d.GVR.GroupResource() == gr {
			return d, true
		}
	}
	return LegacyDir{}, false
}

// GenericDir names the folder of a resource troubleshoot never collected
// (secrets, horizontalpodautoscalers.autoscaling): <plural> for the core
// group, <plural>.<group> otherwise, as custom resources are named.
func GenericDir(gr schema.GroupResource) string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// DirFor is the folder (relative to cluster-resources/) where a writer puts
// the lists of gr: the canonical troubleshoot name for kinds troubleshoot
// collects, custom-resources/<plural.group> for custom resources, and
// GenericDir for the rest.
func DirFor(gr schema.GroupResource, custom bool) string {
	if custom {
		return CustomResourceDir(GenericDir(gr))
	}
	if d, ok := LegacyDirFor(gr); ok {
		return d.Name
	}
	return GenericDir(gr)
}

// Class says what an entry of a bundle is.
type Class int

const (
	ClassOther            Class = iota
	ClassResourceList           // a raw list of objects
	ClassTable                  // a meta.k8s.io/v1 Table beside a raw list
	ClassDiscovery              // _meta/discovery.json
	ClassSelectableFields       // _meta/selectable-fields/*.json
	ClassMeta                   // anything else under _meta/
	ClassLegacyGroups           // cluster-resources/groups.json
	ClassLegacyResources        // cluster-resources/resources.json
	ClassClusterVersion         // cluster-info/cluster_version.json
	ClassVersionFile            // version.yaml
	ClassPodLog                 // cluster-resources/pods/logs/<ns>/<pod>/<container>[-previous].log
	ClassErrors                 // a collector's error report
	ClassOpenAPIV3              // _meta/openapi/v3/<path>.json
	ClassOpenAPIV2              // _meta/openapi/v2.json
	ClassArchiverFile           // an archiver's or desktop's metadata beside the bundle's files (IsArchiverFile)
	ClassRankedRows             // _meta/ranked-rows/*.json
)

var classNames = map[Class]string{
	ClassOther: "other", ClassResourceList: "list", ClassTable: "table", ClassDiscovery: "discovery",
	ClassSelectableFields: "selectable-fields", ClassMeta: "meta", ClassLegacyGroups: "groups",
	ClassLegacyResources: "resources", ClassClusterVersion: "cluster-version", ClassVersionFile: "version",
	ClassPodLog: "pod-log", ClassErrors: "errors", ClassOpenAPIV3: "openapi-v3", ClassOpenAPIV2: "openapi-v2",
	ClassArchiverFile: "archiver-file", ClassRankedRows: "ranked-rows",
}

func (c Class) String() string { return classNames[c] }

// Format is the encoding of a raw list.
type Format int

const (
	FormatJSON Format = iota
	FormatYAML
)

// ListKey identifies one raw list and its table: the bundle folder of the
// resource and the namespace ("" for cluster-scoped lists).
type ListKey struct {
	Dir       string
	Namespace string
}

// TablePath is where the key's table lives.
func (k ListKey) TablePath() string { return TablePath(k.Dir, k.Namespace) }

// Classification is what the contract knows of one entry from its path alone.
type Classification struct {
	Class Class
	// For lists and tables.
	Key ListKey
	// GR is the resource the folder holds; for generic and custom folders it
	// is parsed from <plural>.<group> and must be confirmed by discovery.
	GR schema.GroupResource
	// Version is the group version the folder normally holds ("" when only
	// the objects can tell).
	Version    string
	Kind       string
	Namespaced bool
	Custom     bool // custom-resources/ (or the v0.56–v0.64 custom-resource-definitions/ folder)
	Generic    bool // a folder name not in the legacy table
	// Converted is set for a list (or its table) under _meta/converted/:
	// the objects of another list of the bundle, converted by the upgrade
	// to the group version GR and Version name (ConvertedListDir). The
	// path does not tell whether the resource is a custom one.
	Converted bool
	Format    Format
	// For pod logs.
	Pod, Container string
	Previous       bool
}

// nonResources are names under cluster-resources/ that are not lists of API objects.
var nonResources = map[string]bool{
	"auth-cani-list": true, "image-pull-secrets": true, "groups": true, "resources": true, "license": true,
}

// Classify maps a path relative to the bundle root to what it holds.
func Classify(rel string) Classification {
	if IsArchiverFile(rel) {
		return Classification{Class: ClassArchiverFile}
	}
	switch rel {
	case VersionFilePath:
		return Classification{Class: ClassVersionFile}
	case ClusterVersionPath:
		return Classification{Class: ClassClusterVersion}
	}
	rest, ok := strings.CutPrefix(rel, ClusterResourcesDir+"/")
	if !ok {
		return Classification{Class: ClassOther}
	}
	if m, ok := strings.CutPrefix(rest, MetaDir+"/"); ok {
		switch {
		case m == DiscoveryFile:
			return Classification{Class: ClassDiscovery}
		case strings.HasPrefix(m, SelectableFieldsDir+"/") && strings.HasSuffix(m, ".json") && strings.Count(m, "/") == 1:
			return Classification{Class: ClassSelectableFields}
		case strings.HasPrefix(m, RankedRowsDir+"/") && strings.HasSuffix(m, ".json") && strings.Count(m, "/") == 1:
			return Classification{Class: ClassRankedRows}
		case rel == OpenAPIV2Path():
			return Classification{Class: ClassOpenAPIV2}
		case strings.HasPrefix(m, ConvertedDir+"/"):
			return classifyConverted(strings.Split(strings.TrimPrefix(m, ConvertedDir+"/"), "/"))
		}
		if _, ok := OpenAPIV3DocPath(rel); ok {
			return Classification{Class: ClassOpenAPIV3}
		}
		return Classification{Class: ClassMeta}
	}
	switch rest {
	case "groups.json":
		return Classification{Class: ClassLegacyGroups}
	case "resources.json":
		return Classification{Class: ClassLegacyResources}
	}
	if c, ok := classifyPodLog(rest); ok {
		return c
	}
	if isErrorFile(rest) {
		return Classification{Class: ClassErrors}
	}
	parts := strings.Split(rest, "/")
	for _, customRoot := range []string{CustomResourcesDir, "custom-resource-definitions"} {
		if parts[0] == customRoot && len(parts) > 1 {
			return classifyCustom(customRoot, parts[1:])
		}
	}
	return classifyBuiltin(parts)
}

func isErrorFile(rest string) bool {
	base := path.Base(rest)
	return strings.HasSuffix(base, "-errors.json") && !strings.Contains(rest, "statefulsets-errors.json/") ||
		strings.HasSuffix(base, "-logs-errors.log") || strings.HasSuffix(base, "-info.json") ||
		base == "errors.json"
}

func classifyPodLog(rest string) (Classification, bool) {
	parts := strings.Split(rest, "/")
	if len(parts) != 5 || parts[0] != "pods" || parts[1] != "logs" || !strings.HasSuffix(parts[4], ".log") {
		return Classification{}, false
	}
	if strings.HasSuffix(parts[4], "-logs-errors.log") {
		return Classification{Class: ClassErrors}, true
	}
	container := strings.TrimSuffix(parts[4], ".log")
	c := Classification{Class: ClassPodLog, Key: ListKey{Dir: "pods", Namespace: parts[2]}, Pod: parts[3]}
	if name, ok := strings.CutSuffix(container, "-previous"); ok {
		c.Previous = true
		container = name
	}
	c.Container = container
	return c, true
}

// splitList takes the last path element of a list or table and says which.
func splitList(name string) (stem string, class Class, format Format, ok bool) {
	switch {
	case strings.HasSuffix(name, TableSuffix):
		return strings.TrimSuffix(name, TableSuffix), ClassTable, FormatJSON, true
	case strings.HasSuffix(name, ".json"):
		return strings.TrimSuffix(name, ".json"), ClassResourceList, FormatJSON, true
	case strings.HasSuffix(name, ".yaml"):
		return strings.TrimSuffix(name, ".yaml"), ClassResourceList, FormatYAML, true
	}
	return "", ClassOther, FormatJSON, false
}

func classifyBuiltin(parts []string) Classification {
	switch len(parts) {
	case 1: // cluster-scoped: <name>.json, <name>.table.json, or an extensionless legacy name
		name := parts[0]
		stem, class, format, ok := splitList(name)
		if !ok {
			if !extensionless[name] {
				return Classification{Class: ClassOther}
			}
			stem, class = name, ClassResourceList
		}
		if format != FormatJSON {
			return Classification{Class: ClassOther}
		}
		return resourceClass(stem, "", class, format, false)
	case 2: // namespaced: <dir>/<ns>.json
		stem, class, format, ok := splitList(parts[1])
		if !ok || format != FormatJSON || stem == "" {
			return Classification{Class: ClassOther}
		}
		return resourceClass(parts[0], stem, class, format, true)
	}
	return Classification{Class: ClassOther}
}

func resourceClass(dir, ns string, class Class, format Format, namespaced bool) Classification {
	if nonResources[dir] || dir == "" {
		return Classification{Class: ClassOther}
	}
	c := Classification{Class: class, Key: ListKey{Dir: dir, Namespace: ns}, Format: format, Namespaced: namespaced}
	if d, ok := legacyByName[dir]; ok {
		if d.Namespaced != namespaced {
			return Classification{Class: ClassOther}
		}
		c.GR, c.Version, c.Kind = d.GVR.GroupResource(), d.GVR.Version, d.Kind
		return c
	}
	c.Generic = true
	c.GR = parseGenericDir(dir)
	return c
}

// classifyConverted reads _meta/converted/<gvr name>.json (cluster-scoped)
// and _meta/converted/<gvr name>/<ns>.json, and their tables.
func classifyConverted(parts []string) Classification {
	var name, ns string
	var c Classification
	switch len(parts) {
	case 1:
		stem, class, format, ok := splitList(parts[0])
		if !ok || format != FormatJSON {
			return Classification{Class: ClassMeta}
		}
		name, c.Class = stem, class
	case 2:
		stem, class, format, ok := splitList(parts[1])
		if !ok || format != FormatJSON || stem == "" {
			return Classification{Class: ClassMeta}
		}
		name, ns, c.Class, c.Namespaced = parts[0], stem, class, true
	default:
		return Classification{Class: ClassMeta}
	}
	gvr, ok := parseGVRName(name)
	if !ok {
		return Classification{Class: ClassMeta}
	}
	c.GR, c.Version, c.Converted = gvr.GroupResource(), gvr.Version, true
	c.Key = ListKey{Dir: ConvertedListDir(gvr), Namespace: ns}
	return c
}

func classifyCustom(root string, parts []string) Classification {
	var c Classification
	switch len(parts) {
	case 1:
		stem, class, format, ok := splitList(parts[0])
		if !ok || stem == "" {
			return Classification{Class: ClassOther}
		}
		c = Classification{Class: class, Format: format, Key: ListKey{Dir: path.Join(root, stem)}}
		c.GR = parseGenericDir(stem)
	case 2:
		stem, class, format, ok := splitList(parts[1])
		if !ok || stem == "" {
			return Classification{Class: ClassOther}
		}
		c = Classification{Class: class, Format: format, Key: ListKey{Dir: path.Join(root, parts[0]), Namespace: stem}, Namespaced: true}
		c.GR = parseGenericDir(parts[0])
	default:
		return Classification{Class: ClassOther}
	}
	c.Custom = true
	// The contract writes custom resources under custom-resources/; keep the
	// regression folder's key distinct so its table lands beside it.
	return c
}

func parseGenericDir(name string) schema.GroupResource {
	resource, group, _ := strings.Cut(name, ".")
	return schema.GroupResource{Group: group, Resource: resource}
}
