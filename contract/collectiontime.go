package contract

import (
	"time"
)

// troubleshoot names a bundle after the collecting machine's local time,
// with no zone (support-bundle-2025-09-11T15_54_39 was collected at
// 20:54:39Z in New York). Read as UTC, a name from west of Greenwich
// puts every object in the future (every age <invalid>), one from east
// of it makes every age hours too old. Two things in a bundle tell the
// zone:
//
//   - An archive's file times, when the collector set them: troubleshoot
//     writes each file as it collects, so the first one is written just
//     after the start of the collection, the instant the name was taken.
//     The zone is the offset, to the quarter hour (every zone in use is a
//     multiple of it), that puts the start at or before the first file.
//     A copy that set every time at once (a re-tar of a git checkout: one
//     time to the second on every file) tells nothing.
//   - The objects' times (newestObjectTime): leases and node statuses are
//     renewed every few seconds to minutes by the cluster's own clock, so
//     in a live cluster the newest of them is within minutes of the
//     collection; the zone is the quarter hour nearest the name's
//     distance from it.
//
// The file times are taken first: they are the collecting machine's own
// clock, as the name is, and a cluster can have been idle for an hour
// (a copy that kept spreading its times over seconds, as cp and tar do
// when they set times as they go, can mislead them: the objects then
// still keep the collection time from being too early). Whatever the
// zone, the collection time is never before the newest object time: no
// list was taken before it, and the printers would print that object's
// age as <invalid>, as no live server did.

// timeEvidence is what a bundle tells of when it was collected.
type timeEvidence struct {
	// name is the name's local time read as UTC; zero when none.
	name time.Time
	// earliestFile and newestFile are the archive's file times under the
	// root, newestCR those under cluster-resources/; zero for a folder.
	earliestFile, newestFile, newestCR time.Time
	object                             time.Time
	objectFile                         string
}

// Zone offsets in use run from UTC-12:00 to UTC+14:00, in quarter hours.
const (
	minZone     = -12 * time.Hour
	maxZone     = 14 * time.Hour
	zoneStep    = 15 * time.Minute
	objectsLead = 150 * time.Second // see zoneFromObjects
)

// firstKubernetes bounds the file times worth reading: nothing of a
// Kubernetes cluster was written before 2014, and a tar header can say
// year 1 or year 10000, which no bundle time can be.
var firstKubernetes = time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC)

func plausible(t time.Time) bool {
	return !t.Before(firstKubernetes) && t.Year() <= 9999
}

func (ev timeEvidence) collectionTime() (CollectionTime, error) {
	for _, t := range []*time.Time{&ev.earliestFile, &ev.newestFile, &ev.newestCR, &ev.object} {
		if !plausible(*t) {
			*t = time.Time{}
		}
	}
	var (
		at     time.Time
		source TimeSource
		c      CollectionTime
	)
	switch {
	case !ev.name.IsZero():
		zone, from := ev.zone()
		c.NameTime, c.Zone, c.ZoneSource = ev.name.Format("2006-01-02T15:04:05"), zoneString(zone), from
		at, source = ev.name.Add(-zone), TimeFromFolderName
	case !ev.newestCR.IsZero():
		at, source = ev.newestCR.Truncate(time.Second), TimeFromMtime
	case !ev.newestFile.IsZero():
		at, source = ev.newestFile.Truncate(time.Second), TimeFromFileTimes
	}
	// To the second, as the printers compute ages, which print a time up
	// to a second ahead of the clock "0s" (a node's clock runs ahead);
	// two seconds ahead is <invalid>.
	if object := ev.object.Truncate(time.Second); !object.IsZero() && (at.IsZero() || object.Sub(at) > time.Second) {
		at, source, c.CollectedAtFile = object, TimeFromObjects, ev.objectFile
	}
	if at.IsZero() || !plausible(at) {
		return CollectionTime{}, ErrNoCollectionTime
	}
	c.CollectedAt, c.CollectedAtSource = at.UTC(), source
	return c, nil
}

// zone is the name's offset from UTC and what told it.
func (ev timeEvidence) zone() (time.Duration, string) {
	if z, ok := ev.zoneFromFiles(); ok {
		return z, ZoneFromFileTimes
	}
	if z, ok := ev.zoneFromObjects(); ok {
		return z, ZoneFromObjects
	}
	return 0, ZoneAssumedUTC
}

// zoneFromFiles is the offset that puts the start at or before the first
// file, by less than a quarter of an hour.
func (ev timeEvidence) zoneFromFiles() (time.Duration, bool) {
	if ev.earliestFile.IsZero() || ev.newestFile.Sub(ev.earliestFile) < time.Second {
		return 0, false
	}
	return inRange(ceilStep(ev.name.Sub(ev.earliestFile)))
}

// zoneFromObjects is the offset nearest the name's distance from the
// newest object time, led by objectsLead: the start is up to five
// minutes after the newest time (a node's status is written every five
// minutes when nothing changes) and up to ten before it (the lists of a
// large cluster take minutes, and a lease renewed meanwhile is newer
// than the start).
func (ev timeEvidence) zoneFromObjects() (time.Duration, bool) {
	if ev.object.IsZero() {
		return 0, false
	}
	return inRange(floorStep(ev.name.Sub(ev.object) + objectsLead + zoneStep/2))
}

// ceilStep rounds d up to a whole quarter hour.
func ceilStep(d time.Duration) time.Duration {
	q := d.Truncate(zoneStep)
	if q < d {
		q += zoneStep
	}
	return q
}

// floorStep rounds d down to a whole quarter hour.
func floorStep(d time.Duration) time.Duration {
	q := d.Truncate(zoneStep) // towards zero
	if q > d {
		q -= zoneStep
	}
	return q
}

func inRange(z time.Duration) (time.Duration, bool) {
	return z, z >= minZone && z <= maxZone
}
