package contract

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
)

// FieldSet says which field-selector labels the API server accepts for one
// resource and where each label's value comes from in the object as stored
// (the served, external version).
type FieldSet struct {
	// Fields maps each accepted label to the dot-separated JSON paths whose
	// first non-empty value is the label's value. A label with no paths is
	// accepted by the server but absent from its field set, so it always
	// compares as "" (pods' status.podIPs).
	Fields map[string][]string
	// Zero is the value of a label whose field is absent, where the
	// server's GetAttrs formats a zero Go value ("false", "0") rather than "".
	Zero map[string]string
	// Aliases maps a label the server rewrites before matching to its
	// target (pods: spec.host is spec.nodeName).
	Aliases map[string]string
	// Unsupported renders the server's 400 message for a refused label; it
	// holds one %s for the label, as the upstream conversion functions do.
	Unsupported string
}

// Messages of the pinned release's field-label conversion functions.
const (
	msgNotSupported = "field label not supported: %s"
	// DefaultMetaV1FieldSelectorConversion (k8s.io/apimachinery/pkg/runtime/conversion.go).
	msgDefault = `%q is not a known field selector: only "metadata.name", "metadata.namespace"`
)

func set(unsupported string, fields map[string][]string) FieldSet {
	return FieldSet{Fields: fields, Unsupported: unsupported}
}

func self(labels ...string) map[string][]string {
	m := make(map[string][]string, len(labels))
	for _, l := range labels {
		m[l] = []string{l}
	}
	return m
}

func merge(ms ...map[string][]string) map[string][]string {
	out := map[string][]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var nameNS = self("metadata.name", "metadata.namespace")

// builtinFieldSets lists every resource of kube-apiserver 1.37.1 that
// registers its own field-label conversion (pkg/apis/*/*/conversion.go)
// with the values its registry's GetAttrs computes (pkg/registry/**).
// Everything else uses DefaultFieldSet.
var builtinFieldSets = map[schema.GroupVersionResource]FieldSet{
	// core/v1/conversion.go; registry/core/pod/strategy.go ToSelectableFields.
	{Version: "v1", Resource: "pods"}: {
		Fields: merge(nameNS, self("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
			"spec.hostNetwork", "status.phase", "status.nominatedNodeName"), map[string][]string{
			// Internal pods only have podIPs; v1→internal conversion makes podIP the first.
			"status.podIP":  {"status.podIP", "status.podIPs.0.ip"},
			"status.podIPs": nil,
		}),
		Zero:        map[string]string{"spec.hostNetwork": "false"},
		Aliases:     map[string]string{"spec.host": "spec.nodeName"},
		Unsupported: msgNotSupported,
	},
	// registry/core/node/strategy.go: ObjectMetaFieldsSet(meta, false) has no namespace.
	{Version: "v1", Resource: "nodes"}: {
		Fields:      self("metadata.name", "spec.unschedulable"),
		Zero:        map[string]string{"spec.unschedulable": "false"},
		Unsupported: msgNotSupported,
	},
	{Version: "v1", Resource: "replicationcontrollers"}: {
		Fields:      merge(nameNS, self("status.replicas")),
		Zero:        map[string]string{"status.replicas": "0"},
		Unsupported: msgNotSupported,
	},
	// registry/core/event/strategy.go: source falls back to reportingController.
	{Version: "v1", Resource: "events"}: set(msgNotSupported, merge(nameNS, self(
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "type"), map[string][]string{"source": {"source.component", "reportingComponent"}})),
	{Version: "v1", Resource: "namespaces"}: set(msgNotSupported, self("metadata.name", "status.phase")),
	{Version: "v1", Resource: "secrets"}:    set(msgNotSupported, merge(nameNS, self("type"))),
	{Version: "v1", Resource: "services"}:   set(msgNotSupported, merge(nameNS, self("spec.clusterIP", "spec.type"))),
	// events/v1/conversion.go maps its labels onto the core event field set.
	{Group: "events.k8s.io", Version: "v1", Resource: "events"}: set(msgNotSupported, merge(nameNS, self(
		"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "regarding.apiVersion",
		"regarding.resourceVersion", "regarding.fieldPath", "reason", "reportingController", "type"))),
	// batch/v1/conversion.go; registry/batch/job/strategy.go: status.successful = status.succeeded.
	{Group: "batch", Version: "v1", Resource: "jobs"}: {
		Fields:      merge(nameNS, map[string][]string{"status.successful": {"status.succeeded"}}),
		Zero:        map[string]string{"status.successful": "0"},
		Unsupported: `field label %q not supported for Job`,
	},
	{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}:      set(msgNotSupported, self("metadata.name", "spec.signerName")),
	{Group: "certificates.k8s.io", Version: "v1beta1", Resource: "certificatesigningrequests"}: set(msgNotSupported, self("metadata.name", "spec.signerName")),
	{Group: "certificates.k8s.io", Version: "v1", Resource: "clustertrustbundles"}:             set(msgNotSupported, self("metadata.name", "spec.signerName")),
	{Group: "certificates.k8s.io", Version: "v1beta1", Resource: "clustertrustbundles"}:        set(msgNotSupported, self("metadata.name", "spec.signerName")),
	{Group: "certificates.k8s.io", Version: "v1alpha1", Resource: "clustertrustbundles"}:       set(msgNotSupported, self("metadata.name", "spec.signerName")),
	{Group: "certificates.k8s.io", Version: "v1", Resource: "podcertificaterequests"}: set(msgNotSupported,
		merge(nameNS, self("spec.signerName", "spec.podName", "spec.nodeName"))),
	{Group: "certificates.k8s.io", Version: "v1beta1", Resource: "podcertificaterequests"}: set(msgNotSupported,
		merge(nameNS, self("spec.signerName", "spec.podName", "spec.nodeName"))),
	{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}: set("field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: %s",
		self("metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name")),
	{Group: "resource.k8s.io", Version: "v1beta1", Resource: "resourceslices"}: set("field label not supported for resource.k8s.io/v1beta1, Kind=ResourceSlice: %s",
		self("metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name")),
	{Group: "resource.k8s.io", Version: "v1beta2", Resource: "resourceslices"}: set("field label not supported for resource.k8s.io/v1beta2, Kind=ResourceSlice: %s",
		self("metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name")),
}

// BuiltinFieldSet returns the field set of a built-in resource of the
// pinned release that has a conversion function of its own.
func BuiltinFieldSet(gvr schema.GroupVersionResource) (FieldSet, bool) {
	fs, ok := builtinFieldSets[gvr]
	return fs, ok
}

// DefaultFieldSet is what the server applies to resources with no
// conversion function: metadata.name and metadata.namespace are accepted
// for every scope, but a cluster-scoped object's field set has no
// namespace, so metadata.namespace there always compares as "".
func DefaultFieldSet(namespaced bool) FieldSet {
	fs := FieldSet{Fields: map[string][]string{"metadata.name": {"metadata.name"}, "metadata.namespace": nil}, Unsupported: msgDefault}
	if namespaced {
		fs.Fields["metadata.namespace"] = []string{"metadata.namespace"}
	}
	return fs
}

// CustomResourceFieldSet is the set of a custom resource
// (apiextensions-apiserver/pkg/apiserver/conversion/converter.go):
// metadata.name, metadata.namespace for namespaced CRDs, and the
// version's selectableFields (jsonPath without the leading dot).
func CustomResourceFieldSet(namespaced bool, selectableJSONPaths []string) FieldSet {
	fs := FieldSet{Fields: map[string][]string{"metadata.name": {"metadata.name"}}, Unsupported: msgNotSupported}
	if namespaced {
		fs.Fields["metadata.namespace"] = []string{"metadata.namespace"}
	}
	for _, p := range selectableJSONPaths {
		p = strings.TrimPrefix(p, ".")
		fs.Fields[p] = []string{p}
	}
	return fs
}

// DiscoveredFieldSet is the set a bundle recorded from the live server:
// its labels are authoritative; value paths and messages come from known
// where it has the label.
func DiscoveredFieldSet(labels []string, known FieldSet) FieldSet {
	fs := FieldSet{Fields: map[string][]string{}, Zero: known.Zero, Aliases: known.Aliases, Unsupported: known.Unsupported}
	if fs.Unsupported == "" {
		fs.Unsupported = msgNotSupported
	}
	for _, l := range labels {
		if paths, ok := known.Fields[l]; ok {
			fs.Fields[l] = paths
		} else {
			fs.Fields[l] = []string{l}
		}
	}
	return fs
}

// ParseSelectableFieldsFile decodes _meta/selectable-fields/*.json.
func ParseSelectableFieldsFile(data []byte) ([]string, error) {
	var labels []string
	if err := json.Unmarshal(data, &labels); err != nil {
		return nil, fmt.Errorf("selectable fields must be a JSON array of strings: %w", err)
	}
	for i, l := range labels {
		if l == "" {
			return nil, fmt.Errorf("selectable fields: entry %d is empty", i)
		}
	}
	return labels, nil
}

func (fs FieldSet) resolve(label string) (string, bool) {
	if to, ok := fs.Aliases[label]; ok {
		label = to
	}
	_, ok := fs.Fields[label]
	return label, ok
}

// Validate returns the server's 400 message for the first refused label,
// in the selector's order, or "" when every label is accepted.
func (fs FieldSet) Validate(sel fields.Selector) string {
	for _, r := range sel.Requirements() {
		if _, ok := fs.resolve(r.Field); !ok {
			return fmt.Sprintf(fs.Unsupported, r.Field)
		}
	}
	return ""
}

// FieldValue extracts a label's value from an object decoded from JSON as
// the server's GetAttrs formats it.
func (fs FieldSet) FieldValue(obj map[string]interface{}, label string) (string, bool) {
	label, ok := fs.resolve(label)
	if !ok {
		return "", false
	}
	for _, p := range fs.Fields[label] {
		if v, found := lookup(obj, p); found {
			if s := format(v); s != "" {
				return s, true
			}
		}
	}
	return fs.Zero[label], true
}

// Matches reports whether obj satisfies every requirement; fields absent
// from the set compare as "", as in fields.Set.
func (fs FieldSet) Matches(obj map[string]interface{}, sel fields.Selector) bool {
	for _, r := range sel.Requirements() {
		v, _ := fs.FieldValue(obj, r.Field)
		switch r.Operator {
		case selection.Equals, selection.DoubleEquals:
			if v != r.Value {
				return false
			}
		case selection.NotEquals:
			if v == r.Value {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func lookup(obj map[string]interface{}, path string) (interface{}, bool) {
	var cur interface{} = obj
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]interface{}:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []interface{}:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// format renders a JSON value as fmt.Sprint renders the Go field it came
// from: strings as they are, booleans true/false, integers in decimal.
func format(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	case int64:
		return strconv.FormatInt(x, 10)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}
