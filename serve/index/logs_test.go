package index

import (
	"io"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// TestLogsFromArchive reads logs of an archive from the spool, which has
// no name in the temporary folder while the bundle is served.
func TestLogsFromArchive(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	path := servetest.Small().WriteTarGz(t, t.TempDir(), "bundle.tar.gz")
	x := load(t, path)
	if x.logs.spool == nil {
		t.Fatal("no logs kept")
	}
	l, ok := x.ContainerLog("team-a", "web-3", "sidecar", false)
	if !ok || l.Rel != "cluster-resources/pods/logs/team-a/web-3/sidecar.log" || l.Error {
		t.Fatalf("log of team-a/web-3/sidecar: %+v %v", l, ok)
	}
	if data, err := io.ReadAll(l.Open()); err != nil || !strings.HasSuffix(string(data), "web-3 sidecar line 3\n") || strings.Count(string(data), "\n") != 3 {
		t.Errorf("log from archive: %q %v", data, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("in the temporary folder while served: %v", left)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLogLayouts maps logs of every layout to their pod and container,
// the canonical file first, each read back as the bundle holds it.
func TestLogLayouts(t *testing.T) {
	files := servetest.LogLayouts()
	files["host-collectors/run-host/journal.log"] = []byte("not a pod's\n")
	x := load(t, files.WriteTarGz(t, t.TempDir(), "bundle.tar.gz"))
	for _, tc := range []struct {
		ns, pod, container string
		previous           bool
		rel                string
		error              bool
	}{
		{"team-a", "job-x", "main", false, "jobs/job-x.log", false},
		{"team-a", "web-3", "app", false, "web/web-3/app.log", false},
		{"default", "web-2", "app", false, "cluster-resources/pods/logs/default/web-2/app.log", false},
		{"default", "web-1", "setup", false, "cluster-resources/pods/logs/default/web-1/setup.log", false},
		{"default", "web-1", "app", true, "cluster-resources/pods/logs/default/web-1/app-previous.log", false},
		{"kube-system", "coredns-abc", "coredns", false, "cluster-resources/pods/logs/kube-system/coredns-abc/coredns-logs-errors.log", true},
	} {
		l, ok := x.ContainerLog(tc.ns, tc.pod, tc.container, tc.previous)
		if !ok || l.Rel != tc.rel || l.Error != tc.error {
			t.Errorf("%s/%s/%s previous=%v: %+v %v, want %s", tc.ns, tc.pod, tc.container, tc.previous, l, ok, tc.rel)
			continue
		}
		want := files[tc.rel]
		if data, err := io.ReadAll(l.Open()); err != nil || string(data) != string(want) {
			t.Errorf("%s: %q %v, want %q", tc.rel, data, err, want)
		}
	}
}

// TestLogSpoolCompacted: files that turn out to be no pod's log (a host
// collector's journal) are dropped from the spool when they take most of
// it, so that serving costs the logs' bytes on disk, not the bundle's.
func TestLogSpoolCompacted(t *testing.T) {
	files := servetest.Small()
	journal := strings.Repeat("a line of the host's journal, no pod's\n", 1<<14)
	files["host-collectors/run-host/journal.log"] = []byte(journal)
	var logs int64
	for name, data := range files {
		if strings.HasSuffix(name, ".log") && !strings.Contains(name, "host-collectors") {
			logs += int64(len(data))
		}
	}
	x := load(t, files.WriteTarGz(t, t.TempDir(), "bundle.tar.gz"))
	fi, err := x.logs.spool.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != logs {
		t.Errorf("spool of %d bytes, want the %d bytes of the pods' logs", fi.Size(), logs)
	}
	l, ok := x.ContainerLog("team-a", "web-3", "sidecar", false)
	if data, err := io.ReadAll(l.Open()); !ok || err != nil || string(data) != string(files[path.Join(contract.ClusterResourcesDir, "pods/logs/team-a/web-3/sidecar.log")]) {
		t.Errorf("log after compaction: %q %v %v", data, ok, err)
	}
}
