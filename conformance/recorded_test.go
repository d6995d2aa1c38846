package conformance

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/semver"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// Gate A without a live server: each supported minor's kube-apiserver,
// recorded by `make record-live` (TestRecordLive) into
// testdata/live/<minor>/, served Tables for the fixtures; the upgrade of
// the same objects must synthesize them, cell by cell.

// liveDir holds one folder per recorded minor.
var liveDir = filepath.Join("..", "testdata", "live")

const (
	recordingBundle = "bundle.tar.gz"  // the collected bundle, objects and the server's Tables
	recordingMeta   = "recording.json" // a recording
)

// recording describes one minor's recording.
type recording struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	// AgeSlack is how far a server age may be ahead of the synthesized
	// one: the gate's window for that collection (Run's ageSlack).
	AgeSlack   string    `json:"ageSlack"`
	RecordedAt time.Time `json:"recordedAt"`
}

// pendingMinors are the recorded minors whose tables the upgrade renders
// for their release but not yet exactly as their live server did (issue
// 14): each says what is left. Their comparison is skipped, and fails once
// it would pass, so that the list only shrinks.
var pendingMinors = map[string]string{}

func TestRecordedLiveTables(t *testing.T) {
	metas, err := filepath.Glob(filepath.Join(liveDir, "1.*", recordingMeta))
	if err != nil {
		t.Fatal(err)
	}
	minors := map[string]bool{}
	for _, m := range metas {
		minors[filepath.Base(filepath.Dir(m))] = true
	}
	if !minors[contract.PinnedMinor] {
		t.Fatalf("no recording of the pinned minor %s in %s: run `make record-live MINORS=%s`", contract.PinnedMinor, liveDir, contract.PinnedMinor)
	}
	baseline, err := LoadBaseline("")
	if err != nil {
		t.Fatal(err)
	}
	for _, meta := range metas {
		minor := filepath.Base(filepath.Dir(meta))
		t.Run(minor, func(t *testing.T) {
			cases, rec, renderedFor := replayRecording(t, meta, nil)
			if renderedFor != minor {
				if minor == contract.PinnedMinor {
					t.Fatalf("the upgrade rendered the pinned minor's recording for %s", renderedFor)
				}
				// Before the upgrade renders per minor it renders every
				// bundle for the pin: a comparison would show the
				// difference between two releases, not a fault.
				t.Skipf("the upgrade renders this %s bundle (%s) for Kubernetes %s", minor, rec.KubernetesVersion, renderedFor)
			}
			if len(cases) < 50 {
				t.Errorf("%d tables recorded, want the fixtures' (50 or more)", len(cases))
			}
			baseline.Apply(cases, true, LiveCluster{Minor: minor})
			var failed []string
			for _, c := range cases {
				if c.Failed() {
					failed = append(failed, c.Case.ID)
				}
			}
			if reason, ok := pendingMinors[minor]; ok {
				if len(failed) == 0 {
					t.Errorf("every table of %s is identical: take it off pendingMinors", minor)
				}
				t.Skipf("%d of %d tables differ, known: %s", len(failed), len(cases), reason)
			}
			for _, c := range cases {
				if c.Failed() {
					for _, d := range c.Divergences {
						t.Errorf("%s (-server +synthesized):\n%s", c.Case.ID, d.Diff)
					}
				}
			}
		})
	}
}

// A column the upgrade would print that the server did not fails the
// comparison, on that table only.
func TestRecordedLiveTablesCatchAColumn(t *testing.T) {
	meta := filepath.Join(liveDir, contract.PinnedMinor, recordingMeta)
	const table = "serviceaccounts"
	var dropped string
	cases, _, _ := replayRecording(t, meta, func(collected string) error {
		files, err := filepath.Glob(filepath.Join(collected, "*", contract.ClusterResourcesDir, table, "*"+contract.TableSuffix))
		if err != nil || len(files) == 0 {
			return fmt.Errorf("no %s table in the recording (%v)", table, err)
		}
		// The server's table loses its last column: the recording of a
		// release without it.
		data, err := os.ReadFile(files[0])
		if err != nil {
			return err
		}
		var tbl map[string]any
		if err := json.Unmarshal(data, &tbl); err != nil {
			return err
		}
		cols := tbl["columnDefinitions"].([]any)
		dropped = cols[len(cols)-1].(map[string]any)["name"].(string)
		tbl["columnDefinitions"] = cols[:len(cols)-1]
		for _, row := range tbl["rows"].([]any) {
			row := row.(map[string]any)
			cells := row["cells"].([]any)
			row["cells"] = cells[:len(cells)-1]
		}
		if data, err = json.Marshal(tbl); err != nil {
			return err
		}
		return os.WriteFile(files[0], data, 0o644)
	})
	var failed []string
	for _, c := range cases {
		if c.Failed() {
			failed = append(failed, c.Case.ID)
			if !strings.Contains(c.Divergences[0].Diff, dropped) {
				t.Errorf("%s: the diff does not name the column %s:\n%s", c.Case.ID, dropped, c.Divergences[0].Diff)
			}
		}
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], tableCheck+"/"+table+"/") {
		t.Errorf("failed %v, want the one %s table whose %s column was dropped", failed, table, dropped)
	}
}

// replayRecording runs Gate A on a recording: the bundle collected from
// the server, with mutate applied to it first when not nil.
func replayRecording(t *testing.T, meta string, mutate func(collected string) error) ([]*CaseResult, recording, string) {
	t.Helper()
	minor := filepath.Base(filepath.Dir(meta))
	var rec recording
	data, err := os.ReadFile(meta)
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil {
		t.Fatalf("%s: %v", meta, err)
	}
	if got := strings.TrimPrefix(semver.MajorMinor(rec.KubernetesVersion), "v"); got != minor {
		t.Fatalf("%s: recorded from Kubernetes %s, in the folder of %s", meta, rec.KubernetesVersion, minor)
	}
	slack, err := time.ParseDuration(rec.AgeSlack)
	if err != nil {
		t.Fatalf("%s: ageSlack: %v", meta, err)
	}
	checks, err := LoadChecks(nil)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	collected := filepath.Join(work, "collected")
	if err := untarGz(filepath.Join(filepath.Dir(meta), recordingBundle), collected); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		if err := mutate(collected); err != nil {
			t.Fatal(err)
		}
	}
	ta, err := runTableGate(context.Background(), tableGateOptions{collected: collected, workDir: work, ageSlack: slack, resources: checks.Resources})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ta.Upgrade.Problems {
		t.Errorf("upgrade problem: %s: %s", p.Path, p.Message)
	}
	cases := make([]*CaseResult, len(ta.Cases))
	for i := range ta.Cases {
		cases[i] = &ta.Cases[i]
	}
	return cases, rec, ta.Upgrade.RenderedFor
}

// TestRecordLive records one minor's live Tables: testenv.RecordLiveEnv
// names it (1.31), and its kube-apiserver must be built (make
// record-live builds it). It runs the gate's fixtures and collection
// against the live server (Gate B runs no case) and writes the bundle it
// collected to testdata/live/<minor>/.
func TestRecordLive(t *testing.T) {
	minor := os.Getenv(testenv.RecordLiveEnv)
	if minor == "" {
		t.Skip(testenv.RecordLiveEnv + " names the minor to record (make record-live)")
	}
	rel, err := localapiserver.LookupRelease(minor)
	if err != nil {
		t.Fatal(err)
	}
	binDir := localtest.RequireRelease(t, rel.Version)
	work := t.TempDir()
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := Run(ctx, Options{
		Provider: localapiserver.New(localapiserver.Options{KubeVersion: rel.Version, BinDir: binDir, NoBuild: true}),
		Kubectl:  testenv.LookPath(t, "kubectl"),
		Run:      nothing,
		WorkDir:  work,
		Log:      &log,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if res.KubernetesVersion != rel.Version || len(res.Tables) == 0 {
		t.Fatalf("collected %d tables from Kubernetes %s, want %s:\n%s", len(res.Tables), res.KubernetesVersion, rel.Version, report(res))
	}
	slack := time.Second
	if !res.Collect.TablesSameSecond {
		slack += time.Duration(res.Collect.Seconds * float64(time.Second))
	}
	dir := filepath.Join(liveDir, rel.MinorString())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tarGz(filepath.Join(work, "bundle"), filepath.Join(dir, recordingBundle)); err != nil {
		t.Fatal(err)
	}
	meta, err := json.MarshalIndent(recording{KubernetesVersion: res.KubernetesVersion, AgeSlack: slack.String(), RecordedAt: res.CollectedAt.UTC()}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, recordingMeta), append(meta, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, failed := totals(res.Tables)
	t.Logf("recorded %d tables of Kubernetes %s in %s; Gate A on them: %d failed (tables rendered for %s)",
		len(res.Tables), res.KubernetesVersion, dir, failed, res.TablesMinor)
}

// nothing matches no Gate B case: a recording needs Gate A's collection only.
var nothing = regexp.MustCompile(`^$`)

// tarGz writes the folder src as a gzipped tar, in name order, with no
// owner or time, so that a recording's bytes depend on its content only.
// The contract's cluster-resources/_meta (discovery and OpenAPI documents,
// most of a bundle's bytes) is left out: Gate A strips it anyway.
func tarGz(src, dest string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(dest), ".recording-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	var paths []string
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "_meta" && filepath.Base(filepath.Dir(p)) == contract.ClusterResourcesDir {
			return filepath.SkipDir
		}
		if p != src {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Typeflag: tar.TypeReg, Size: fi.Size()}
		switch {
		case fi.IsDir():
			h.Name, h.Mode, h.Typeflag, h.Size = h.Name+"/", 0o755, tar.TypeDir, 0
		case !fi.Mode().IsRegular():
			return fmt.Errorf("%s: not a file or folder", p)
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, in)
			in.Close()
			if err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), dest)
}

// untarGz unpacks a recording into dest.
func untarGz(src, dest string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: %q leaves the folder", src, h.Name)
		}
		p := filepath.Join(dest, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", src, h.Name, err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: %s is not a file or folder", src, h.Name)
		}
	}
}
