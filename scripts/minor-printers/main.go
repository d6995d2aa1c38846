//go:build ignore

// Command main renders the lists of testdata/printers/inputs.json.gz with the
// table printers of the k8s.io/kubernetes release its module requires,
// as that release's kube-apiserver renders a list (the legacy scheme's
// decoding, defaulting and conversion to the internal version, then the
// printers with every wide column), and writes the tables as gzipped
// JSON. scripts/minor-printers.sh builds it once per release in a
// throwaway module, with a file of blank imports of every API group the
// release installs; TestMinorTables compares bundlectl's tables with
// what it writes.
//
//	go run . inputs.json.gz out.json.gz v1.NN.x
package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"
)

// inputs is testdata/printers/inputs.json.gz.
type inputs struct {
	CollectedAt time.Time `json:"collectedAt"`
	Lists       []struct {
		Resource   string            `json:"resource"` // plural.group, the key of the output
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"` // of the items
		Items      []json.RawMessage `json:"items"`
	} `json:"lists"`
}

// output is what the program writes: a table per resource the release's
// printers (or, for CustomResourceDefinitions, its default convertor)
// render, rows with their cells and conditions only; and the column
// definitions of every kind the printers print, objects given or not
// (transform's per-minor column descriptions are made of these).
type output struct {
	Kubernetes string                                    `json:"kubernetes"`
	Tables     map[string]*metav1.Table                  `json:"tables"`
	Columns    map[string][]metav1.TableColumnDefinition `json:"columns"`
}

// columnsOf records the columns each of the printers' handlers declares,
// by the name of the internal type it prints (lists left out: they share
// their item's columns).
type columnsOf map[string][]metav1.TableColumnDefinition

func (c columnsOf) TableHandler(columns []metav1.TableColumnDefinition, printFunc interface{}) error {
	t := reflect.TypeOf(printFunc).In(0)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !strings.HasSuffix(t.Name(), "List") {
		c[t.Name()] = columns
	}
	return nil
}

func main() {
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "minor-printers:", err)
		os.Exit(1)
	}
}

func run(in, out, release string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var inp inputs
	if err := json.NewDecoder(zr).Decode(&inp); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	generator := printers.NewTableGenerator().With(printersinternal.AddHandlers)
	columns := columnsOf{}
	printersinternal.AddHandlers(columns)
	res := output{Kubernetes: release, Tables: map[string]*metav1.Table{}, Columns: columns}
	for _, l := range inp.Lists {
		gv, err := schema.ParseGroupVersion(l.APIVersion)
		if err != nil {
			return err
		}
		items := make([]map[string]interface{}, len(l.Items))
		for i, raw := range l.Items {
			if err := json.Unmarshal(raw, &items[i]); err != nil {
				return err
			}
		}
		var table *metav1.Table
		if l.Kind == "CustomResourceDefinition" {
			// Its cells are absolute times.
			table, err = defaultTable(l.Resource, items)
		} else {
			// Every timestamp moves to where its distance from now falls
			// in the same whole second as its distance from the
			// collection time did, at the start of that second: the
			// printers' time.Since then gives the ages of then, as
			// bundlectl's clock does.
			now := time.Now().UTC().Truncate(time.Microsecond)
			for _, item := range items {
				shiftTimes(item, func(t time.Time) time.Time { return moved(t, inp.CollectedAt, now) })
			}
			table, err = printed(generator, gv.WithKind(l.Kind), items)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", l.Resource, err)
		}
		if table == nil {
			continue
		}
		for i := range table.Rows {
			table.Rows[i].Object = runtime.RawExtension{}
		}
		res.Tables[l.Resource] = table
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(w)
	enc := json.NewEncoder(zw)
	enc.SetIndent("", " ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return w.Close()
}

// printed renders items with the printers, decoded at the version given
// or, where the release does not serve it, at the nearest version of the
// group that has the kind (a 1.20 cluster's CronJobs are batch/v1beta1).
// nil when the release has no such kind or no printer for it.
func printed(generator *printers.HumanReadableGenerator, gvk schema.GroupVersionKind, items []map[string]interface{}) (*metav1.Table, error) {
	scheme := legacyscheme.Scheme
	if !scheme.Recognizes(gvk) {
		// The nearest version that has the kind reads the input: of the
		// same major version first (autoscaling/v2beta2, not v1, for a
		// v2 HPA), the newest first.
		gvs := scheme.PrioritizedVersionsForGroup(gvk.Group)
		major := func(v string) string { return strings.TrimLeft(v, "v")[:1] }
		sort.Slice(gvs, func(i, j int) bool {
			if mi, mj := major(gvs[i].Version) == major(gvk.Version), major(gvs[j].Version) == major(gvk.Version); mi != mj {
				return mi
			}
			return version.CompareKubeAwareVersionStrings(gvs[i].Version, gvs[j].Version) > 0
		})
		found := false
		for _, gv := range gvs {
			if scheme.Recognizes(gv.WithKind(gvk.Kind)) {
				gvk, found = gv.WithKind(gvk.Kind), true
				break
			}
		}
		if !found {
			return nil, nil
		}
	}
	list, err := scheme.New(schema.GroupVersionKind{Group: gvk.Group, Version: runtime.APIVersionInternal, Kind: gvk.Kind + "List"})
	if err != nil {
		return nil, nil
	}
	var objs []runtime.Object
	for _, item := range items {
		item["apiVersion"], item["kind"] = gvk.GroupVersion().String(), gvk.Kind
		data, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		obj, _, err := legacyscheme.Codecs.UniversalDecoder(schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}).Decode(data, nil, nil)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
	if err := meta.SetList(list, objs); err != nil {
		return nil, err
	}
	table, err := generator.GenerateTable(list, printers.GenerateOptions{Wide: true})
	if err != nil {
		// A kind the release still decodes but no longer prints (1.26's
		// PodSecurityPolicy): the releases word it differently.
		if strings.Contains(err.Error(), "unknown type") || strings.Contains(err.Error(), "no table handler registered") {
			return nil, nil
		}
		return nil, err
	}
	return table, nil
}

// defaultTable is the release's default convertor.
func defaultTable(resource string, items []map[string]interface{}) (*metav1.Table, error) {
	list := &unstructured.UnstructuredList{}
	for _, item := range items {
		list.Items = append(list.Items, unstructured.Unstructured{Object: item})
	}
	gr := schema.ParseGroupResource(resource)
	return rest.NewDefaultTableConvertor(gr).ConvertToTable(context.Background(), list, nil)
}

// moved is t moved from the collection time at to now.
func moved(t, at, now time.Time) time.Time {
	d := at.Sub(t)
	if d >= 0 {
		d = d.Truncate(time.Second)
	} else {
		d = -(-d).Truncate(time.Second) - time.Second + time.Microsecond
	}
	return now.Add(-d)
}

// shiftTimes replaces every RFC 3339 timestamp of an object by move's,
// written with microseconds (which both metav1.Time and MicroTime read).
func shiftTimes(v interface{}, move func(time.Time) time.Time) {
	shift := func(s string) string {
		if len(s) < 20 || s[4] != '-' || s[10] != 'T' {
			return s
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return s
		}
		return move(t).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	}
	switch t := v.(type) {
	case map[string]interface{}:
		for k, x := range t {
			if s, ok := x.(string); ok {
				t[k] = shift(s)
			} else {
				shiftTimes(x, move)
			}
		}
	case []interface{}:
		for i, x := range t {
			if s, ok := x.(string); ok {
				t[i] = shift(s)
			} else {
				shiftTimes(x, move)
			}
		}
	}
}
