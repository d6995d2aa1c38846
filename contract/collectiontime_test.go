package contract

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// start is when every synthetic bundle below began to be collected.
var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// zonedFile is one file of a synthetic bundle, written at a time.
type zonedFile struct {
	rel, body string
	at        time.Time
}

// zonedBundle is a bundle as troubleshoot writes it on a machine at
// offset from UTC: named after the local time of the start, each file
// written a little after it, the node lease renewed lease after the
// start, the pods days old, and an AppleDouble file from a re-tar two
// weeks later that must change nothing.
func zonedBundle(offset, lease time.Duration) (root string, files []zonedFile) {
	root = "support-bundle-" + start.Add(offset).Format("2006-01-02T15_04_05")
	stamp := func(t time.Time) string { return t.Format(time.RFC3339) }
	files = []zonedFile{
		{"version.yaml", "apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionNumber: v0.123.14\n", start.Add(time.Second)},
		{"cluster-resources/pods/default.json", fmt.Sprintf(`{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"web","namespace":"default","creationTimestamp":%q}}]}`,
			stamp(start.Add(-72*time.Hour))), start.Add(3 * time.Second)},
		{"cluster-resources/leases/kube-node-lease.json", fmt.Sprintf(`{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","items":[{"metadata":{"name":"node-1","namespace":"kube-node-lease","creationTimestamp":%q},"spec":{"renewTime":%q}}]}`,
			stamp(start.Add(-72*time.Hour)), start.Add(lease).Format("2006-01-02T15:04:05.000000Z07:00")), start.Add(9 * time.Second)},
		{"cluster-resources/._nodes.json", "\x00\x05\x16\x07", start.Add(14 * 24 * time.Hour)},
	}
	return root, files
}

func writeZonedArchive(t *testing.T, root string, files []zonedFile, sameTime time.Time) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		at := f.at
		if !sameTime.IsZero() {
			at = sameTime
		}
		if err := tw.WriteHeader(&tar.Header{Name: root + "/" + f.rel, Mode: 0o600, Size: int64(len(f.body)), ModTime: at, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), root+".tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeZonedFolder(t *testing.T, root string, files []zonedFile) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), root)
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func collectedAt(t *testing.T, path string) CollectionTime {
	t.Helper()
	b, err := Open(path, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := b.CollectedAt()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every zone from UTC-12:00 to UTC+14:00, in quarter hours: the
// collection time is the start, or the newest object when that is later,
// whether the zone is told by the archive's file times, by the objects
// alone (a folder, or an archive whose times a copy set at once), and
// whatever a later re-tar's AppleDouble files say.
func TestCollectionTimeEveryZone(t *testing.T) {
	for offset := minZone; offset <= maxZone; offset += zoneStep {
		zone := zoneString(offset)
		t.Run("UTC"+zone, func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				lease time.Duration // the newest object, from the start
				path  func(root string, files []zonedFile) string
				// what is expected
				at       time.Time
				source   TimeSource
				zoneFrom string
			}{
				{"archive, lease renewed before the start", -8 * time.Second,
					func(root string, files []zonedFile) string { return writeZonedArchive(t, root, files, time.Time{}) },
					start, TimeFromFolderName, ZoneFromFileTimes},
				{"archive, lease renewed during the collection", 7*time.Second + 300*time.Millisecond,
					func(root string, files []zonedFile) string { return writeZonedArchive(t, root, files, time.Time{}) },
					start.Add(7 * time.Second), TimeFromObjects, ZoneFromFileTimes},
				{"archive re-tarred hours later", -8 * time.Second,
					func(root string, files []zonedFile) string {
						return writeZonedArchive(t, root, files, start.Add(6*time.Hour+17*time.Minute))
					},
					start, TimeFromFolderName, ZoneFromObjects},
				{"folder, lease renewed before the start", -4*time.Minute - 50*time.Second,
					func(root string, files []zonedFile) string { return writeZonedFolder(t, root, files) },
					start, TimeFromFolderName, ZoneFromObjects},
				{"folder, a large cluster's lists", 9*time.Minute + 40*time.Second,
					func(root string, files []zonedFile) string { return writeZonedFolder(t, root, files) },
					start.Add(9*time.Minute + 40*time.Second), TimeFromObjects, ZoneFromObjects},
			} {
				root, files := zonedBundle(offset, tc.lease)
				c := collectedAt(t, tc.path(root, files))
				if !c.CollectedAt.Equal(tc.at) || c.CollectedAtSource != tc.source || c.Zone != zone || c.ZoneSource != tc.zoneFrom {
					t.Errorf("%s: %v, want %s from %s, zone %s by %s", tc.name, c, tc.at.Format(time.RFC3339), tc.source, zone, tc.zoneFrom)
				}
			}
		})
	}
}

func TestCollectionTimeEvidence(t *testing.T) {
	name := time.Date(2025, 9, 11, 15, 54, 39, 0, time.UTC) // local time at UTC-05:00
	utc := name.Add(5 * time.Hour)
	for _, tc := range []struct {
		what string
		ev   timeEvidence
		want string // CollectionTime.String(), or the error
	}{
		{"the name and nothing else", timeEvidence{name: name},
			"2025-09-11T15:54:39Z (from bundle folder name, read at UTC+00:00, " + ZoneAssumedUTC + ")"},
		{"a stale cluster: the file times win over objects an hour old",
			timeEvidence{name: name, earliestFile: utc.Add(2 * time.Second), newestFile: utc.Add(40 * time.Second), object: utc.Add(-time.Hour)},
			"2025-09-11T20:54:39Z (from bundle folder name, read at UTC-05:00 by " + ZoneFromFileTimes + ")"},
		{"file times of year 10000 and of 1970 are no times",
			timeEvidence{name: name, earliestFile: time.Unix(0, 0), newestFile: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), object: utc.Add(-time.Minute)},
			"2025-09-11T20:54:39Z (from bundle folder name, read at UTC-05:00 by " + ZoneFromObjects + ")"},
		{"an offset beyond UTC+14 is no zone: the objects are newer", timeEvidence{name: name, object: name.Add(-20 * time.Hour)},
			"2025-09-11T15:54:39Z (from bundle folder name, read at UTC+00:00, " + ZoneAssumedUTC + ")"},
		{"no name: the newest file under cluster-resources, raised to the objects",
			timeEvidence{newestCR: utc, newestFile: utc.Add(time.Minute), object: utc.Add(2500 * time.Millisecond), objectFile: "cluster-resources/leases/kube-node-lease.json"},
			"2025-09-11T20:54:41Z (from newest object time in cluster-resources/leases/kube-node-lease.json)"},
		{"an object a second ahead (a node's clock) is printed 0s old: no raise",
			timeEvidence{newestCR: utc, object: utc.Add(1900 * time.Millisecond)},
			"2025-09-11T20:54:39Z (from newest file time under cluster-resources)"},
		{"no name, no cluster-resources: the newest file", timeEvidence{newestFile: utc},
			"2025-09-11T20:54:39Z (from newest file time of the archive)"},
		{"nothing", timeEvidence{}, ErrNoCollectionTime.Error()},
		{"a start past year 9999 is no time", timeEvidence{name: time.Date(9999, 12, 31, 19, 3, 30, 0, time.UTC), object: time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC)},
			ErrNoCollectionTime.Error()},
	} {
		c, err := tc.ev.collectionTime()
		got := c.String()
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.what, got, tc.want)
		}
		if err != nil && !errors.Is(err, ErrNoCollectionTime) {
			t.Errorf("%s: %v", tc.what, err)
		}
	}
}
