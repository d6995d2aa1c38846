package contract

import (
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Report is what `bundlectl inspect` tells about a bundle.
type Report struct {
	Path                string `json:"path"`
	Format              string `json:"format"`
	Root                string `json:"root"`
	Schema              string `json:"schema"` // "legacy" or the bundleSchemaVersion
	TroubleshootVersion string `json:"troubleshootVersion,omitempty"`
	KubernetesVersion   string `json:"kubernetesVersion,omitempty"`
	// TablesMinor is the Kubernetes minor whose server's tables upgrade
	// renders for the bundle (TableMinor of KubernetesVersion; the pinned
	// one when no version is known), unless told another with
	// --kube-version.
	TablesMinor string `json:"tablesMinor"`
	// ClusterResources says whether the bundle has a cluster-resources/
	// folder (Bundle.HasClusterResources).
	ClusterResources bool `json:"clusterResources"`
	// CollectionTime is nil when nothing tells when the bundle was
	// collected.
	*CollectionTime
	Entries   int               `json:"entries"`
	Size      int64             `json:"size"`
	Resources []ResourceSummary `json:"resources"`
	// Logs are the container logs of the bundle, in every layout;
	// UnmappedLogs the files that look like pod logs but name no pod.
	Logs         []PodLog      `json:"logs"`
	UnmappedLogs []UnmappedLog `json:"unmappedLogs"`
	// NotCollected are the resources discovery.json advertises as
	// listable that the bundle holds no list of ("hpa.autoscaling"): an
	// empty answer for them means "not collected", not "none".
	NotCollected []string `json:"notCollected"`
	// Analysis are the analyzers' verdicts the bundle carries
	// (analysis.json), fails first; null when it has none.
	Analysis []AnalysisResult `json:"analysis"`
	Problems []Problem        `json:"problems"`
}

// ResourceSummary counts the objects of one resource at one group version.
type ResourceSummary struct {
	Group      string   `json:"group"`
	Version    string   `json:"version"`
	Resource   string   `json:"resource"`
	Kind       string   `json:"kind,omitempty"`
	Custom     bool     `json:"custom,omitempty"`
	Namespaced bool     `json:"namespaced"`
	Namespaces []string `json:"namespaces,omitempty"`
	Objects    int      `json:"objects"`
	Lists      int      `json:"lists"`
	Tables     int      `json:"tables"`
	Paths      []string `json:"paths"`
}

// GVR is the summary's group version resource.
func (r ResourceSummary) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// Problem is a file that could not be read as what its path says it is.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Inspect reads every list of the bundle and summarises it. Problems in
// single files are reported, not fatal; an unreadable bundle is an error.
func Inspect(b *Bundle) (*Report, error) {
	rep := &Report{Path: b.Path, Format: b.Format.String(), Root: b.Root, Entries: b.Entries, Size: b.Size, ClusterResources: b.HasClusterResources,
		Schema: "legacy", Resources: []ResourceSummary{}, Logs: []PodLog{}, UnmappedLogs: []UnmappedLog{}, NotCollected: []string{}, Problems: []Problem{}}
	disc, err := rep.readHeader(b)
	if err != nil {
		return nil, err
	}
	problem := rep.problem

	sums := map[inspectKey]*ResourceSummary{}
	tables := map[ListKey]bool{}
	listGVR := map[ListKey]inspectKey{}
	var logFiles []LogFile
	var pods []PodContainers
	logPods := LogPodNames(b.Names)
	err = b.Walk(func(e *Entry) error {
		if !e.InRoot {
			return nil
		}
		c := e.Class
		if c.Class == ClassTable {
			tables[c.Key] = true
			return nil
		}
		if e.Rel == AnalysisPath && e.HasContent() {
			data, err := e.ReadAll()
			if err == nil {
				rep.Analysis, err = ParseAnalysis(data)
			}
			if err != nil {
				problem(e.Rel, err)
			}
			return nil
		}
		if f, ok := LogFileOf(e); ok {
			logFiles = append(logFiles, f)
			return nil
		}
		if !b.IsListOfRecord(e) {
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			if local := e.LocalError(err); local != nil {
				problem(e.Rel, local)
				return nil
			}
			return err
		}
		// Only the pods a log may belong to are kept, to map the logs:
		// of the other items, the scan keeps nothing.
		var keep func(string) bool
		if c.GR.Group == "" && c.GR.Resource == "pods" {
			keep = func(name string) bool { return logPods[name] }
		}
		list, err := ScanList(data, c.Format, keep)
		if err == nil {
			err = CheckKinds(c, list)
		}
		if err != nil {
			problem(e.Rel, err)
			return nil
		}
		if err := list.DuplicateKeys(); err != nil {
			problem(e.Rel, err)
		}
		g := ListGVR(c, list)
		k := inspectKey{gvr: g, custom: c.Custom}
		s := sums[k]
		if s == nil {
			s = &ResourceSummary{Group: g.Group, Version: g.Version, Resource: g.Resource, Kind: ListKind(c, list), Custom: c.Custom, Namespaced: c.Namespaced}
			sums[k] = s
		}
		if g.Group == "" && g.Resource == "pods" {
			pods = append(pods, PodsOf(list, nil)...) // kept by ScanList
		}
		s.Objects += list.Len()
		s.Lists++
		s.Paths = append(s.Paths, e.Rel)
		if c.Key.Namespace != "" {
			s.Namespaces = append(s.Namespaces, c.Key.Namespace)
		}
		listGVR[c.Key] = k
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.addResources(b, disc, sums, tables, listGVR)
	logs := MapPodLogs(logFiles, pods)
	rep.Logs, rep.UnmappedLogs = logs.Logs, logs.Unmapped
	return rep, nil
}

// readHeader fills in what the bundle's small files tell (discovery, the
// versions, the collection time) and the problems of the archive itself,
// and returns the discovery. An unsupported schema is an error.
func (rep *Report) readHeader(b *Bundle) (*Discovery, error) {
	problem := rep.problem
	disc, err := b.Discovery()
	if d := disc; err != nil {
		var unsupported *UnsupportedSchemaError
		if errors.As(err, &unsupported) {
			return nil, &EntryError{Bundle: b.Path, Entry: DiscoveryPath(), Err: err}
		}
		problem(DiscoveryPath(), err)
	} else if d != nil {
		rep.Schema = d.BundleSchemaVersion
		rep.KubernetesVersion = d.KubernetesVersion
		for _, err := range d.Invalid {
			problem(DiscoveryPath(), err)
		}
	}
	if v, err := b.TroubleshootVersion(); err != nil {
		problem(VersionFilePath, err)
	} else {
		rep.TroubleshootVersion = v
	}
	if sv, err := b.ServerVersion(); err != nil {
		problem(ClusterVersionPath, err)
	} else if sv != nil && rep.KubernetesVersion == "" {
		rep.KubernetesVersion = sv.GitVersion
	}
	rep.TablesMinor = PinnedMinor
	if m, _, err := TableMinor(rep.KubernetesVersion); err == nil {
		rep.TablesMinor = m
	}
	if c, err := b.CollectedAt(); err == nil {
		rep.CollectionTime = &c
	}
	for _, d := range b.Duplicates {
		problem(d, errors.New("entry occurs more than once in the archive"))
	}
	rep.Problems = append(rep.Problems, b.Warnings...)
	return disc, nil
}

// problem adds a problem of the file at p.
func (rep *Report) problem(p string, err error) {
	rep.Problems = append(rep.Problems, Problem{Path: p, Message: err.Error()})
}

// inspectKey is a resource of the report: custom resources apart from
// built-in ones of the same name.
type inspectKey struct {
	gvr    schema.GroupVersionResource
	custom bool
}

// addResources adds the resources the lists hold, in order, with the
// number of their lists that have a table, and what discovery names but
// the bundle did not collect.
func (rep *Report) addResources(b *Bundle, disc *Discovery, sums map[inspectKey]*ResourceSummary, tables map[ListKey]bool, listGVR map[ListKey]inspectKey) {
	for lk, k := range listGVR {
		if tables[lk] {
			sums[k].Tables++
		}
	}
	for _, s := range sums {
		sort.Strings(s.Namespaces)
		sort.Strings(s.Paths)
		rep.Resources = append(rep.Resources, *s)
	}
	sort.Slice(rep.Resources, func(i, j int) bool {
		a, b := rep.Resources[i], rep.Resources[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Version < b.Version
	})
	held, custom, customCollected := map[schema.GroupResource]bool{}, map[schema.GroupResource]bool{}, false
	for _, r := range rep.Resources {
		held[r.GVR().GroupResource()] = true
		customCollected = customCollected || r.Custom
	}
	if len(b.CRDList) > 0 {
		if l, err := DecodeList(b.CRDList, FormatJSON); err == nil {
			custom = CustomResourcesOf(l)
		}
	}
	for _, gr := range NotCollected(disc, held, custom, customCollected) {
		rep.NotCollected = append(rep.NotCollected, gr.String())
	}
}

// ListGVR is the group version resource a decoded list really holds: the
// apiVersion the file records (list or first item) wins over the folder's
// default, so CronJobs stored as batch/v1beta1 are reported as such.
func ListGVR(c Classification, l *List) schema.GroupVersionResource {
	g := schema.GroupVersionResource{Group: c.GR.Group, Resource: c.GR.Resource, Version: c.Version}
	apiVersion, _ := l.FirstItemType()
	if apiVersion == "" {
		apiVersion = l.APIVersion
	}
	if apiVersion != "" {
		if gv, err := schema.ParseGroupVersion(apiVersion); err == nil && gv.Group == g.Group {
			g.Version = gv.Version
		}
	}
	return g
}

// ListKind is the kind the list holds, from the file where it says.
func ListKind(c Classification, l *List) string {
	if _, kind := l.FirstItemType(); kind != "" {
		return kind
	}
	if k, ok := strings.CutSuffix(l.Kind, "List"); ok && k != "" {
		return k
	}
	return c.Kind
}

// NotCollected lists the group resources discovery advertises as
// listable (subresources aside) of which the bundle holds no list at any
// version (held): for them an empty answer means "not collected", not
// "none". A custom resource of the bundle's CRDs (custom) is the
// exception once the bundle holds any custom resource list
// (customCollected): troubleshoot collects the objects of every CRD and
// writes a file only for a namespace that has some, so no file means
// none.
func NotCollected(d *Discovery, held, custom map[schema.GroupResource]bool, customCollected bool) []schema.GroupResource {
	if d == nil {
		return nil
	}
	seen := map[schema.GroupResource]bool{}
	var out []schema.GroupResource
	for gv, resources := range d.Resources {
		g, err := schema.ParseGroupVersion(gv)
		if err != nil {
			continue
		}
		for _, r := range resources {
			gr := schema.GroupResource{Group: g.Group, Resource: r.Name}
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || held[gr] || seen[gr] || customCollected && custom[gr] {
				continue
			}
			seen[gr] = true
			out = append(out, gr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// CustomResourcesOf reads the group resources a CRD list defines; items
// that do not decode are left out (the list's own checks report them).
func CustomResourcesOf(l *List) map[schema.GroupResource]bool {
	out := map[schema.GroupResource]bool{}
	for _, raw := range l.Items {
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Plural string `json:"plural"`
				} `json:"names"`
			} `json:"spec"`
		}
		if json.Unmarshal(raw, &crd) == nil && crd.Spec.Names.Plural != "" {
			out[schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}] = true
		}
	}
	return out
}
