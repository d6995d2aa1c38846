package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
