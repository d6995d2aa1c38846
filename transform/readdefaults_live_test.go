package transform_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/transform"
)

// Objects as releases before the read-path defaulting stored them: a
// Service of 1.19 (clusterIP, no clusterIPs or ipFamilies), a headless
// one, an ExternalName Service of 1.22 (internalTrafficPolicy, which 1.24
// drops on read), and a PersistentVolumeClaim of 1.21 (dataSource, no
// dataSourceRef).
var storedByOldReleases = map[string]string{
	"/registry/services/specs/default/old-web": `{"kind":"Service","apiVersion":"v1","metadata":{"name":"old-web","namespace":"default","uid":"0b9e8c3a-1c1e-4a55-9d3a-0c1f2a3b4c5d","creationTimestamp":"2021-03-01T10:00:00Z","labels":{"readpath":"test"}},` +
		`"spec":{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"web"},"clusterIP":"10.96.0.50","type":"ClusterIP","sessionAffinity":"None"},"status":{"loadBalancer":{}}}`,
	"/registry/services/specs/default/old-headless": `{"kind":"Service","apiVersion":"v1","metadata":{"name":"old-headless","namespace":"default","uid":"1b9e8c3a-1c1e-4a55-9d3a-0c1f2a3b4c5d","creationTimestamp":"2021-03-01T10:00:00Z","labels":{"readpath":"test"}},` +
		`"spec":{"ports":[{"protocol":"TCP","port":5432,"targetPort":5432}],"selector":{"app":"db"},"clusterIP":"None","type":"ClusterIP","sessionAffinity":"None"},"status":{"loadBalancer":{}}}`,
	"/registry/services/specs/default/old-external": `{"kind":"Service","apiVersion":"v1","metadata":{"name":"old-external","namespace":"default","uid":"2b9e8c3a-1c1e-4a55-9d3a-0c1f2a3b4c5d","creationTimestamp":"2022-05-01T10:00:00Z","labels":{"readpath":"test"}},` +
		`"spec":{"type":"ExternalName","externalName":"db.example.com","sessionAffinity":"None","internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}}`,
	"/registry/persistentvolumeclaims/default/old-claim": `{"kind":"PersistentVolumeClaim","apiVersion":"v1","metadata":{"name":"old-claim","namespace":"default","uid":"3b9e8c3a-1c1e-4a55-9d3a-0c1f2a3b4c5d","creationTimestamp":"2021-06-01T10:00:00Z","labels":{"readpath":"test"}},` +
		`"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"storageClassName":"standard","volumeMode":"Filesystem",` +
		`"dataSource":{"kind":"VolumeSnapshot","name":"snap-1","apiGroup":"snapshot.storage.k8s.io"}},"status":{"phase":"Pending"}}`,
}

// The pinned kube-apiserver, reading those objects from its own etcd,
// answers what bundlectl answers for a bundle that holds them: the same
// kubectl get -o wide (the Service's CLUSTER-IP included) and the same
// objects, read-path defaults included.
func TestReadDefaultsAreTheLiveServers(t *testing.T) {
	kubectl := anyKubectl(t)
	p, c := localtest.StartWith(t, localtest.Options{})
	for key, value := range storedByOldReleases {
		putEtcd(t, p.EtcdURL(), key, value)
	}
	bundle := filepath.Join(t.TempDir(), "support-bundle-2025-11-20T10_00_00")
	var services, claims []json.RawMessage
	for key, value := range storedByOldReleases {
		if strings.Contains(key, "/services/") {
			services = append(services, json.RawMessage(value))
		} else {
			claims = append(claims, json.RawMessage(value))
		}
	}
	writeFiles(t, bundle, map[string]string{
		"cluster-info/cluster_version.json":       `{"info":{"major":"1","minor":"37","gitVersion":"v1.37.1"},"string":"v1.37.1"}`,
		"cluster-resources/services/default.json": listOf(t, "ServiceList", services),
		"cluster-resources/pvcs/default.json":     listOf(t, "PersistentVolumeClaimList", claims),
	})
	upgraded := filepath.Join(t.TempDir(), "upgraded.tar.gz")
	sum, err := transform.Upgrade(context.Background(), transform.Options{Source: bundle, Dest: upgraded, CollectedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ListsConverted["v1 services"] != 1 || sum.ListsConverted["v1 persistentvolumeclaims"] != 1 {
		t.Errorf("lists converted at their own version: %v", sum.ListsConverted)
	}
	served := serveBundles(t, upgraded)
	for _, args := range [][]string{
		{"get", "services,persistentvolumeclaims", "-n", "default", "-l", "readpath=test", "-o", "wide"},
		{"get", "services,persistentvolumeclaims", "-n", "default", "-l", "readpath=test", "-o", "json"},
	} {
		live := runKubectl(t, kubectl, c.Kubeconfig, "", "", args...)
		snap := runKubectl(t, kubectl, served, "", "", args...)
		if live.code != 0 || snap.code != 0 {
			t.Fatalf("kubectl %v: live %d %s, served %d %s", args, live.code, live.stderr, snap.code, snap.stderr)
		}
		if d := cmp.Diff(withoutResourceVersions(live.stdout), withoutResourceVersions(snap.stdout)); d != "" {
			t.Errorf("kubectl %s: live (-) and served (+) differ:\n%s", strings.Join(args, " "), d)
		}
	}
	if !strings.Contains(runKubectl(t, kubectl, served, "", "", "get", "svc", "old-web", "-o", "wide").stdout, "10.96.0.50") {
		t.Error("the Service stored with clusterIP alone has no CLUSTER-IP")
	}
}

var resourceVersionRE = regexp.MustCompile(`(?m)^ *"resourceVersion": "[0-9]*",?\n`)

// withoutResourceVersions: etcd's revisions are not the bundle's.
func withoutResourceVersions(s string) string {
	return resourceVersionRE.ReplaceAllString(s, "")
}

func anyKubectl(t *testing.T) string {
	t.Helper()
	for _, v := range []string{"1.33", "1.32", "1.31", "1.30", "1.29", "1.28", "1.27"} {
		if bin := testenv.Kubectls(t)[v]; bin != "" {
			return bin
		}
	}
	testenv.Missing(t, "no kubectl client")
	return ""
}

// putEtcd stores value at key through etcd's JSON gateway, as an older
// kube-apiserver wrote it, below every check of today's API.
func putEtcd(t *testing.T, etcd, key, value string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"key": base64.StdEncoding.EncodeToString([]byte(key)), "value": base64.StdEncoding.EncodeToString([]byte(value))})
	resp, err := http.Post(etcd+"/v3/kv/put", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("etcd put %s: %s", key, resp.Status)
	}
}

func listOf(t *testing.T, kind string, items []json.RawMessage) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"kind": kind, "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "100"}, "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
