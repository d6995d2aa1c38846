package transform

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform/nodemetrics"
)

// A bundle whose node-metrics collector ran holds each node's kubelet
// Summary API answer; the upgrade writes from them the metrics.k8s.io
// lists metrics-server would have answered (package nodemetrics), as
// lists of that group version under _meta/converted/, which serve answers
// like every converted list. Without node metrics nothing is written, and
// kubectl top says what it says against a cluster without
// metrics-server.

// hasNodeMetrics says whether the bundle holds any node's Summary API answer.
func hasNodeMetrics(b *contract.Bundle) bool {
	for rel := range b.Names {
		if _, ok := nodemetrics.IsFile(rel); ok {
			return true
		}
	}
	return false
}

// addMetricsDiscovery advertises metrics.k8s.io/v1beta1 as metrics-server
// registers it, when the discovery the bundle collected does not (a
// cluster without metrics-server, whose kubelets still answered).
func addMetricsDiscovery(d *contract.Discovery) {
	gv := nodemetrics.NodesGVR.GroupVersion().String()
	if len(d.Resources[gv]) > 0 {
		return
	}
	addVersion(d, nodemetrics.NodesGVR.GroupVersion())
	d.Resources[gv] = nodemetrics.APIResources()
}

// removeMetricsDiscovery takes metrics.k8s.io out of the discovery of a
// bundle without node metrics. The group is metrics-server's, aggregated,
// with nothing stored: nothing in the bundle can answer it, and kubectl
// top then says what it says against a cluster without metrics-server
// ("error: Metrics API not available") rather than that the bundle did
// not collect the metrics of nodes.
func removeMetricsDiscovery(d *contract.Discovery) {
	group := nodemetrics.NodesGVR.Group
	d.Groups = slices.DeleteFunc(d.Groups, func(g metav1.APIGroup) bool { return g.Name == group })
	for gv := range d.Resources {
		if g, _, _ := strings.Cut(gv, "/"); g == group && strings.Contains(gv, "/") {
			delete(d.Resources, gv)
		}
	}
}

// objectMeta is the part of a node or pod the metrics carry: its labels.
type objectMeta struct {
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
}

// writeNodeMetrics reads the bundle's node metrics, with the labels of
// its nodes and pods (metrics-server gives each metric its object's
// labels, which label selectors select on), and writes the NodeMetrics
// list, a PodMetrics list per namespace, and their tables. A bundle that
// holds them already (upgraded before) is left as it is; a file that
// cannot be read is a problem of the summary.
func (p *pipeline) writeNodeMetrics(ctx context.Context, d *contract.Discovery, at time.Time) error {
	nodesRel := contract.ResourcePath(contract.ConvertedListDir(nodemetrics.NodesGVR), "")
	if !hasNodeMetrics(p.b) || p.b.Names[nodesRel] {
		return nil
	}
	if _, ok := d.Resource(nodemetrics.NodesGVR.GroupVersion().String(), nodemetrics.NodesGVR.Resource); !ok {
		p.sum.problem(contract.DiscoveryPath(), fmt.Errorf("the bundle has node metrics, but its discovery does not advertise %s: they are not served", nodemetrics.NodesGVR.GroupVersion()))
		return nil
	}
	var summaries []*summaryFile
	labels := map[string]map[string]string{} // "ns/name" of pods, "/name" of nodes
	// Every namespace the bundle lists pods of gets a PodMetrics list,
	// empty when no pod there had metrics: serve answers a namespace
	// without a list with a warning that it was not collected.
	byNamespace := map[string][]metricsv1beta1.PodMetrics{}
	err := p.b.Walk(func(e *contract.Entry) error {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		_, isMetrics := nodemetrics.IsFile(e.Rel)
		isObjects := p.b.IsListOfRecord(e) && !e.Class.Converted && e.Class.GR.Group == "" && (e.Class.GR.Resource == "nodes" || e.Class.GR.Resource == "pods")
		if !e.InRoot || !e.IsRegular() || !isMetrics && !isObjects {
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			if local := e.LocalError(err); local != nil {
				if isMetrics {
					p.sum.problem(e.Rel, fmt.Errorf("node metrics not read: %w", local))
				}
				return nil
			}
			return err
		}
		if isMetrics {
			s, err := nodemetrics.Decode(data)
			if err != nil {
				p.sum.problem(e.Rel, fmt.Errorf("node metrics not served: %w", err))
				return nil
			}
			summaries = append(summaries, &summaryFile{rel: e.Rel, hdr: e.Header, s: s})
			return nil
		}
		l, err := contract.DecodeList(data, e.Class.Format)
		if err != nil {
			return nil // the first pass reported it
		}
		if e.Class.GR.Resource == "pods" && e.Class.Key.Namespace != "" {
			byNamespace[e.Class.Key.Namespace] = nil
		}
		for _, item := range l.Items {
			var m objectMeta
			if json.Unmarshal(item, &m) == nil && m.Metadata.Name != "" {
				labels[m.Metadata.Namespace+"/"+m.Metadata.Name] = m.Metadata.Labels
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(summaries) == 0 {
		return nil
	}
	var nodes []metricsv1beta1.NodeMetrics
	var pods []metricsv1beta1.PodMetrics
	podLabels := func(ns, name string) map[string]string { return labels[ns+"/"+name] }
	for _, f := range summaries {
		if n, ok := nodemetrics.Node(f.s, labels["/"+f.s.Node.NodeName], at); ok {
			nodes = append(nodes, n)
		} else {
			p.sum.problem(f.rel, fmt.Errorf("node %s has no CPU or memory usage: no NodeMetrics served for it", f.s.Node.NodeName))
		}
		pods = append(pods, nodemetrics.Pods(f.s, podLabels, at)...)
	}
	nodemetrics.SortNodes(nodes)
	nodemetrics.SortPods(pods)
	like := summaries[0].hdr
	if len(nodes) > 0 {
		if err := p.writeMetricsList(nodesRel, nodemetrics.NodesGVR, "NodeMetrics", encodeItems(nodes), nodemetrics.NodeTable(nodes), like, at); err != nil {
			return err
		}
	}
	for _, m := range pods {
		byNamespace[m.Namespace] = append(byNamespace[m.Namespace], m)
	}
	namespaces := make([]string, 0, len(byNamespace))
	for ns := range byNamespace {
		namespaces = append(namespaces, ns)
	}
	sort.Strings(namespaces)
	for _, ns := range namespaces {
		ms := byNamespace[ns]
		rel := contract.ResourcePath(contract.ConvertedListDir(nodemetrics.PodsGVR), ns)
		if err := p.writeMetricsList(rel, nodemetrics.PodsGVR, "PodMetrics", encodeItems(ms), nodemetrics.PodTable(ms), like, at); err != nil {
			return err
		}
	}
	return nil
}

type summaryFile struct {
	rel string
	hdr *tar.Header
	s   *statsv1alpha1.Summary
}

// writeMetricsList writes one list of metrics and its table beside it.
func (p *pipeline) writeMetricsList(rel string, gvr schema.GroupVersionResource, kind string, items []json.RawMessage, table metav1.Table, like *tar.Header, at time.Time) error {
	body, err := encodeList(gvr.GroupVersion().WithKind(kind), "", items)
	if err != nil {
		return err
	}
	tbody, err := json.Marshal(table)
	if err != nil {
		return err
	}
	files := []struct {
		rel  string
		body []byte
	}{{rel, body}, {contract.TablePathFor(rel), append(tbody, '\n')}}
	for _, f := range files {
		hdr := newEntryHeader(entryName(p.b, f.rel), int64(len(f.body)), like, at)
		if err := p.w.WriteEntry(hdr, bytes.NewReader(f.body)); err != nil {
			return err
		}
	}
	p.sum.converted(gvr)
	return nil
}

// encodeItems encodes metrics as list items: without kind and apiVersion,
// as the server encodes the items of a typed list. Metrics always encode.
func encodeItems[T any](items []T) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i := range items {
		out[i], _ = json.Marshal(items[i])
	}
	return out
}
