package transform_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// serve upgrades a legacy bundle on load into a private tar in the
// folder it gives, which the cleanup removes, says at what time the ages
// are, and returns what it could not table.
func TestUpgradeOnLoad(t *testing.T) {
	src := contracttest.WriteTarGz(t, t.TempDir(), "old.tar.gz", []contracttest.File{
		{Name: "sb/cluster-resources/pods/default.json", Body: `{"kind":"PodList","items":[` + dupPod("a") + `]}`},
		{Name: "sb/cluster-resources/pods/broken.json", Body: `{"items":[`},
	})
	b, err := contract.Open(src, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var log bytes.Buffer
	at := time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)
	runDir := t.TempDir()
	path, problems, cleanup, err := transform.UpgradeOnLoad(at, "", &log)(context.Background(), b, runDir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(filepath.Dir(path)) != runDir {
		t.Errorf("upgraded into %s, want a private file in %s: %v %v", path, runDir, fi.Mode(), err)
	}
	upgraded, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	upgraded.Close()
	if upgraded.DiscoveryJSON == nil || !upgraded.Names["cluster-resources/pods/default.table.json"] {
		t.Errorf("%s has no discovery or no table", path)
	}
	if want := "Upgraded " + src + " on load: 1 tables synthesized for Kubernetes 1.37 as of 2025-11-20T10:00:00Z (from --collected-at)\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	// Returned, for serve to print with what loading the copy finds.
	if !slices.ContainsFunc(problems, func(p contract.Problem) bool {
		return p.Path == "cluster-resources/pods/broken.json" && strings.HasPrefix(p.Message, "no table: invalid JSON")
	}) {
		t.Errorf("problems: %+v, none of broken.json", problems)
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the upgraded bundle's folder is still there: %v", err)
	}
}
