package diff_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
	"github.com/bundlectl/bundlectl/transform/diff"
)

const (
	baseline2025  = "troubleshoot-baseline-v0.123.14-2025-12/baseline.tar.gz"
	preflight2025 = "troubleshoot-preflight-v1beta2-v0.123.14-2025-12/baseline.tar.gz"
)

// Two CI runs of the same setup (two clusters made alike, 21 s apart):
// every object both hold is another object of the same name, so the
// diff is replaced objects and the objects whose names are generated
// (pods, events, the svclb DaemonSet), not noise and not changes.
func TestRealBundlesOfTwoClusters(t *testing.T) {
	corpus := contracttest.CorpusDir(t)
	rep := run(t, diff.Options{A: filepath.Join(corpus, baseline2025), B: filepath.Join(corpus, preflight2025), Log: io.Discard})
	got := map[string][3]int{}
	for _, k := range rep.Kinds {
		if k.Changed != 0 || k.NoiseOnly != 0 {
			t.Errorf("%s: %d changed and %d noise only, want none: the clusters share no object", k.Resource, k.Changed, k.NoiseOnly)
		}
		got[k.Resource] = [3]int{k.Added, k.Removed, k.Replaced}
	}
	for _, o := range rep.Objects {
		if o.Change == "replaced" && (o.UIDA == o.UIDB || o.UIDA == "" || o.UIDB == "") {
			t.Errorf("%s %s/%s replaced with uids %q and %q", o.Kind, o.Namespace, o.Name, o.UIDA, o.UIDB)
		}
		if o.RowA == nil && o.RowB == nil {
			t.Errorf("%s %s/%s has no table row", o.Kind, o.Namespace, o.Name)
		}
	}
	want := map[string][3]int{
		"addons.k3s.cattle.io": {0, 0, 13}, "clusterrolebindings.rbac.authorization.k8s.io": {0, 0, 57},
		"clusterroles.rbac.authorization.k8s.io": {0, 0, 72}, "configmaps": {0, 0, 11},
		"customresourcedefinitions.apiextensions.k8s.io": {0, 0, 23}, "daemonsets.apps": {1, 1, 0},
		"deployments.apps": {0, 0, 4}, "endpoints": {0, 0, 4}, "endpointslices.discovery.k8s.io": {3, 3, 1},
		"events": {96, 97, 0}, "helmcharts.helm.cattle.io": {0, 0, 2}, "ingressroutes.traefik.io": {0, 0, 1},
		"jobs.batch": {0, 0, 2}, "leases.coordination.k8s.io": {1, 1, 1}, "namespaces": {0, 0, 4},
		"nodes": {0, 0, 1}, "pods": {7, 7, 0}, "priorityclasses.scheduling.k8s.io": {0, 0, 2},
		"replicasets.apps": {0, 0, 4}, "rolebindings.rbac.authorization.k8s.io": {0, 0, 9},
		"roles.rbac.authorization.k8s.io": {0, 0, 7}, "serviceaccounts": {0, 0, 43}, "services": {0, 0, 4},
		"storageclasses.storage.k8s.io": {0, 0, 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("added, removed, replaced per resource (-want +got):\n%s", d)
	}
}

// A bundle and its upgraded copy hold the same objects (the upgrade
// copies every entry and adds tables, discovery and converted lists),
// and so does the bundle re-tarred with every file an hour newer, which
// moves its collection time and every age of its tables: no change, with
// the noise or without. The 2021 bundle's items have no kind or
// apiVersion; the 2025 one's do.
func TestBundleAndItsCopies(t *testing.T) {
	corpus := contracttest.CorpusDir(t)
	for _, rel := range []string{baseline2025, "troubleshoot-v0.10.10-2021-03/support-bundle-2021-03-24T00_39_51.tar.gz"} {
		t.Run(filepath.Base(filepath.Dir(rel)), func(t *testing.T) {
			src := filepath.Join(corpus, rel)
			dir := t.TempDir()
			upgraded := filepath.Join(dir, "upgraded.tar.gz")
			if _, err := transform.Upgrade(context.Background(), transform.Options{Source: src, Dest: upgraded}); err != nil {
				t.Fatal(err)
			}
			retarred := filepath.Join(dir, "retarred.tar")
			retar(t, src, retarred, time.Hour)
			for _, other := range []string{upgraded, retarred} {
				for _, all := range []bool{false, true} {
					rep := run(t, diff.Options{A: src, B: other, All: all, Logs: true, Log: io.Discard})
					if !rep.Equal || len(rep.Objects) != 0 || len(rep.Logs) != 0 {
						t.Errorf("%s, all=%t: %v and %d logs differ", filepath.Base(other), all, changes(rep), len(rep.Logs))
					}
					for _, k := range rep.Kinds {
						t.Errorf("%s, all=%t: %+v", filepath.Base(other), all, k)
					}
				}
			}
			if rep := run(t, diff.Options{A: upgraded, B: retarred, Log: io.Discard}); rep.A.CollectedAt.Add(time.Hour) != rep.B.CollectedAt {
				t.Errorf("the re-tarred copy was collected at %s, the upgraded one at %s: the re-tar moved no time", rep.B.CollectedAt, rep.A.CollectedAt)
			}
		})
	}
}

// retar copies the .tar.gz src into the plain tar dest, every entry
// moved by shift.
func retar(t *testing.T, src, dest string, shift time.Duration) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	tr, tw := tar.NewReader(zr), tar.NewWriter(out)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		hdr.ModTime = hdr.ModTime.Add(shift)
		hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}
