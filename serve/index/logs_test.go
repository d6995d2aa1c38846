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
	p, ok := x.LogFile("team-a", "web-3", "sidecar", false)
	if !ok {
		t.Fatal("no log of team-a/web-3/sidecar")
	}
	if data, err := os.ReadFile(p); err != nil || !strings.HasSuffix(string(data), "web-3 sidecar line 3\n") {
		t.Errorf("log from archive: %q %v", data, err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(x.logs.dir); !os.IsNotExist(err) {
		t.Errorf("extracted logs remain: %v", err)
	}
}
