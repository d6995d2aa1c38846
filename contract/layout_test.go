package contract_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

func TestClassify(t *testing.T) {
	type want struct {
		class contract.Class
		dir   string
		ns    string
		gr    schema.GroupResource
		ver   string
	}
	core := func(r string) schema.GroupResource { return schema.GroupResource{Resource: r} }
	cases := map[string]want{
		"cluster-resources/pods/default.json":                                      {contract.ClassResourceList, "pods", "default", core("pods"), "v1"},
		"cluster-resources/pods/default.table.json":                                {contract.ClassTable, "pods", "default", core("pods"), "v1"},
		"cluster-resources/nodes.json":                                             {contract.ClassResourceList, "nodes", "", core("nodes"), "v1"},
		"cluster-resources/nodes.table.json":                                       {contract.ClassTable, "nodes", "", core("nodes"), "v1"},
		"cluster-resources/pvs":                                                    {contract.ClassResourceList, "pvs", "", core("persistentvolumes"), "v1"},
		"cluster-resources/clusterRoleBindings":                                    {contract.ClassResourceList, "clusterRoleBindings", "", schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}, "v1"},
		"cluster-resources/clusterRoleBindings.json":                               {contract.ClassResourceList, "clusterRoleBindings", "", schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}, "v1"},
		"cluster-resources/statefulsets-errors.json/default.json":                  {contract.ClassResourceList, "statefulsets-errors.json", "default", schema.GroupResource{Group: "apps", Resource: "replicasets"}, "v1"},
		"cluster-resources/statefulsets-errors.json":                               {class: contract.ClassErrors},
		"cluster-resources/resource-quotas/a.json":                                 {contract.ClassResourceList, "resource-quotas", "a", core("resourcequotas"), "v1"},
		"cluster-resources/namespace.json":                                         {contract.ClassResourceList, "namespace", "", core("namespaces"), "v1"},
		"cluster-resources/cronjobs/default.json":                                  {contract.ClassResourceList, "cronjobs", "default", schema.GroupResource{Group: "batch", Resource: "cronjobs"}, "v1"},
		"cluster-resources/custom-resources/addons.k3s.cattle.io/kube-system.json": {contract.ClassResourceList, "custom-resources/addons.k3s.cattle.io", "kube-system", schema.GroupResource{Group: "k3s.cattle.io", Resource: "addons"}, ""},
		"cluster-resources/custom-resources/addons.k3s.cattle.io/kube-system.yaml": {contract.ClassResourceList, "custom-resources/addons.k3s.cattle.io", "kube-system", schema.GroupResource{Group: "k3s.cattle.io", Resource: "addons"}, ""},
		"cluster-resources/custom-resources/clusterissuers.cert-manager.io.json":   {contract.ClassResourceList, "custom-resources/clusterissuers.cert-manager.io", "", schema.GroupResource{Group: "cert-manager.io", Resource: "clusterissuers"}, ""},
		"cluster-resources/custom-resource-definitions/x.example.com/ns.yaml":      {contract.ClassResourceList, "custom-resource-definitions/x.example.com", "ns", schema.GroupResource{Group: "example.com", Resource: "x"}, ""},
		"cluster-resources/custom-resources/custom-resources-errors.json":          {class: contract.ClassErrors},
		"cluster-resources/secrets/default.json":                                   {contract.ClassResourceList, "secrets", "default", core("secrets"), ""},
		"cluster-resources/horizontalpodautoscalers.autoscaling/a.json":            {contract.ClassResourceList, "horizontalpodautoscalers.autoscaling", "a", schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}, ""},
		"cluster-resources/_meta/discovery.json":                                   {class: contract.ClassDiscovery},
		"cluster-resources/_meta/selectable-fields/core.v1.pods.json":              {class: contract.ClassSelectableFields},
		"cluster-resources/_meta/ranked-rows/storage.k8s.io.storageclasses.json":   {class: contract.ClassRankedRows},
		"cluster-resources/_meta/ranked-rows/x/core.pods.json":                     {class: contract.ClassMeta},
		"cluster-resources/_meta/openapi/v3/api/v1.json":                           {class: contract.ClassOpenAPIV3},
		"cluster-resources/_meta/openapi/v3/apis/apps/v1.json":                     {class: contract.ClassOpenAPIV3},
		"cluster-resources/_meta/openapi/v3/.well-known/openid-configuration.json": {class: contract.ClassOpenAPIV3},
		"cluster-resources/_meta/openapi/v3/apis/../v1.json":                       {class: contract.ClassMeta},
		"cluster-resources/_meta/openapi/v3/apis//v1.json":                         {class: contract.ClassMeta},
		"cluster-resources/_meta/openapi/v3/api/v1.yaml":                           {class: contract.ClassMeta},
		"cluster-resources/_meta/openapi/v2.json":                                  {class: contract.ClassOpenAPIV2},
		"cluster-resources/groups.json":                                            {class: contract.ClassLegacyGroups},
		"cluster-resources/resources.json":                                         {class: contract.ClassLegacyResources},
		"cluster-resources/pods-errors.json":                                       {class: contract.ClassErrors},
		"cluster-resources/pod-disruption-budgets-info.json":                       {class: contract.ClassErrors},
		"cluster-resources/auth-cani-list/default.json":                            {class: contract.ClassOther},
		"cluster-resources/image-pull-secrets/default/creds.json":                  {class: contract.ClassOther},
		"cluster-info/cluster_version.json":                                        {class: contract.ClassClusterVersion},
		"version.yaml":                                                             {class: contract.ClassVersionFile},
		"all-logs/pod/c.log":                                                       {class: contract.ClassOther},
		"cluster-resources/pods/default.yaml":                                      {class: contract.ClassOther},
		"cluster-resources/nodes/x.json":                                           {class: contract.ClassOther}, // nodes are cluster-scoped
	}
	for rel, w := range cases {
		c := contract.Classify(rel)
		if c.Class != w.class {
			t.Errorf("%s: class %v, want %v", rel, c.Class, w.class)
			continue
		}
		if w.class != contract.ClassResourceList && w.class != contract.ClassTable {
			continue
		}
		if c.Key.Dir != w.dir || c.Key.Namespace != w.ns || c.GR != w.gr || c.Version != w.ver {
			t.Errorf("%s: got key %+v gr %v version %q", rel, c.Key, c.GR, c.Version)
		}
	}
}

func TestClassifyPodLogs(t *testing.T) {
	c := contract.Classify("cluster-resources/pods/logs/velero/velero-6996dd565b-xl44t/velero-previous.log")
	if c.Class != contract.ClassPodLog || c.Key.Namespace != "velero" || c.Pod != "velero-6996dd565b-xl44t" || c.Container != "velero" || !c.Previous {
		t.Errorf("got %+v", c)
	}
	if c := contract.Classify("cluster-resources/pods/logs/ns/p/c-logs-errors.log"); c.Class != contract.ClassErrors {
		t.Errorf("log error file classified as %v", c.Class)
	}
}

func TestPaths(t *testing.T) {
	cases := map[string]string{
		contract.ResourcePath("pods", "default"):                                                                          "cluster-resources/pods/default.json",
		contract.TablePath("pods", "default"):                                                                             "cluster-resources/pods/default.table.json",
		contract.TablePath("nodes", ""):                                                                                   "cluster-resources/nodes.table.json",
		contract.TablePath(contract.CustomResourceDir("a.example.com"), "ns"):                                             "cluster-resources/custom-resources/a.example.com/ns.table.json",
		contract.TablePathFor("cluster-resources/pvs"):                                                                    "cluster-resources/pvs.table.json",
		contract.TablePathFor("cluster-resources/custom-resources/a.b/ns.yaml"):                                           "cluster-resources/custom-resources/a.b/ns.table.json",
		contract.DiscoveryPath():                                                                                          "cluster-resources/_meta/discovery.json",
		contract.SelectableFieldsPath(schema.GroupVersionResource{Version: "v1", Resource: "pods"}):                       "cluster-resources/_meta/selectable-fields/core.v1.pods.json",
		contract.SelectableFieldsPath(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}): "cluster-resources/_meta/selectable-fields/apps.v1.replicasets.json",
		contract.DirFor(schema.GroupResource{Group: "apps", Resource: "replicasets"}, false):                              "replicasets",
		contract.DirFor(schema.GroupResource{Resource: "persistentvolumes"}, false):                                       "pvs",
		contract.DirFor(schema.GroupResource{Resource: "secrets"}, false):                                                 "secrets",
		contract.DirFor(schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}, false):          "horizontalpodautoscalers.autoscaling",
		contract.DirFor(schema.GroupResource{Group: "cert-manager.io", Resource: "certificates"}, true):                   "custom-resources/certificates.cert-manager.io",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	for _, p := range []string{"api/v1", "apis/apps/v1", "apis/example.com/v1beta1", "version", ".well-known/openid-configuration"} {
		rel := contract.OpenAPIV3Path(p)
		if back, ok := contract.OpenAPIV3DocPath(rel); !ok || back != p {
			t.Errorf("round trip of %s through %s gave %q, %v", p, rel, back, ok)
		}
	}
	for _, p := range []string{"", "/api/v1", "api/v1/", "apis/../v1", "api/./v1", "api/v 1", "api/v1?hash=x"} {
		if contract.ValidOpenAPIV3DocPath(p) {
			t.Errorf("%q is valid", p)
		}
	}
	if got := contract.OpenAPIV2Path(); got != "cluster-resources/_meta/openapi/v2.json" {
		t.Errorf("v2: %s", got)
	}
	for _, gr := range []schema.GroupResource{{Resource: "pods"}, {Group: "storage.k8s.io", Resource: "storageclasses"}} {
		back, ok := contract.ParseRankedRowsName(contract.RankedRowsPath(gr))
		if !ok || back != gr {
			t.Errorf("round trip of %v gave %v", gr, back)
		}
	}
	if got := contract.RankedRowsPath(schema.GroupResource{Resource: "pods"}); got != "cluster-resources/_meta/ranked-rows/core.pods.json" {
		t.Errorf("ranked rows: %s", got)
	}
	for _, name := range []string{"pods.json", ".pods.json", "core..json"} {
		if gr, ok := contract.ParseRankedRowsName(name); ok {
			t.Errorf("%s parsed as %v", name, gr)
		}
	}
	for _, gvr := range []schema.GroupVersionResource{
		{Version: "v1", Resource: "pods"},
		{Group: "k3s.cattle.io", Version: "v1", Resource: "addons"},
		{Group: "apps", Version: "v1beta2", Resource: "deployments"},
	} {
		back, ok := contract.ParseSelectableFieldsName(contract.SelectableFieldsPath(gvr))
		if !ok || back != gvr {
			t.Errorf("round trip of %v gave %v", gvr, back)
		}
	}
}

// What an archiver or a desktop adds beside a bundle's files is never
// taken for a list, a table, a log or the bundle's metadata.
func TestClassifyArchiverFiles(t *testing.T) {
	for _, rel := range []string{
		"cluster-resources/._pods.json", "cluster-resources/pods/._default.json", "cluster-resources/pods/._default.table.json",
		"cluster-resources/pods/logs/default/web/._app.log", "cluster-resources/_meta/._discovery.json", "._version.yaml",
		"cluster-resources/.DS_Store", "__MACOSX/cluster-resources/pods/default.json", "cluster-resources/__MACOSX/nodes.json",
	} {
		if c := contract.Classify(rel); c.Class != contract.ClassArchiverFile {
			t.Errorf("%s: %s", rel, c.Class)
		}
	}
	for _, rel := range []string{"cluster-resources/pods/default.json", "cluster-resources/pods/_default.json", "cluster-resources/custom-resources/x.example.com/.json"} {
		if contract.IsArchiverFile(rel) {
			t.Errorf("%s taken for an archiver's file", rel)
		}
	}
}
