package transform

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/embedded"
)

// Each release's printers describe their columns with its own API docs
// (the SwaggerDoc of k8s.io/api and apimachinery), whose wording changes
// from release to release: a table of an older minor carries that
// minor's descriptions, which kubectl never prints but clients that show
// column help (and the comparison with the live server) read.
//
// minors_descriptions.json.gz holds, for every minor older than the pin,
// the descriptions its printers declared where they differ from the
// pinned printers', by the internal kind printed and the column's name in
// that minor: {"1.31": {"DaemonSet": {"Ready": "..."}}}. It is made, not
// written: TestMinorDescriptions -update derives it from the column
// definitions each release's own printers declared, which
// scripts/minor-printers.sh records in testdata/printers/1.NN.json.gz,
// and fails when the two disagree.
//
//go:embed minors_descriptions.json.gz
var minorDescriptionsGz []byte

// minorDescriptionsFile is minors_descriptions.json.gz's content, by minor
// ("1.31"), kind and column.
type minorDescriptionsFile map[string]map[string]map[string]string

var minorDescriptions = sync.OnceValue(func() map[int]map[string]map[string]string {
	d, err := readMinorDescriptions(minorDescriptionsGz)
	if err != nil {
		panic("transform: minors_descriptions.json.gz: " + err.Error())
	}
	out := make(map[int]map[string]map[string]string, len(d))
	for minor, kinds := range d {
		out[contract.MinorNumber(minor)] = kinds
	}
	return out
})

func readMinorDescriptions(gz []byte) (minorDescriptionsFile, error) {
	d, err := embedded.GzipJSON[minorDescriptionsFile](gz)
	if err != nil {
		return nil, err
	}
	for minor := range d {
		if n := contract.MinorNumber(minor); n < oldestMinor || n >= pinnedMinor {
			return nil, fmt.Errorf("minor %q is not one older than the pin that bundlectl renders for", minor)
		}
	}
	return d, nil
}

// describeForMinor gives a kind's columns the descriptions of the minor.
// The definitions are the printers' own, shared by every table of the
// kind: they are copied before they change.
func describeForMinor(minor int, kind string, table *metav1.Table) {
	d := minorDescriptions()[minor][kind]
	if len(d) == 0 {
		return
	}
	table.ColumnDefinitions = slices.Clone(table.ColumnDefinitions)
	for i := range table.ColumnDefinitions {
		if desc, ok := d[table.ColumnDefinitions[i].Name]; ok {
			table.ColumnDefinitions[i].Description = desc
		}
	}
}

// objectMetaNameDocUpTo26 is ObjectMeta's name doc up to 1.26
// (k8s.io/apimachinery v0.26 pkg/apis/meta/v1/types_swagger_doc_generated.go;
// 1.27 moved its link). The default and custom resource convertors, which
// the printers' recordings do not cover, describe their Name column with it,
// and so does kube-aggregator's APIService convertor.
const objectMetaNameDocUpTo26 = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names"

// describeNameForMinor gives the Name column of a default, custom
// resource or APIService table the minor's ObjectMeta doc.
func describeNameForMinor(minor int, table *metav1.Table) {
	if minor > 26 || table == nil {
		return
	}
	table.ColumnDefinitions = slices.Clone(table.ColumnDefinitions)
	for i, c := range table.ColumnDefinitions {
		if c.Name == "Name" && c.Format == "name" {
			table.ColumnDefinitions[i].Description = objectMetaNameDocUpTo26
		}
	}
}
