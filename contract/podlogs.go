package contract

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Pod logs in every layout troubleshoot has written since 2020 (see
// /work/notes/troubleshoot-logs.md §1.8 for the source of each rule):
//
//   - cluster-resources/pods/logs/<ns>/<pod>/<container>[-previous].log,
//     the canonical layout: the clusterResources collector's logs of
//     unhealthy pods (v0.17.0+) and the logs collector's (v0.48.0+), with
//     <container>-logs-errors.log when the log could not be read, and the
//     nested form v0.48.0 and v0.49.x wrote by mistake;
//   - symlinks to those anywhere (the logs collector's <name>/<pod>/...
//     from v0.48.0, run and runPod links, --auto's links at the root): the
//     file they point to;
//   - <name>/<pod>/<container>[-previous].log, the logs collector before
//     v0.48.0, with <container>-errors.json: the namespace is not in the
//     path, so it is the one of the bundle's pods of that name that has
//     such a container;
//   - <name>/<pod>[-previous].log, the same collector's form for a pod
//     with one container in all (and run/runPod before v0.48.0), with
//     <pod>-errors.json.
//
// Where two files hold the same container's log, the canonical one wins.
//
// A file of the two older forms can fit pods of the same name in several
// namespaces (kotsadm-postgres-0 in two KOTS installs). troubleshoot
// wrote each such pod's log to that one path, so the file is the log of
// the one pod the collector targeted, or of the last one written when it
// targeted several, and the bundle keeps no record of which (the
// collector's spec is not in it; a collector folder's other logs tell
// nothing certain, since one folder name can serve collectors of several
// namespaces). It is mapped to each pod that fits, each PodLog naming the
// others in Ambiguous: the person debugging gets the log, marked as
// possibly another pod's, rather than told it was not collected.

// PodContainers is what mapping logs needs to know of a pod of the bundle.
type PodContainers struct {
	Namespace, Name string
	// Containers are the names of the pod's containers; Init its init
	// containers; Ephemeral its ephemeral containers.
	Containers, Init, Ephemeral []string
}

func (p PodContainers) has(c string) bool {
	return slices.Contains(p.Containers, c) || slices.Contains(p.Init, c) || slices.Contains(p.Ephemeral, c)
}

// LogFile is a file of the bundle as mapping sees it: a regular file, or
// a symlink with its target resolved relative to the bundle root.
type LogFile struct {
	Rel  string
	Size int64
	// Link is the resolved target of a symlink ("" for a regular file or
	// a link that leaves the root).
	Link    string
	Symlink bool
}

// PodLog is one container log found in the bundle.
type PodLog struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Container string `json:"container"`
	Previous  bool   `json:"previous,omitempty"`
	// Path is the file that holds the log (a symlink's target); Size its size.
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Links are the symlinks that point to it.
	Links []string `json:"links,omitempty"`
	// Error: the file holds why the log could not be read (troubleshoot's
	// -logs-errors.log, plain text, or -errors.json, a JSON array of
	// strings), not the log.
	Error bool `json:"error,omitempty"`
	// Layout names the rule the file was mapped by.
	Layout string `json:"layout"`
	// PodInBundle is false for a log whose pod the bundle does not list
	// (run and runPod pods, deleted before the collection ended).
	PodInBundle bool `json:"podInBundle"`
	// Ambiguous are the other pods ("namespace/name") the file fits as
	// well: it may be the log of one of them instead (see MapPodLogs).
	Ambiguous []string `json:"ambiguous,omitempty"`
}

// Log layouts, as PodLog.Layout names them.
const (
	LayoutCanonical       = "cluster-resources/pods/logs"
	LayoutCollectorFolder = "<collector>/<pod>/<container>.log"
	LayoutSingleContainer = "<collector>/<pod>.log"
)

// UnmappedLog is a file that looks like a pod log but belongs to no pod
// the bundle can name, with the reason.
type UnmappedLog struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// PodLogs is the result of MapPodLogs.
type PodLogs struct {
	Logs     []PodLog      `json:"logs"`
	Unmapped []UnmappedLog `json:"unmapped"`
}

// MapPodLogs maps the bundle's log files to the pods and containers they
// belong to. files are every regular file and symlink under the root
// whose name ends in .log or -errors.json; pods are the bundle's pods.
func MapPodLogs(files []LogFile, pods []PodContainers) *PodLogs {
	m := &logMapper{byName: map[string][]PodContainers{}, sizes: map[string]int64{}, res: &PodLogs{Logs: []PodLog{}, Unmapped: []UnmappedLog{}}, at: map[logKey]int{}}
	for _, p := range pods {
		m.byName[p.Name] = append(m.byName[p.Name], p)
	}
	for _, f := range files {
		if !f.Symlink {
			m.sizes[f.Rel] = f.Size
		}
	}
	// Regular files first, canonical ones first among them, so that a
	// legacy copy of a log never displaces the canonical one; links last,
	// as aliases of what they point to.
	sorted := slices.Clone(files)
	sort.SliceStable(sorted, func(i, j int) bool { return m.rank(sorted[i]) < m.rank(sorted[j]) })
	for _, f := range sorted {
		m.add(f)
	}
	sort.Slice(m.res.Logs, func(i, j int) bool { return m.res.Logs[i].less(m.res.Logs[j]) })
	sort.Slice(m.res.Unmapped, func(i, j int) bool { return m.res.Unmapped[i].Path < m.res.Unmapped[j].Path })
	return m.res
}

func (l PodLog) less(o PodLog) bool {
	a := []string{l.Namespace, l.Pod, l.Container}
	b := []string{o.Namespace, o.Pod, o.Container}
	if c := slices.Compare(a, b); c != 0 {
		return c < 0
	}
	return !l.Previous && o.Previous
}

type logKey struct {
	ns, pod, container string
	previous, error    bool
}

type logMapper struct {
	byName map[string][]PodContainers
	sizes  map[string]int64
	res    *PodLogs
	at     map[logKey]int // index in res.Logs
}

func (m *logMapper) rank(f LogFile) int {
	switch {
	case f.Symlink:
		return 2
	case strings.HasPrefix(f.Rel, canonicalLogs):
		return 0
	}
	return 1
}

const canonicalLogs = ClusterResourcesDir + "/pods/logs/"

func (m *logMapper) add(f LogFile) {
	if f.Symlink {
		if f.Link == "" {
			m.unmapped(f.Rel, "a symlink that points outside the bundle")
			return
		}
		for i, l := range m.res.Logs {
			if l.Path == f.Link {
				m.res.Logs[i].Links = append(m.res.Logs[i].Links, f.Rel)
				return
			}
		}
		if _, ok := m.sizes[f.Link]; !ok {
			m.unmapped(f.Rel, "a symlink to "+f.Link+", which the bundle does not hold")
			return
		}
		return // its target is not a log: neither is the link
	}
	if rest, ok := strings.CutPrefix(f.Rel, canonicalLogs); ok {
		m.canonical(f, rest)
		return
	}
	m.legacy(f)
}

// canonical maps cluster-resources/pods/logs/<ns>/<pod>/<file>, and the
// nested form of v0.48.0–v0.49.x by its last three parts.
func (m *logMapper) canonical(f LogFile, rest string) {
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || !strings.HasSuffix(f.Rel, ".log") {
		m.unmapped(f.Rel, "not <namespace>/<pod>/<container>.log")
		return
	}
	ns, pod, file := parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
	pc, inBundle := m.pod(ns, pod)
	l := PodLog{Namespace: ns, Pod: pod, Path: f.Rel, Size: f.Size, Layout: LayoutCanonical, PodInBundle: inBundle}
	if c, ok := strings.CutSuffix(file, "-logs-errors.log"); ok {
		l.Container, l.Error = c, true
	} else {
		l.Container, l.Previous = splitPrevious(strings.TrimSuffix(file, ".log"), pc, inBundle)
	}
	m.mapped(l)
}

// legacy maps the logs collector's files before v0.48.0, whose paths do
// not name the namespace.
func (m *logMapper) legacy(f LogFile) {
	dir, file := path.Split(f.Rel)
	dir = strings.TrimSuffix(dir, "/")
	stem, isErr := strings.CutSuffix(file, "-errors.json")
	if !isErr {
		var ok bool
		if stem, ok = strings.CutSuffix(file, ".log"); !ok {
			return
		}
	}
	// <name>/<pod>/<container>.log: the folder is a pod of the bundle.
	if pods := m.byName[path.Base(dir)]; dir != "" && len(pods) > 0 {
		var fits []fit
		for _, p := range pods {
			c, prev := stem, false
			if !isErr {
				c, prev = splitPrevious(stem, p, true)
			}
			if p.has(c) {
				fits = append(fits, fit{p, c, prev})
			}
		}
		if m.pick(f, fits, isErr, LayoutCollectorFolder) {
			return
		}
	}
	// <name>/<pod>.log: the stem is a pod of the bundle with one container.
	podName, previous := stem, false
	if !isErr {
		podName, previous = strings.CutSuffix(stem, "-previous")
		if len(m.byName[stem]) > 0 && len(m.byName[podName]) == 0 {
			podName, previous = stem, false
		}
	}
	var fits []fit
	for _, p := range m.byName[podName] {
		if len(p.Containers)+len(p.Init) == 1 {
			fits = append(fits, fit{p, append(slices.Clone(p.Containers), p.Init...)[0], previous})
		}
	}
	if m.pick(f, fits, isErr, LayoutSingleContainer) {
		return
	}
	if isErr {
		return // an -errors.json of some other collector
	}
	m.unmapped(f.Rel, fmt.Sprintf("no pod of the bundle is named %q or %q with such a container", path.Base(dir), podName))
}

// fit is a pod a legacy file may belong to, and which of its logs.
type fit struct {
	pod       PodContainers
	container string
	previous  bool
}

// pick maps f to every pod that fits (one, but for a name in several
// namespaces: see MapPodLogs), and says whether any did.
func (m *logMapper) pick(f LogFile, fits []fit, isErr bool, layout string) bool {
	for i, x := range fits {
		var others []string
		for j, o := range fits {
			if j != i {
				others = append(others, o.pod.Namespace+"/"+o.pod.Name)
			}
		}
		sort.Strings(others)
		m.mapped(PodLog{Namespace: x.pod.Namespace, Pod: x.pod.Name, Container: x.container, Previous: x.previous, Path: f.Rel, Size: f.Size, Error: isErr, Layout: layout, PodInBundle: true, Ambiguous: others})
	}
	return len(fits) > 0
}

// splitPrevious reads "<container>-previous" as the previous log of
// <container>, unless the pod has a container named so (troubleshoot does
// not escape names). A pod the bundle lacks is taken at its word.
func splitPrevious(stem string, p PodContainers, known bool) (string, bool) {
	c, ok := strings.CutSuffix(stem, "-previous")
	if !ok || known && p.has(stem) {
		return stem, false
	}
	return c, true
}

func (m *logMapper) pod(ns, name string) (PodContainers, bool) {
	for _, p := range m.byName[name] {
		if p.Namespace == ns {
			return p, true
		}
	}
	return PodContainers{}, false
}

func (m *logMapper) mapped(l PodLog) {
	k := logKey{l.Namespace, l.Pod, l.Container, l.Previous, l.Error}
	if i, ok := m.at[k]; ok {
		m.unmapped(l.Path, "the same log as "+m.res.Logs[i].Path+", which is read instead")
		return
	}
	m.at[k] = len(m.res.Logs)
	m.res.Logs = append(m.res.Logs, l)
}

func (m *logMapper) unmapped(p, reason string) {
	m.res.Unmapped = append(m.res.Unmapped, UnmappedLog{Path: p, Reason: reason})
}

// LogFileOf is the entry as MapPodLogs takes it, if it may be a pod log:
// a regular file, symlink or hard link named *.log or *-errors.json (a
// link as an alias of the file it points to), not an archiver's file and
// not under host-collectors/, where troubleshoot's host collectors write
// the logs of the machine (an installer's, a service's), never a pod's.
func LogFileOf(e *Entry) (LogFile, bool) {
	if !strings.HasSuffix(e.Rel, ".log") && !strings.HasSuffix(e.Rel, "-errors.json") || e.Superseded ||
		IsArchiverFile(e.Rel) || strings.HasPrefix(e.Rel, HostCollectorsDir+"/") {
		return LogFile{}, false
	}
	switch {
	case e.IsRegular():
		return LogFile{Rel: e.Rel, Size: e.Header.Size}, true
	case e.Header.Typeflag == tar.TypeSymlink || e.Header.Typeflag == tar.TypeLink:
		return LogFile{Rel: e.Rel, Link: e.LinkRel, Symlink: true}, true
	}
	return LogFile{}, false
}

// LogPodNames are the names of the pods MapPodLogs can map a file of the
// bundle to (names holds every path under the root): for each file named
// as a log, its folder's name and its own, without its suffixes. A pod of
// any other name has no log, so a reader of a large pod list keeps
// nothing of it for the mapping.
func LogPodNames(names map[string]bool) map[string]bool {
	out := map[string]bool{}
	for rel := range names {
		stem, ok := strings.CutSuffix(rel, "-errors.json")
		if !ok {
			if stem, ok = strings.CutSuffix(rel, ".log"); !ok {
				continue
			}
		}
		dir, file := path.Split(stem)
		out[path.Base(dir)] = true
		out[file] = true
		out[strings.TrimSuffix(file, "-previous")] = true
	}
	return out
}

// PodsOf reads the containers of each pod of a pod list whose name is
// among keep (LogPodNames), or of every pod when keep is nil; items that
// do not decode are left out (the list's own checks report them).
func PodsOf(l *List, keep map[string]bool) []PodContainers {
	type names []struct {
		Name string `json:"name"`
	}
	var pods []PodContainers
	for i, raw := range l.Items {
		if _, name := l.ItemKey(i); keep != nil && !keep[name] {
			continue
		}
		var p struct {
			Metadata struct{ Name, Namespace string } `json:"metadata"`
			Spec     struct {
				Containers          names `json:"containers"`
				InitContainers      names `json:"initContainers"`
				EphemeralContainers names `json:"ephemeralContainers"`
			} `json:"spec"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Metadata.Name == "" {
			continue
		}
		pc := PodContainers{Namespace: p.Metadata.Namespace, Name: p.Metadata.Name}
		for _, c := range p.Spec.Containers {
			pc.Containers = append(pc.Containers, c.Name)
		}
		for _, c := range p.Spec.InitContainers {
			pc.Init = append(pc.Init, c.Name)
		}
		for _, c := range p.Spec.EphemeralContainers {
			pc.Ephemeral = append(pc.Ephemeral, c.Name)
		}
		pods = append(pods, pc)
	}
	return pods
}
