package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// SchemaVersion is the bundle schema this build writes. Readers accept any
// 1.x: minor versions only add fields, which encoding/json ignores.
const SchemaVersion = "1.0"

// Discovery is cluster-resources/_meta/discovery.json: what the API server
// advertised at collection time, and when that was.
type Discovery struct {
	BundleSchemaVersion string `json:"bundleSchemaVersion"`
	// CollectedAt is the instant the tables were rendered; every age in the
	// bundle's tables is relative to it.
	CollectedAt       metav1.Time `json:"collectedAt"`
	KubernetesVersion string      `json:"kubernetesVersion"`
	// APIVersion is the version of this document's own shape, "v1".
	APIVersion string `json:"apiVersion"`
	// Groups is in server priority order, core first, as /apis lists them.
	Groups []metav1.APIGroup `json:"groups"`
	// Resources is keyed by group version ("v1", "apps/v1") and includes
	// subresources (pods/log) as legacy discovery does.
	Resources map[string][]metav1.APIResource `json:"resources"`

	// Invalid says what ParseDiscovery left out of the document (see
	// DropInvalid), for readers to report.
	Invalid []error `json:"-"`
}

// UnsupportedSchemaError is returned for a bundle written by a newer,
// incompatible bundlectl: reading it as 1.x could silently misread it.
type UnsupportedSchemaError struct{ Version string }

func (e *UnsupportedSchemaError) Error() string {
	return fmt.Sprintf("bundle schema %q is not supported: this bundlectl reads schema 1.x; upgrade bundlectl", e.Version)
}

// ParseDiscovery decodes discovery.json and enforces the version policy.
func ParseDiscovery(data []byte) (*Discovery, error) {
	var d Discovery
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %w", DiscoveryPath(), err)
	}
	if err := checkSchemaVersion(d.BundleSchemaVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", DiscoveryPath(), err)
	}
	d.Invalid = d.DropInvalid()
	return &d, nil
}

func checkSchemaVersion(v string) error {
	if v == "" {
		return fmt.Errorf("bundleSchemaVersion is missing")
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return fmt.Errorf("bundleSchemaVersion %q is not a version", v)
	}
	if n != 1 {
		return &UnsupportedSchemaError{Version: v}
	}
	return nil
}

// Marshal encodes the document deterministically (map keys sorted by
// encoding/json) so that upgrading a bundle twice gives identical bytes.
// Resources stay in the order the server listed them: the apiextensions
// server lists a custom resource's status before its scale, and clients
// see that order.
func (d *Discovery) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Resource finds the APIResource for a group version and resource name.
func (d *Discovery) Resource(groupVersion, resource string) (metav1.APIResource, bool) {
	for _, r := range d.Resources[groupVersion] {
		if r.Name == resource {
			return r, true
		}
	}
	return metav1.APIResource{}, false
}

// PreferredVersion returns the preferred version of a group, or "".
func (d *Discovery) PreferredVersion(group string) string {
	for _, g := range d.Groups {
		if g.Name == group {
			return g.PreferredVersion.Version
		}
	}
	return ""
}

// CollectedTime is CollectedAt as a time.Time in UTC.
func (d *Discovery) CollectedTime() time.Time { return d.CollectedAt.Time.UTC() }

// DropInvalid leaves out the groups, versions and resources whose names
// no API server serves, and says what it left out: every client reads
// all of discovery before any request, and one group kubectl cannot
// parse ("a/b") fails every kubectl command. Names are held to what the
// API server itself holds them to (apimachinery's validation): a group
// is a DNS subdomain (CRDs and APIServices), a version a DNS-1035 label
// (CRD and APIService versions), and a resource and its subresource
// DNS-1123 labels ("pods", "pods/log"). A group left without a version
// is left out whole.
func (d *Discovery) DropInvalid() []error {
	var dropped []error
	drop := func(format string, args ...any) { dropped = append(dropped, fmt.Errorf(format+"; left out", args...)) }
	groups := d.Groups[:0]
	for _, g := range d.Groups {
		if msg := invalidGroup(g.Name); msg != "" {
			drop("group %q: %s", g.Name, msg)
			continue
		}
		versions := g.Versions[:0]
		for _, v := range g.Versions {
			want := schema.GroupVersion{Group: g.Name, Version: v.Version}.String()
			switch msg := invalidVersion(v.Version); {
			case msg != "":
				drop("group %q version %q: %s", g.Name, v.Version, msg)
			case v.GroupVersion != want:
				drop("group %q version %q: its groupVersion is %q, not %q", g.Name, v.Version, v.GroupVersion, want)
			default:
				versions = append(versions, v)
			}
		}
		if len(versions) == 0 {
			drop("group %q: no valid version", g.Name)
			continue
		}
		g.Versions = versions
		if !slices.Contains(versions, g.PreferredVersion) {
			g.PreferredVersion = versions[0]
		}
		groups = append(groups, g)
	}
	d.Groups = groups
	for _, gv := range slices.Sorted(maps.Keys(d.Resources)) {
		rs := d.Resources[gv]
		if msg := invalidGroupVersion(gv); msg != "" {
			drop("resources of %q: %s", gv, msg)
			delete(d.Resources, gv)
			continue
		}
		kept := rs[:0]
		for _, r := range rs {
			if msg := invalidResource(r); msg != "" {
				drop("resource %q of %s: %s", r.Name, gv, msg)
				continue
			}
			kept = append(kept, r)
		}
		d.Resources[gv] = kept
	}
	return dropped
}

// invalidGroup says why a group name is not one, "" when it is ("" is
// the core group).
func invalidGroup(name string) string {
	if name == "" {
		return ""
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "not a valid group name: " + strings.Join(errs, "; ")
	}
	return ""
}

func invalidVersion(name string) string {
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return "not a valid version: " + strings.Join(errs, "; ")
	}
	return ""
}

func invalidGroupVersion(gv string) string {
	parsed, err := schema.ParseGroupVersion(gv)
	switch {
	case err != nil || parsed.Version == "":
		return "not a group version"
	case invalidGroup(parsed.Group) != "":
		return invalidGroup(parsed.Group)
	}
	return invalidVersion(parsed.Version)
}

// invalidResource says why a resource's name (or the group and version
// it names for a subresource) is not one.
func invalidResource(r metav1.APIResource) string {
	parts := strings.Split(r.Name, "/")
	if len(parts) > 2 {
		return "not a resource or subresource name"
	}
	for _, p := range parts {
		if errs := validation.IsDNS1123Label(p); len(errs) > 0 {
			return "not a valid resource name: " + strings.Join(errs, "; ")
		}
	}
	if msg := invalidGroup(r.Group); msg != "" {
		return msg
	}
	if r.Version != "" {
		return invalidVersion(r.Version)
	}
	return ""
}
