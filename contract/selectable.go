package contract

import (
	"encoding/json"
	"fmt"
	"sort"
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

// builtinFieldSet is the field set of one served version of a built-in
// resource over the minors where it was that.
type builtinFieldSet struct {
	gvr schema.GroupVersionResource
	// since and upTo bound the minors (1.since to 1.upTo) this set holds
	// for; 0 leaves that end open.
	since, upTo int
	set         FieldSet
}

func (b builtinFieldSet) holdsAt(minor int) bool {
	return (b.since == 0 || minor >= b.since) && (b.upTo == 0 || minor <= b.upTo)
}

var (
	podsFields = merge(nameNS, self("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
		"status.phase", "status.nominatedNodeName"), map[string][]string{
		// Internal pods only have podIPs; v1→internal conversion makes podIP the first.
		"status.podIP":  {"status.podIP", "status.podIPs.0.ip"},
		"status.podIPs": nil,
	})
	// core/v1/conversion.go and events/v1*/conversion.go map onto
	// registry/core/event/strategy.go's set: source falls back to
	// reportingController.
	coreEventFields = merge(nameNS, self(
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "type"), map[string][]string{"source": {"source.component", "reportingComponent"}})
	eventsFields = merge(nameNS, self(
		"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "regarding.apiVersion",
		"regarding.resourceVersion", "regarding.fieldPath", "reason", "reportingController", "type"))
	signerFields   = self("metadata.name", "spec.signerName")
	podCertFields  = merge(nameNS, self("spec.signerName", "spec.podName", "spec.nodeName"))
	sliceFields    = self("metadata.name", "spec.nodeName", "spec.driver")
	slicePoolField = merge(sliceFields, self("spec.pool.name"))
)

func sliceMsg(version string) string {
	return "field label not supported for resource.k8s.io/" + version + ", Kind=ResourceSlice: %s"
}

// builtinFieldSets lists every resource of kube-apiserver 1.20 to 1.37
// that registers its own field-label conversion (pkg/apis/*/*/conversion.go)
// with the values its registry's GetAttrs computes (pkg/registry/**), as
// each release's source has them. Everything else uses DefaultFieldSet.
var builtinFieldSets = []builtinFieldSet{
	// core/v1/conversion.go; registry/core/pod/strategy.go ToSelectableFields:
	// spec.hostNetwork from 1.28.
	{gvr: core("pods"), since: 28, set: FieldSet{
		Fields:      merge(podsFields, self("spec.hostNetwork")),
		Zero:        map[string]string{"spec.hostNetwork": "false"},
		Aliases:     map[string]string{"spec.host": "spec.nodeName"},
		Unsupported: msgNotSupported,
	}},
	{gvr: core("pods"), upTo: 27, set: FieldSet{
		Fields:      podsFields,
		Aliases:     map[string]string{"spec.host": "spec.nodeName"},
		Unsupported: msgNotSupported,
	}},
	// registry/core/node/strategy.go: ObjectMetaFieldsSet(meta, false) has no namespace.
	{gvr: core("nodes"), set: FieldSet{
		Fields:      self("metadata.name", "spec.unschedulable"),
		Zero:        map[string]string{"spec.unschedulable": "false"},
		Unsupported: msgNotSupported,
	}},
	{gvr: core("replicationcontrollers"), set: FieldSet{
		Fields:      merge(nameNS, self("status.replicas")),
		Zero:        map[string]string{"status.replicas": "0"},
		Unsupported: msgNotSupported,
	}},
	{gvr: core("events"), set: set(msgNotSupported, coreEventFields)},
	{gvr: core("namespaces"), set: set(msgNotSupported, self("metadata.name", "status.phase"))},
	{gvr: core("secrets"), set: set(msgNotSupported, merge(nameNS, self("type")))},
	// Services have a conversion of their own from 1.31; before, the default.
	{gvr: core("services"), since: 31, set: set(msgNotSupported, merge(nameNS, self("spec.clusterIP", "spec.type")))},
	// events/v1 and v1beta1 conversion.go map their labels onto the core
	// event field set.
	{gvr: gv("events.k8s.io", "v1", "events"), set: set(msgNotSupported, eventsFields)},
	{gvr: gv("events.k8s.io", "v1beta1", "events"), set: set(msgNotSupported, eventsFields)},
	// batch/v1/conversion.go; registry/batch/job/strategy.go: status.successful = status.succeeded.
	{gvr: gv("batch", "v1", "jobs"), since: 21, set: FieldSet{
		Fields:      merge(nameNS, map[string][]string{"status.successful": {"status.succeeded"}}),
		Zero:        map[string]string{"status.successful": "0"},
		Unsupported: `field label %q not supported for Job`,
	}},
	{gvr: gv("batch", "v1", "jobs"), upTo: 20, set: FieldSet{
		Fields:      merge(nameNS, map[string][]string{"status.successful": {"status.succeeded"}}),
		Zero:        map[string]string{"status.successful": "0"},
		Unsupported: `field label %q not supported for batchv1.Job`,
	}},
	// batch/v1beta1/conversion.go accepts status.successful for CronJob,
	// whose registry's set has only the object meta: it compares as "".
	{gvr: gv("batch", "v1beta1", "cronjobs"), set: set(`field label %q not supported for "CronJob"`,
		merge(nameNS, map[string][]string{"status.successful": nil}))},
	{gvr: gv("certificates.k8s.io", "v1", "certificatesigningrequests"), set: set(msgNotSupported, signerFields)},
	{gvr: gv("certificates.k8s.io", "v1beta1", "certificatesigningrequests"), set: set(msgNotSupported, signerFields)},
	{gvr: gv("certificates.k8s.io", "v1", "clustertrustbundles"), set: set(msgNotSupported, signerFields)},
	{gvr: gv("certificates.k8s.io", "v1beta1", "clustertrustbundles"), set: set(msgNotSupported, signerFields)},
	{gvr: gv("certificates.k8s.io", "v1alpha1", "clustertrustbundles"), set: set(msgNotSupported, signerFields)},
	{gvr: gv("certificates.k8s.io", "v1", "podcertificaterequests"), set: set(msgNotSupported, podCertFields)},
	{gvr: gv("certificates.k8s.io", "v1beta1", "podcertificaterequests"), set: set(msgNotSupported, podCertFields)},
	{gvr: gv("certificates.k8s.io", "v1alpha1", "podcertificaterequests"), set: set(msgNotSupported, podCertFields)},
	// resource/*/conversion.go: spec.pool.name from 1.37; v1alpha3 (1.31
	// to 1.33) without it; v1alpha2 (1.30) had top-level nodeName and
	// driverName.
	{gvr: gv("resource.k8s.io", "v1", "resourceslices"), since: 37, set: set(sliceMsg("v1"), slicePoolField)},
	{gvr: gv("resource.k8s.io", "v1", "resourceslices"), upTo: 36, set: set(sliceMsg("v1"), sliceFields)},
	{gvr: gv("resource.k8s.io", "v1beta1", "resourceslices"), since: 37, set: set(sliceMsg("v1beta1"), slicePoolField)},
	{gvr: gv("resource.k8s.io", "v1beta1", "resourceslices"), upTo: 36, set: set(sliceMsg("v1beta1"), sliceFields)},
	{gvr: gv("resource.k8s.io", "v1beta2", "resourceslices"), since: 37, set: set(sliceMsg("v1beta2"), slicePoolField)},
	{gvr: gv("resource.k8s.io", "v1beta2", "resourceslices"), upTo: 36, set: set(sliceMsg("v1beta2"), sliceFields)},
	{gvr: gv("resource.k8s.io", "v1alpha3", "resourceslices"), set: set(sliceMsg("v1alpha3"), sliceFields)},
	{gvr: gv("resource.k8s.io", "v1alpha2", "resourceslices"), set: set(sliceMsg("v1alpha2"), self("metadata.name", "nodeName", "driverName"))},
}

func core(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: resource}
}

func gv(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// BuiltinFieldSet returns the field set of a built-in resource that has a
// conversion function of its own, as kube-apiserver 1.minor had it (0: the
// pinned release; minors outside 1.20 to the pin: the nearest of them).
func BuiltinFieldSet(gvr schema.GroupVersionResource, minor int) (FieldSet, bool) {
	oldest, pinned := MinorNumber(OldestMinor), MinorNumber(PinnedMinor)
	switch {
	case minor == 0 || minor > pinned:
		minor = pinned
	case minor < oldest:
		minor = oldest
	}
	for _, b := range builtinFieldSets {
		if b.gvr == gvr && b.holdsAt(minor) {
			return b.set, true
		}
	}
	return FieldSet{}, false
}

// BuiltinFieldLabels returns every label (and alias) some release from
// 1.20 to the pin accepts for gvr through a conversion of its own: what a
// collector probes a live server of unknown release for.
func BuiltinFieldLabels(gvr schema.GroupVersionResource) []string {
	seen := map[string]bool{}
	var out []string
	add := func(l string) {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	for _, b := range builtinFieldSets {
		if b.gvr != gvr {
			continue
		}
		for l := range b.set.Fields {
			add(l)
		}
		for l := range b.set.Aliases {
			add(l)
		}
	}
	sort.Strings(out)
	return out
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
