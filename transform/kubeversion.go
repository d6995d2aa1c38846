package transform

import (
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/version"

	"github.com/bundlectl/bundlectl/contract"
)

// Where the cluster's version, and so the minor the tables are rendered
// for, was read from.
const (
	VersionFromFlag           = "--kube-version"
	VersionFromDiscovery      = "discovery.json kubernetesVersion"
	VersionFromClusterVersion = contract.ClusterVersionPath
	VersionFromKubelets       = "the newest kubelet of the nodes"
)

// clusterVersion is what the bundle tells of its cluster's version.
type clusterVersion struct {
	version string // "" when nothing tells it
	source  string
}

// findClusterVersion reads the cluster's version from discovery.json,
// else cluster_version.json, else the nodes' kubelets (a pass over the
// bundle up to the nodes' list, made only for a bundle with neither
// file). Unreadable files are problems of the summary.
func findClusterVersion(b *contract.Bundle, sum *Summary) (clusterVersion, error) {
	if d, err := b.Discovery(); err == nil && d != nil && d.KubernetesVersion != "" {
		return clusterVersion{d.KubernetesVersion, VersionFromDiscovery}, nil
	}
	v, err := b.ServerVersion()
	if err != nil {
		sum.problem(contract.ClusterVersionPath, err)
	}
	if v != nil {
		return clusterVersion{v.GitVersion, VersionFromClusterVersion}, nil
	}
	kubelet, err := newestKubelet(b)
	if err != nil || kubelet == "" {
		return clusterVersion{}, err
	}
	return clusterVersion{kubelet, VersionFromKubelets}, nil
}

// errFound ends a walk that found what it looked for.
var errFound = errors.New("found")

// newestKubelet is the newest kubelet version of the bundle's nodes
// list, "" when it has none that tells.
func newestKubelet(b *contract.Bundle) (string, error) {
	newest := ""
	err := b.Walk(func(e *contract.Entry) error {
		if !b.IsListOfRecord(e) || e.Class.GR != nodesGVR.GroupResource() {
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			if e.LocalError(err) != nil {
				return nil // the upgrade reports it with the list's table
			}
			return err
		}
		for _, item := range l.Items {
			var node struct {
				Status struct {
					NodeInfo struct{ KubeletVersion string } `json:"nodeInfo"`
				} `json:"status"`
			}
			if json.Unmarshal(item, &node) != nil || node.Status.NodeInfo.KubeletVersion == "" {
				continue
			}
			v := node.Status.NodeInfo.KubeletVersion
			if newest == "" || version.CompareKubeAwareVersionStrings(v, newest) > 0 {
				newest = v
			}
		}
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", err
	}
	return newest, nil
}

// chooseMinor sets the minor the summary says the tables are rendered
// for: the flag's, else the cluster's own, else the pinned one with a
// problem saying why.
func chooseMinor(flag string, cv clusterVersion, sum *Summary) {
	v, source := cv.version, cv.source
	if flag != "" {
		v, source = flag, VersionFromFlag
	}
	sum.RenderedFor = contract.PinnedMinor
	if v == "" {
		sum.problem(contract.ClusterVersionPath, fmt.Errorf("missing, and no node's kubelet tells the cluster's version: tables are rendered for %s, the pinned release (pass --kube-version), and discovery.json's kubernetesVersion is left empty", contract.PinnedMinor))
		return
	}
	minor, note, err := contract.TableMinor(v)
	if err != nil {
		sum.problem(contract.ClusterVersionPath, fmt.Errorf("%s, from %s; tables are rendered for %s, the pinned release: pass --kube-version", err, source, contract.PinnedMinor))
		return
	}
	sum.RenderedFor, sum.RenderedForVersion, sum.RenderedForSource, sum.RenderedForNote = minor, v, source, note
}

// CheckKubeVersion refuses a --kube-version that is no Kubernetes version.
func CheckKubeVersion(v string) error {
	if v == "" {
		return nil
	}
	if _, _, err := contract.TableMinor(v); err != nil {
		return fmt.Errorf("--kube-version: %w", err)
	}
	return nil
}
