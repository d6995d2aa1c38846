package serve

import (
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"

	"github.com/bundlectl/bundlectl/serve/index"
)

// Tables are what kubectl prints: without one, `kubectl get` shows only
// NAME and AGE. The rows come from the tables the bundle stored beside
// each list, so every kind shows its real columns, computed when the
// bundle was collected (ages are as of the collection time). Objects
// without a stored table get the server's default convertor, Name and
// Created At, which is what the server itself serves for kinds without
// printers.

// includeObject decodes a Table request's includeObject as the server
// decodes its TableOptions.
func includeObject(r *http.Request) (metav1.IncludeObjectPolicy, error) {
	if r.URL.RawQuery == "" {
		// What decoding no parameters gives, without the scheme's
		// conversion: most Table requests have no query.
		return "", nil
	}
	opts := &metav1.TableOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return "", apierrors.NewBadRequest(err.Error())
	}
	switch errs := validation.ValidateTableOptions(opts); len(errs) {
	case 0:
		return opts.IncludeObject, nil
	case 1:
		return "", apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error()))
	default:
		return "", apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs))
	}
}

// appendTable renders a Table of objs: of a list when list is set, of
// one object otherwise (a GET, a watch event), which the printers of some
// releases print differently (index.Resource.RowOf). noHeaders leaves
// the column definitions out (null), as watch events after the first do.
func (s *server) appendTable(b *body, res *index.Resource, groupVersion string, meta []byte, objs []*index.Object, include metav1.IncludeObjectPolicy, list, noHeaders bool) {
	b.add(tableHead(groupVersion))
	b.add(meta)
	b.add(tableColumns)
	if noHeaders {
		b.add(null)
	} else {
		b.add(res.Columns())
	}
	b.add(tableRows)
	b.grow(8*len(objs) + 1)
	var top *index.Object
	if list {
		top = res.TopRanked(objs)
	}
	for i, o := range objs {
		if i > 0 {
			b.add(comma)
		}
		b.add(rowCells)
		// Every object has its row from load (fillRows).
		row := res.RowOf(o, top)
		b.add(row.Cells)
		if row.Conditions != nil {
			b.add(rowConds)
			b.add(row.Conditions)
		}
		b.add(rowObject)
		switch include {
		case metav1.IncludeNone:
			b.add(null)
		case metav1.IncludeObject:
			appendTyped(b, o)
		case includeLeanMetadata:
			appendLeanPartial(b, o, groupVersion)
		default:
			appendPartial(b, o, groupVersion)
		}
		b.add(closeBrace)
	}
	b.add(tableEnd)
}

// The envelope of a Table, shared by every request for one.
var (
	tableV1      = tablePrefix(metaV1)
	tableV1beta1 = tablePrefix(metaV1beta1)
	tableColumns = []byte(`,"columnDefinitions":`)
	tableRows    = []byte(`,"rows":[`)
	tableEnd     = []byte("]}")
)

func tablePrefix(groupVersion string) []byte {
	return []byte(`{"kind":"Table","apiVersion":` + quote(groupVersion) + `,"metadata":`)
}

// tableHead opens a Table, up to its metadata.
func tableHead(groupVersion string) []byte {
	switch groupVersion {
	case metaV1:
		return tableV1
	case metaV1beta1:
		return tableV1beta1
	}
	return tablePrefix(groupVersion)
}

// includeLeanMetadata is the row object of kubectl's Tables (rowPolicy):
// PartialObjectMetadata without managedFields. No request can ask for it.
const includeLeanMetadata metav1.IncludeObjectPolicy = "bundlectl.io/LeanMetadata"

// rowPolicy is what the rows of a request's Tables carry: what it asked
// for, except that kubectl's row metadata leaves managedFields out.
// kubectl prints nothing from them (only -o json and -o yaml with
// --show-managed-fields show them, and those do not ask for Tables), yet
// they are most of a pod's metadata, and kubectl decodes every row's
// metadata three times (into a map, back to JSON, into
// PartialObjectMetadata): they were half of the CPU time of `kubectl get
// pods -A` at 10,000 pods. Every other client gets the server's rows
// byte for byte.
func rowPolicy(r *http.Request, p metav1.IncludeObjectPolicy) metav1.IncludeObjectPolicy {
	if (p == metav1.IncludeMetadata || p == "") && isKubectl(r.UserAgent()) {
		return includeLeanMetadata
	}
	return p
}

// isKubectl says whether a User-Agent is kubectl's: client-go starts it
// with the binary's name (kubectl, kubectl.exe, or a versioned
// kubectl.1.33) and a slash.
func isKubectl(userAgent string) bool {
	product, _, ok := strings.Cut(userAgent, "/")
	return ok && (product == "kubectl" || strings.HasPrefix(product, "kubectl."))
}

// appendLeanPartial renders an object as PartialObjectMetadata without
// its managedFields.
func appendLeanPartial(b *body, o *index.Object, groupVersion string) {
	head, tail := o.LeanMetadata()
	b.add(partialHead(groupVersion))
	b.add(head)
	if tail != nil {
		b.add(tail)
	}
	b.add(closeBrace)
}
