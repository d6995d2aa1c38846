package contract

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"
)

// TimeSource says how a bundle's collection time was found.
type TimeSource string

const (
	TimeFromDiscovery  TimeSource = "discovery.json collectedAt"
	TimeFromFolderName TimeSource = "bundle folder name"
	TimeFromObjects    TimeSource = "newest object time"
	TimeFromMtime      TimeSource = "newest file time under cluster-resources"
	TimeFromFileTimes  TimeSource = "newest file time of the archive"
	TimeFromFlag       TimeSource = "--collected-at"
)

// How the zone of a folder name's local time was found.
const (
	ZoneFromFileTimes = "the archive's file times"
	ZoneFromObjects   = "the newest object time"
	ZoneAssumedUTC    = "assumed: nothing else in the bundle tells the zone"
)

// CollectionTime is when a bundle was collected, and how that was found;
// reports embed it (its JSON names are theirs).
type CollectionTime struct {
	CollectedAt       time.Time  `json:"collectedAt"`
	CollectedAtSource TimeSource `json:"collectedAtSource"`
	// CollectedAtFile is the list the newest object time is in, with
	// TimeFromObjects.
	CollectedAtFile string `json:"collectedAtFile,omitempty"`
	// NameTime is the collecting machine's local time in the folder or
	// archive name, Zone its offset from UTC ("-05:00") and ZoneSource
	// how the offset was found; set whenever the name has a time, even
	// when CollectedAt is the newer object time.
	NameTime   string `json:"nameTime,omitempty"`
	Zone       string `json:"nameZone,omitempty"`
	ZoneSource string `json:"nameZoneSource,omitempty"`
}

// zoneString writes an offset as RFC 3339 does ("-05:00").
func zoneString(d time.Duration) string {
	sign := '+'
	if d < 0 {
		sign, d = '-', -d
	}
	return fmt.Sprintf("%c%02d:%02d", sign, int(d.Hours()), int(d.Minutes())%60)
}

// String says the time and where it came from, for people.
func (c CollectionTime) String() string {
	if c.CollectedAt.IsZero() {
		return "unknown"
	}
	s := fmt.Sprintf("%s (from %s", c.CollectedAt.Format(time.RFC3339), c.CollectedAtSource)
	if c.CollectedAtFile != "" {
		s += " in " + c.CollectedAtFile
	}
	if c.NameTime != "" {
		if c.CollectedAtSource == TimeFromFolderName {
			s += ", "
		} else {
			s += "; folder name "
		}
		s += "read at UTC" + c.Zone
		if c.ZoneSource == ZoneAssumedUTC {
			s += ", " + ZoneAssumedUTC
		} else {
			s += " by " + c.ZoneSource
		}
	}
	return s + ")"
}

// folderTime matches troubleshoot's folder and archive names:
// support-bundle-2025-10-06T16_17_57 (and, before v0.9.48, with colons),
// preflightbundle-2025-12-10T17_26_50. The time is the collecting
// machine's local time with no zone (see collectionTime).
var folderTime = regexp.MustCompile(`(?:support-bundle|preflightbundle)-(\d{4}-\d{2}-\d{2})T(\d{2})[_:](\d{2})[_:](\d{2})`)

// ErrNoCollectionTime means nothing in the bundle tells when it was
// collected; the caller must supply the time.
var ErrNoCollectionTime = fmt.Errorf("cannot tell when the bundle was collected: it has no %s, no time in its folder or archive name, no archive entry times (a folder's file times only tell when it was extracted) and no object with a time; pass --collected-at RFC3339", DiscoveryPath())

// CollectedAt finds when the bundle was collected: the contract's own
// record, else what the folder or archive name, the archive's file times
// and the objects' times tell together (collectionTime).
func (b *Bundle) CollectedAt() (CollectionTime, error) {
	if b.DiscoveryJSON != nil {
		d, err := ParseDiscovery(b.DiscoveryJSON)
		if err != nil {
			return CollectionTime{}, err
		}
		if !d.CollectedAt.IsZero() {
			return CollectionTime{CollectedAt: d.CollectedTime(), CollectedAtSource: TimeFromDiscovery}, nil
		}
	}
	ev := timeEvidence{object: b.NewestObjectTime, objectFile: b.NewestObjectFile}
	for _, name := range []string{b.Root, b.sourceBase()} {
		if t, ok := ParseFolderTime(name); ok {
			ev.name = t
			break
		}
	}
	// Only an archive's entry times were set by the collector; a folder's
	// tell when it was extracted or copied.
	if b.Format != FormatFolder {
		ev.earliestFile, ev.newestFile, ev.newestCR = b.EarliestFileTime, b.NewestFileTime, b.NewestMtime
	}
	return ev.collectionTime()
}

// noteFileTime takes a file's time under the root into the first pass's
// record (rel is relative to the root).
func (b *Bundle) noteFileTime(rel string, t time.Time) {
	if IsArchiverFile(rel) {
		return
	}
	if strings.HasPrefix(rel, ClusterResourcesDir+"/") && t.After(b.NewestMtime) {
		b.NewestMtime = t
	}
	if b.EarliestFileTime.IsZero() || t.Before(b.EarliestFileTime) {
		b.EarliestFileTime = t
	}
	if t.After(b.NewestFileTime) {
		b.NewestFileTime = t
	}
}

// ParseFolderTime reads the time out of a troubleshoot bundle name, as if
// it were UTC (it is the collecting machine's local time).
func ParseFolderTime(name string) (time.Time, bool) {
	m := folderTime.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02T15:04:05", fmt.Sprintf("%sT%s:%s:%s", m[1], m[2], m[3], m[4]))
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// TroubleshootVersion reads version.yaml's spec.versionNumber, "" when absent.
func (b *Bundle) TroubleshootVersion() (string, error) {
	if b.VersionFile == nil {
		return "", nil
	}
	var v struct {
		Spec struct {
			VersionNumber string `json:"versionNumber"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b.VersionFile, &v); err != nil {
		return "", fmt.Errorf("%s: %w", VersionFilePath, err)
	}
	return v.Spec.VersionNumber, nil
}

// ClusterVersionFile is cluster-info/cluster_version.json as troubleshoot writes it.
type ClusterVersionFile struct {
	Info   version.Info `json:"info"`
	String string       `json:"string"`
}

// ServerVersion reads cluster-info/cluster_version.json; nil when absent.
func (b *Bundle) ServerVersion() (*version.Info, error) {
	if b.ClusterVersion == nil {
		return nil, nil
	}
	return ParseClusterVersion(b.ClusterVersion)
}

// ParseClusterVersion decodes cluster_version.json.
func ParseClusterVersion(data []byte) (*version.Info, error) {
	var cv ClusterVersionFile
	if err := json.Unmarshal(data, &cv); err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %w", ClusterVersionPath, err)
	}
	if cv.Info.GitVersion == "" {
		cv.Info.GitVersion = cv.String
	}
	if cv.Info.GitVersion == "" {
		return nil, fmt.Errorf("%s: no gitVersion", ClusterVersionPath)
	}
	if err := checkGitVersion(cv.Info.GitVersion); err != nil {
		return nil, fmt.Errorf("%s: %w", ClusterVersionPath, err)
	}
	return &cv.Info, nil
}

// Discovery reads the bundle's discovery.json: nil for a legacy bundle.
func (b *Bundle) Discovery() (*Discovery, error) {
	if b.DiscoveryJSON == nil {
		return nil, nil
	}
	return ParseDiscovery(b.DiscoveryJSON)
}

var gitVersionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+(\.[0-9]+)?([-+][0-9A-Za-z.+_-]*)?$`)

// checkGitVersion refuses a gitVersion that is not a Kubernetes version
// ("v1.31.2", "v1.24.4-eks-a1b2c3", "v1.33.4+k3s1"): garbage or megabytes
// of it would otherwise be printed as the cluster's version everywhere.
func checkGitVersion(v string) error {
	const maxLen = 128
	if len(v) > maxLen {
		return fmt.Errorf("gitVersion of %d bytes is not a Kubernetes version", len(v))
	}
	if !gitVersionRE.MatchString(v) {
		return fmt.Errorf("gitVersion %q is not a Kubernetes version", v)
	}
	return nil
}
