// Package servetest writes small bundles of the contract for the tests of
// serve and of the commands that run it: discovery.json, typed lists,
// custom resources, stored tables, selectable fields and container logs,
// in the layout an upgraded bundle has.
package servetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// CollectedAt is when every test bundle was collected.
var CollectedAt = time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)

// Files are a bundle's files by path relative to its root.
type Files map[string][]byte

// Write writes the bundle as a folder under dir and returns its path.
func (f Files) Write(dir string) (string, error) {
	root := filepath.Join(dir, "support-bundle-2025-11-20T10_00_00")
	for name, data := range f {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", err
		}
	}
	return root, nil
}

// WriteDir is Write that fails the test on error.
func (f Files) WriteDir(t testing.TB, dir string) string {
	t.Helper()
	root, err := f.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// WriteTarGz writes the bundle as an archive under dir and returns its path.
func (f Files) WriteTarGz(t testing.TB, dir, name string) string {
	t.Helper()
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	files := make([]contracttest.File, 0, len(names))
	for _, n := range names {
		files = append(files, contracttest.File{Name: "support-bundle-2025-11-20T10_00_00/" + n, Body: string(f[n])})
	}
	return contracttest.WriteTarGz(t, dir, name, files)
}

// Obj is a test object.
type Obj = map[string]any

// builder accumulates a bundle: discovery, lists and tables.
type builder struct {
	files Files
	disc  contract.Discovery
	rv    int
}

func newBuilder(version string) *builder {
	return &builder{
		files: Files{},
		disc: contract.Discovery{
			BundleSchemaVersion: contract.SchemaVersion,
			CollectedAt:         metav1.NewTime(CollectedAt),
			KubernetesVersion:   version,
			APIVersion:          "v1",
			Resources:           map[string][]metav1.APIResource{},
		},
		rv: 1000,
	}
}

// group advertises a group with its versions, the first preferred.
func (b *builder) group(name string, versions ...string) {
	g := metav1.APIGroup{Name: name}
	for _, v := range versions {
		gv := schema.GroupVersion{Group: name, Version: v}.String()
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v})
		if b.disc.Resources[gv] == nil {
			b.disc.Resources[gv] = []metav1.APIResource{}
		}
	}
	g.PreferredVersion = g.Versions[0]
	b.disc.Groups = append(b.disc.Groups, g)
}

var readVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// resource advertises a resource and its subresources in a group version.
func (b *builder) resource(gv, name, singular, kind string, namespaced bool, shortNames, categories []string, subs ...string) {
	b.disc.Resources[gv] = append(b.disc.Resources[gv], metav1.APIResource{
		Name: name, SingularName: singular, Namespaced: namespaced, Kind: kind, Verbs: readVerbs,
		ShortNames: shortNames, Categories: categories,
	})
	for _, s := range subs {
		r := metav1.APIResource{Name: name + "/" + s, Namespaced: namespaced, Kind: kind, Verbs: []string{"get", "patch", "update"}}
		switch s {
		case "log":
			r.Kind, r.Verbs = "Pod", []string{"get"}
		case "exec", "attach", "portforward":
			r.Kind, r.Verbs = "PodExecOptions", []string{"create", "get"}
		case "scale":
			r.Group, r.Version, r.Kind = "autoscaling", "v1", "Scale"
		}
		b.disc.Resources[gv] = append(b.disc.Resources[gv], r)
	}
}

// nextRV hands out increasing resourceVersions, as etcd does.
func (b *builder) nextRV() string {
	b.rv++
	return fmt.Sprint(b.rv)
}

// meta builds an ObjectMeta with a uid derived from the name.
func (b *builder) meta(ns, name string, labels map[string]string, age time.Duration) Obj {
	m := Obj{
		"name":              name,
		"uid":               fmt.Sprintf("uid-%s-%s", ns, name),
		"resourceVersion":   b.nextRV(),
		"creationTimestamp": CollectedAt.Add(-age).Format(time.RFC3339),
	}
	if ns != "" {
		m["namespace"] = ns
	}
	if labels != nil {
		m["labels"] = labels
	}
	return m
}

// list stores objects of one resource in one namespace ("" for
// cluster-scoped), as a typed list for built-ins and an untyped list of
// typed items for custom resources, and the table beside it when cells is
// not nil.
func (b *builder) list(gvr schema.GroupVersionResource, kind string, custom bool, ns string, objs []Obj, cols []metav1.TableColumnDefinition, cells func(Obj) []any) {
	dir := contract.DirFor(gvr.GroupResource(), custom)
	gv := gvr.GroupVersion().String()
	items := make([]Obj, len(objs))
	for i, o := range objs {
		item := Obj{}
		for k, v := range o {
			if k != conditionsKey {
				item[k] = v
			}
		}
		if custom {
			item["apiVersion"], item["kind"] = gv, kind
		}
		items[i] = item
	}
	list := Obj{"metadata": Obj{"resourceVersion": fmt.Sprint(b.rv)}, "items": items}
	if !custom {
		list["kind"], list["apiVersion"] = kind+"List", gv
	}
	b.files[contract.ResourcePath(dir, ns)] = indent(list)
	if cells == nil {
		return
	}
	rows := make([]Obj, len(objs))
	for i, o := range objs {
		rows[i] = Obj{"cells": cells(o), "object": Obj{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}}
		if c, ok := o[conditionsKey]; ok {
			rows[i]["conditions"] = c
		}
	}
	table := Obj{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": Obj{"resourceVersion": fmt.Sprint(b.rv)}, "columnDefinitions": cols, "rows": rows}
	b.files[contract.TablePath(dir, ns)] = indent(table)
}

// conditionsKey holds, in a test object, the conditions of its table row;
// it is not stored in the list.
const conditionsKey = "_rowConditions"

// byNamespace groups objects by metadata.namespace, sorted.
func byNamespace(objs []Obj) (namespaces []string, groups map[string][]Obj) {
	groups = map[string][]Obj{}
	for _, o := range objs {
		ns, _ := o["metadata"].(Obj)["namespace"].(string)
		if _, ok := groups[ns]; !ok {
			namespaces = append(namespaces, ns)
		}
		groups[ns] = append(groups[ns], o)
	}
	sort.Strings(namespaces)
	return namespaces, groups
}

// namespacedLists stores objects in one list per namespace.
func (b *builder) namespacedLists(gvr schema.GroupVersionResource, kind string, custom bool, objs []Obj, cols []metav1.TableColumnDefinition, cells func(Obj) []any) {
	namespaces, groups := byNamespace(objs)
	for _, ns := range namespaces {
		b.list(gvr, kind, custom, ns, groups[ns], cols, cells)
	}
}

func (b *builder) done() Files {
	data, err := b.disc.Marshal()
	if err != nil {
		panic(err)
	}
	b.files[contract.DiscoveryPath()] = data
	b.files[contract.VersionFilePath] = []byte("apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  runner: bundlectl-test\n  versionNumber: v0.123.14\n")
	return b.files
}

func indent(v any) []byte {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(data, '\n')
}

// col is a column definition as the server writes it.
func col(name, typ, format string, priority int32, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Format: format, Priority: priority, Description: description}
}

// age renders the AGE cell of an object as of the collection time.
func age(o Obj) string {
	t, _ := time.Parse(time.RFC3339, o["metadata"].(Obj)["creationTimestamp"].(string))
	d := CollectedAt.Sub(t)
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 3*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func name(o Obj) string { return o["metadata"].(Obj)["name"].(string) }

// logPath is where a container's log is collected.
func logPath(ns, pod, container string, previous bool) string {
	if previous {
		container += "-previous"
	}
	return path.Join(contract.ClusterResourcesDir, "pods", "logs", ns, pod, container+".log")
}

func lines(prefix string, n int) []byte {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%s line %d\n", prefix, i)
	}
	return []byte(sb.String())
}
