package collect

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// bundle is the collected bundle in memory: its files by path relative to
// the bundle root, and the summary that describes them.
type bundle struct {
	col     *collector
	at      time.Time
	files   map[string][]byte
	summary *Summary
	counts  map[schema.GroupVersionResource]*ResourceCount
	custom  map[schema.GroupResource]bool
}

func newBundle(col *collector, f *fetchedAll) *bundle {
	b := &bundle{col: col, files: map[string][]byte{}, counts: map[schema.GroupVersionResource]*ResourceCount{}, custom: map[schema.GroupResource]bool{}}
	b.at = col.collectedAt(f.burst)
	b.summary = &Summary{
		Root:              "support-bundle-" + b.at.Format("2006-01-02T15_04_05"),
		KubernetesVersion: f.disc.version.GitVersion,
		CollectedAt:       b.at,
		TablesSameSecond:  f.burst.spread == 0 && !f.burst.at.IsZero(),
		TableBursts:       f.burst.attempts,
		SecretValues:      "masked",
	}
	if col.opts.IncludeSecretValues {
		b.summary.SecretValues = "included"
	}
	for _, c := range f.crds {
		b.custom[schema.GroupResource{Group: c.Spec.Group, Resource: c.Spec.Names.Plural}] = true
	}
	return b
}

func (b *bundle) count(r *resource) *ResourceCount {
	c := b.counts[r.gvr]
	if c == nil {
		c = &ResourceCount{Group: r.gvr.Group, Version: r.gvr.Version, Resource: r.gvr.Resource, Kind: r.kind, Namespaced: r.namespaced, Converted: r.converted}
		b.counts[r.gvr] = c
	}
	return c
}

// splitNamespaces are the namespaces an all-namespaces list is split into:
// every namespace the cluster listed and any other an object is in, so an
// empty namespace still gets its (empty) lists.
func splitNamespaces(f *fetchedAll) []string {
	set := map[string]bool{}
	for i, u := range f.units {
		for _, l := range []*list{f.lists[i], f.tables[i]} {
			if l == nil || u.namespace != "" || !u.res.namespaced {
				continue
			}
			nss, err := l.namespaces()
			if err != nil {
				continue // reported when the list is split
			}
			for _, ns := range nss {
				set[ns] = true
			}
		}
		if u.res.gvr == (schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}) && f.lists[i] != nil {
			for _, ns := range itemNames(f.lists[i].elems) {
				set[ns] = true
			}
		}
	}
	return sortedKeys(set)
}

func itemNames(items []json.RawMessage) []string {
	var out []string
	for _, it := range items {
		var o struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(it, &o) == nil && o.Metadata.Name != "" {
			out = append(out, o.Metadata.Name)
		}
	}
	return out
}

func (b *bundle) addLists(f *fetchedAll) {
	nss := splitNamespaces(f)
	for i, u := range f.units {
		if f.lists[i] != nil {
			b.addUnit(u, f.lists[i], f.tables[i], nss)
		}
	}
}

// addUnit adds one LIST's raw lists and tables, split per namespace.
func (b *bundle) addUnit(u unit, raw, table *list, nss []string) {
	dir := contract.DirFor(u.res.gvr.GroupResource(), b.custom[u.res.gvr.GroupResource()])
	if u.res.converted {
		dir = contract.ConvertedListDir(u.res.gvr)
	}
	if isSecrets(u.res.gvr) && !b.col.opts.IncludeSecretValues {
		if err := raw.edit(maskSecret); err != nil {
			b.col.problems.add("list of "+u.String(), fmt.Errorf("masking secret values: %w; not written", err))
			return
		}
		if table != nil {
			if err := table.edit(maskRow); err != nil {
				b.col.problems.add("table of "+u.String(), fmt.Errorf("masking secret values: %w; not written", err))
				table = nil
			}
		}
	}
	lists, err := perNamespace(u, raw, nss)
	if err != nil {
		b.col.problems.add("list of "+u.String(), err)
		return
	}
	c := b.count(u.res)
	c.Objects += len(raw.elems)
	for ns, body := range lists {
		indented, err := indent(body)
		if err != nil {
			b.col.problems.add("list of "+u.String(), err)
			continue
		}
		b.files[contract.ResourcePath(dir, ns)] = indented
		c.Lists++
	}
	b.addTables(u, table, dir, nss, lists)
}

func (b *bundle) addTables(u unit, table *list, dir string, nss []string, lists map[string][]byte) {
	if table == nil {
		return
	}
	tables, err := perNamespace(u, table, nss)
	if err != nil {
		b.col.problems.add("table of "+u.String(), err)
		return
	}
	c := b.count(u.res)
	for ns, body := range tables {
		if _, ok := lists[ns]; ok {
			b.files[contract.TablePath(dir, ns)] = body
			c.Tables++
		}
	}
}

// perNamespace is a LIST's content by namespace ("" for cluster-scoped).
func perNamespace(u unit, l *list, nss []string) (map[string][]byte, error) {
	switch {
	case !u.res.namespaced:
		return map[string][]byte{"": l.whole()}, nil
	case u.namespace != "":
		return map[string][]byte{u.namespace: l.whole()}, nil
	}
	return l.split(nss)
}

// addFields probes and records the selectable fields of every resource.
func (b *bundle) addFields(ctx context.Context, f *fetchedAll) {
	resources := make([]resource, 0, len(f.units))
	seen := map[schema.GroupVersionResource]bool{}
	for _, u := range f.units {
		if !seen[u.res.gvr] {
			seen[u.res.gvr] = true
			resources = append(resources, *u.res)
		}
	}
	ns := func(r resource) string {
		if r.namespaced && len(b.col.opts.Namespaces) > 0 {
			return b.col.opts.Namespaces[0]
		}
		return ""
	}
	probes := b.col.client.probeFields(ctx, resources, fieldCandidates(resources, f.crds), ns)
	for i := range resources {
		r := &resources[i]
		p := probes[r.gvr]
		if p.err != nil {
			b.col.problems.add("selectable fields of "+unit{res: r}.String(), p.err)
			continue
		}
		data, err := marshalIndent(p.accepted)
		if err != nil {
			b.col.problems.add("selectable fields of "+unit{res: r}.String(), err)
			continue
		}
		b.files[contract.SelectableFieldsPath(r.gvr)] = data
		b.count(r).SelectableFields = p.accepted
	}
}

// addLogs collects the logs of the pods the lists hold.
func (b *bundle) addLogs(ctx context.Context, f *fetchedAll) error {
	var reqs []logRequest
	for i, u := range f.units {
		if u.res.gvr != (schema.GroupVersionResource{Version: "v1", Resource: "pods"}) || u.res.converted || f.lists[i] == nil {
			continue
		}
		rs, err := logRequests(f.lists[i].elems)
		if err != nil {
			b.col.problems.add("logs of "+u.String(), err)
			continue
		}
		reqs = append(reqs, rs...)
	}
	logs := b.col.client.fetchLogs(ctx, reqs)
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, r := range reqs {
		if logs[i].err != nil {
			b.col.problems.add("log "+path.Join(r.namespace, r.pod, r.container)+previousSuffix(r), logs[i].err)
			b.files[r.errorFile()] = []byte(logs[i].err.Error() + "\n")
			b.summary.LogFailures++
			continue
		}
		b.files[r.file()] = logs[i].body
		b.summary.Logs++
	}
	return nil
}

func previousSuffix(r logRequest) string {
	if r.previous {
		return " (previous)"
	}
	return ""
}

// addMeta adds discovery in its legacy and contract forms and the version.
func (b *bundle) addMeta(f *fetchedAll) error {
	docs := map[string]any{
		path.Join(contract.ClusterResourcesDir, "groups.json"):    f.disc.groups,
		path.Join(contract.ClusterResourcesDir, "resources.json"): f.disc.lists,
		contract.ClusterVersionPath:                               contract.ClusterVersionFile{Info: f.disc.version, String: f.disc.version.String()},
	}
	for name, v := range docs {
		data, err := marshalIndent(v)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", name, err)
		}
		b.files[name] = data
	}
	data, err := newDiscovery(f.disc, b.at).Marshal()
	if err != nil {
		return fmt.Errorf("encoding %s: %w", contract.DiscoveryPath(), err)
	}
	b.files[contract.DiscoveryPath()] = data
	return nil
}

// write writes the files in path order under the bundle's top folder.
func (b *bundle) write(ctx context.Context, w *contract.Writer) error {
	names := make([]string, 0, len(b.files))
	for n := range b.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		data := b.files[n]
		hdr := &tar.Header{Name: b.summary.Root + "/" + n, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: b.at}
		if err := w.WriteEntry(hdr, bytes.NewReader(data)); err != nil {
			return err
		}
	}
	return nil
}

func (b *bundle) resourceCounts() []ResourceCount {
	out := make([]ResourceCount, 0, len(b.counts)) // [] in JSON, never null
	for _, c := range b.counts {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		if out[i].Resource != out[j].Resource {
			return out[i].Resource < out[j].Resource
		}
		return out[i].Version < out[j].Version
	})
	return out
}
