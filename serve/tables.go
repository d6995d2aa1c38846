package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// Tables are what kubectl prints: without one, `kubectl get` shows only
// NAME and AGE. The rows come from the tables the bundle stored beside
// each list, so every kind shows its real columns, computed when the
// bundle was collected (ages are as of the collection time). Objects
// without a stored table get the server's default convertor, Name and
// Created At, which is what the server itself serves for kinds without
// printers.

// tableOptions decodes includeObject as the server does.
func tableOptions(r *http.Request) (*metav1.TableOptions, error) {
	opts := &metav1.TableOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	switch errs := validation.ValidateTableOptions(opts); len(errs) {
	case 0:
		return opts, nil
	case 1:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error()))
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs))
	}
}

// defaultColumns are the default convertor's (k8s.io/apiserver/pkg/registry/rest/table.go).
var defaultColumns = func() []byte {
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	data, _ := json.Marshal([]metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: docs["name"]},
		{Name: "Created At", Type: "date", Description: docs["creationTimestamp"]},
	})
	return data
}()

// appendTable renders a Table of objs. noHeaders leaves the column
// definitions out (null), as watch events after the first do.
func (s *server) appendTable(b *body, res *resource, groupVersion string, meta []byte, objs []*object, include metav1.IncludeObjectPolicy, noHeaders bool) {
	b.addString(`{"kind":"Table","apiVersion":` + quote(groupVersion) + `,"metadata":`)
	b.add(meta)
	b.addString(`,"columnDefinitions":`)
	switch {
	case noHeaders:
		b.addString("null")
	case res.columns != nil:
		b.add(res.columns)
	default:
		b.add(defaultColumns)
	}
	b.addString(`,"rows":[`)
	b.grow(8*len(objs) + 1)
	for i, o := range objs {
		if i > 0 {
			b.add(comma)
		}
		b.add(rowCells)
		// Every object has its row from load (fillRows).
		b.add(o.row.cells)
		if o.row.conditions != nil {
			b.add(rowConds)
			b.add(o.row.conditions)
		}
		b.add(rowObject)
		switch include {
		case metav1.IncludeNone:
			b.add(null)
		case metav1.IncludeObject:
			o.appendTyped(b)
		case includeLeanMetadata:
			appendLeanPartial(b, o, groupVersion)
		default:
			appendPartial(b, o, groupVersion)
		}
		b.add(closeBrace)
	}
	b.addString("]}")
}

// rowOrder puts a page of objects in the order their stored table lists
// them, for resources whose printer orders rows itself. The server sorts
// each page it prints, after storage has paginated in key order, and so
// does this.
func (r *resource) rowOrder(page []*object) []*object {
	if !r.rowOrdered {
		return page
	}
	sorted := slices.Clone(page)
	slices.SortStableFunc(sorted, func(a, b *object) int {
		if c := strings.Compare(a.namespace, b.namespace); c != 0 {
			return c
		}
		return a.rowPos - b.rowPos
	})
	return sorted
}

// defaultCells are the default convertor's: the name and the creation
// time in RFC 3339, UTC.
func defaultCells(o *object) []byte {
	var created metav1.Time
	if o.created != "" {
		if t, err := time.Parse(time.RFC3339, o.created); err == nil {
			created = metav1.NewTime(t)
		}
	}
	data, _ := json.Marshal([]any{o.name, created.UTC().Format(time.RFC3339)})
	return data
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
func appendLeanPartial(b *body, o *object, groupVersion string) {
	if o.mfEnd == 0 {
		appendPartial(b, o, groupVersion)
		return
	}
	b.add(partialHead(groupVersion))
	b.add(o.item[o.metaStart:o.mfStart])
	b.add(o.item[o.mfEnd:o.metaEnd])
	b.add(closeBrace)
}

// managedFieldsSpan finds the managedFields member of a compact metadata
// object and the comma that separates it from the others, so that
// cutting [start, end) leaves a valid object; 0, 0 when there is none.
func managedFieldsSpan(meta []byte) (start, end int) {
	prevEnd := -1 // the end of the previous member's value: its comma
	rawjson.EachMember(meta, func(m rawjson.Member) bool {
		if !m.Is("managedFields") {
			prevEnd = m.End
			return true
		}
		switch {
		case prevEnd >= 0:
			start, end = prevEnd, m.End
		case m.End < len(meta)-1 && meta[m.End] == ',':
			start, end = m.KeyStart, m.End+1
		default:
			start, end = m.KeyStart, m.End
		}
		return false
	})
	return start, end
}

// fillRows gives a row to every object without a stored one, at load, so
// that a table is only bytes put together: the default convertor's cells
// when the resource has no stored table, missingCells otherwise. It also
// finds the managedFields that kubectl's rows leave out.
func fillRows(r *resource) {
	var defs []metav1.TableColumnDefinition
	if r.columns != nil && json.Unmarshal(r.columns, &defs) != nil {
		defs = nil
	}
	for _, o := range r.objects {
		if start, end := managedFieldsSpan(o.metadata()); end > 0 {
			o.mfStart, o.mfEnd = o.metaStart+start, o.metaStart+end
		}
		if o.row != nil {
			continue
		}
		if len(defs) == 0 {
			o.row = &tableRow{cells: defaultCells(o)}
		} else {
			o.row = &tableRow{cells: missingCells(defs, o)}
		}
	}
}

// missingCells stand in for the row of an object whose stored table has
// none: the name where the table has its name column, "<unknown>" in the
// others, so the object is still listed and nothing is made up.
func missingCells(defs []metav1.TableColumnDefinition, o *object) []byte {
	cells := make([]any, len(defs))
	for i, d := range defs {
		cells[i] = "<unknown>"
		if d.Format == "name" {
			cells[i] = o.name
		}
	}
	data, _ := json.Marshal(cells)
	return data
}
