package index

import (
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/servetest"
)

// TestLogsFromArchive checks that logs are extracted from an archive at
// load and removed when the index is closed.
func TestLogsFromArchive(t *testing.T) {
	path := servetest.Small().WriteTarGz(t, t.TempDir(), "bundle.tar.gz")
	x := load(t, path)
	if x.logs.dir == "" {
		t.Fatal("no logs extracted")
	}
	l, ok := x.ContainerLog("team-a", "web-3", "sidecar", false)
	if !ok || l.Rel != "cluster-resources/pods/logs/team-a/web-3/sidecar.log" || l.Error {
		t.Fatalf("log of team-a/web-3/sidecar: %+v %v", l, ok)
	}
	if data, err := os.ReadFile(l.File); err != nil || !strings.HasSuffix(string(data), "web-3 sidecar line 3\n") {
		t.Errorf("log from archive: %q %v", data, err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(x.logs.dir); !os.IsNotExist(err) {
		t.Errorf("extracted logs remain: %v", err)
	}
}

// TestLogLayouts maps logs of every layout to their pod and container,
// the canonical file first, and keeps on disk only the copies of logs.
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
		if _, err := os.Stat(l.File); err != nil {
			t.Errorf("%s: %v", tc.rel, err)
		}
	}
	copies, err := os.ReadDir(x.logs.dir)
	if err != nil {
		t.Fatal(err)
	}
	// 5 logs of Small, setup, job-x, web-3 and coredns's record: not the
	// legacy copy of web-2's log, nor the host collector's.
	if len(copies) != 9 {
		t.Errorf("%d copies on disk, want 9", len(copies))
	}
}
