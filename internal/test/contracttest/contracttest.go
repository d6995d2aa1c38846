// Package contracttest holds test helpers shared by bundlectl's packages:
// where the corpus of real support bundles lives, and builders for small
// (and hostile) bundle archives.
package contracttest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// RepoRoot finds the module root by walking up to go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// CorpusDir is the folder of real troubleshoot bundles: $BUNDLECTL_CORPUS,
// else ../shared/bundles beside the repository. Without it, see
// testenv.Missing.
func CorpusDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(testenv.CorpusEnv)
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared", "bundles")
	}
	if _, err := os.Stat(filepath.Join(dir, "SOURCES.md")); err != nil {
		testenv.Missing(t, "the bundle corpus is missing at %s (set "+testenv.CorpusEnv+"): %v", dir, err)
	}
	return dir
}

// RealBundle is one bundle of the corpus with what it really holds,
// counted independently of bundlectl (by a script reading the files).
type RealBundle struct {
	Name              string // test name
	Path              string // relative to CorpusDir
	KubernetesVersion string
	Counts            map[string]int // pods, events, deployments, replicasets, nodes, namespaces, crds, crs
	// CollectedAt is when it was collected, as bundlectl finds it
	// (contract.Bundle.CollectedAt), and TimeSource what told it; both
	// checked by hand against the bundle's names, file and object times.
	CollectedAt, TimeSource string
}

// RealBundles lists the bundles of ../shared/bundles (SOURCES.md).
var RealBundles = []RealBundle{
	{"v0.10.10-2021", "troubleshoot-v0.10.10-2021-03/support-bundle-2021-03-24T00_39_51.tar.gz", "v1.20.2+k3s1",
		map[string]int{"pods": 47, "events": 379, "deployments": 23, "replicasets": 0, "nodes": 1, "namespaces": 11, "crds": 17, "crs": 0},
		"2021-03-24T00:39:51Z", "bundle folder name"},
	{"v0.50.0-2022", "troubleshoot-testdata-v0.50.0-2022-12/support-bundle.tar.gz", "v1.24.4+k3s1",
		map[string]int{"pods": 8, "events": 5, "deployments": 5, "replicasets": 6, "nodes": 1, "namespaces": 4, "crds": 12, "crs": 15},
		"2022-12-21T16:44:51Z", "newest file time under cluster-resources"},
	// The fixture's ConfigMaps were added in 2024 from another cluster:
	// the newest object is of then, and no time before it can be taken.
	{"sbctl-2022", "sbctl-tests-2022-04/support-bundle", "v1.23.5",
		map[string]int{"pods": 58, "events": 67, "deployments": 12, "replicasets": 13, "nodes": 3, "namespaces": 9, "crds": 32, "crs": 64},
		"2024-02-17T06:16:47Z", "newest object time"},
	// Named at UTC-07:00; its lease was renewed 40 s after the name's time.
	{"v0.123.0-alpha.9-2025", "troubleshoot-baseline-v0.123.0-alpha.9-2025-10/baseline.tar.gz", "v1.33.4+k3s1",
		map[string]int{"pods": 7, "events": 104, "deployments": 4, "replicasets": 4, "nodes": 1, "namespaces": 4, "crds": 30, "crs": 15},
		"2025-10-06T23:18:36Z", "newest object time"},
	{"v0.123.14-2025", "troubleshoot-baseline-v0.123.14-2025-12/baseline.tar.gz", "v1.31.2+k3s1",
		map[string]int{"pods": 7, "events": 97, "deployments": 4, "replicasets": 4, "nodes": 1, "namespaces": 4, "crds": 23, "crs": 16},
		"2025-12-10T17:27:11Z", "newest file time under cluster-resources"},
	{"preflight-v0.123.14-2025", "troubleshoot-preflight-v1beta2-v0.123.14-2025-12/baseline.tar.gz", "v1.31.2+k3s1",
		map[string]int{"pods": 7, "events": 96, "deployments": 4, "replicasets": 4, "nodes": 1, "namespaces": 4, "crds": 23, "crs": 16},
		"2025-12-10T17:26:50Z", "bundle folder name"},
	// Named at UTC-05:00, and re-tarred from a git checkout (every file
	// time is the re-tar's).
	{"k3s-pr1852-2025", "ts-pr1852-k3s-2025-09/support-bundle-2025-09-11T15_54_39.tar.gz", "v1.33.4+k3s1",
		map[string]int{"pods": 13, "events": 196, "deployments": 7, "replicasets": 7, "nodes": 1, "namespaces": 4, "crds": 30, "crs": 15},
		"2025-09-11T20:55:09Z", "newest object time"},
	// Extracted and re-tarred on macOS: AppleDouble ._ files beside every
	// entry, dated with the re-tar (2025-12-09), as are the folders.
	{"macos-repack-2025", "ts-baseline-macos-repack-2025-12/baseline.tar.gz", "v1.31.2+k3s1",
		map[string]int{"pods": 7, "events": 97, "deployments": 4, "replicasets": 4, "nodes": 1, "namespaces": 4, "crds": 23, "crs": 16},
		"2025-11-27T05:41:38Z", "newest file time under cluster-resources"},
}

// HostOnlyBundle is the corpus's bundle of host collectors only
// (embedded-cluster, k0s): no cluster-resources/ at all.
var HostOnlyBundle = RealBundle{Name: "ec-host-k0s-2025", Path: "ec-host-k0s-2025-05/support-bundle-host-0.tar.gz",
	CollectedAt: "2025-05-15T15:44:09Z", TimeSource: "newest file time of the archive"}

// File is one entry of a test archive. Typeflag defaults to a regular file.
type File struct {
	Name     string
	Body     string
	Typeflag byte
	Linkname string
	Mode     int64
	Size     int64 // overrides len(Body) in the header (for lying headers)
}

// Epoch is the mtime of test entries, so archives are reproducible.
var Epoch = time.Date(2025, 10, 6, 16, 17, 57, 0, time.UTC)

// Tar builds an uncompressed tar of files.
func Tar(t testing.TB, files []File) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Typeflag: f.Typeflag, Linkname: f.Linkname, Mode: f.Mode, ModTime: Epoch, Format: tar.FormatPAX}
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Mode == 0 {
			hdr.Mode = 0o600
		}
		if hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(f.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("tar header %q: %v", f.Name, err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(f.Body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Gzip compresses data.
func Gzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WriteTarGz writes files as a .tar.gz in dir and returns its path.
func WriteTarGz(t testing.TB, dir, name string, files []File) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, Gzip(t, Tar(t, files)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
