package diff_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/peakrss"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/transform"
	"github.com/bundlectl/bundlectl/transform/diff"
)

// benchBundles writes two bundles of spec into dir, B collected an hour
// after A: the same cluster, every object's times moved (so every object
// but the events, whose names are new, changed), upgraded when upgrade
// says so.
func benchBundles(b *testing.B, dir string, spec contracttest.BundleSpec, upgrade bool) (string, string, contracttest.BundleStats) {
	b.Helper()
	var paths [2]string
	var stats contracttest.BundleStats
	for i := range paths {
		legacy := filepath.Join(dir, contracttest.BundleRoot(spec.CollectedAt)+".tar.gz")
		s, err := contracttest.WriteBundleFile(legacy, spec)
		if err != nil {
			b.Fatal(err)
		}
		stats, paths[i] = s, legacy
		if upgrade {
			paths[i] = filepath.Join(dir, "upgraded-"+filepath.Base(legacy))
			if _, err := transform.Upgrade(context.Background(), transform.Options{Source: legacy, Dest: paths[i]}); err != nil {
				b.Fatal(err)
			}
		}
		spec.CollectedAt = spec.CollectedAt.Add(time.Hour)
	}
	return paths[0], paths[1], stats
}

// BenchmarkDiff diffs two upgraded contracttest.Large bundles (10,000
// pods, 5,000 events, 123 MB of JSON each): a bundle with itself (the
// first passes only: nothing differs) and with the same cluster an hour
// later (every object differs: the detail passes decode, compare and
// report all of them). MB/s is of one bundle's uncompressed size.
func BenchmarkDiff(b *testing.B) {
	a, later, stats := benchBundles(b, b.TempDir(), contracttest.Large(), true)
	for _, bc := range []struct{ name, b string }{{"same", a}, {"hour-later", later}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(stats.UncompressedBytes)
			b.ReportAllocs()
			for range b.N {
				res, err := diff.Compare(context.Background(), diff.Options{A: a, B: bc.b, Log: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
				if err := res.WriteJSON(io.Discard); err != nil {
					b.Fatal(err)
				}
				res.Close()
				n := 0
				for _, k := range res.Kinds {
					n += k.Added + k.Removed + k.Replaced + k.Changed
				}
				b.ReportMetric(float64(n), "changes")
			}
		})
	}
}

// BenchmarkDiffPeakRSS measures the executable users run (BUNDLECTL_BIN,
// or one built for it, read from disk: peakrss.FromDisk) on two generated
// legacy bundles of one cluster, the second an hour later (every object
// but the events changed; the events, whose names are new, all added or
// removed): the peak RSS, each its own (package peakrss), of `bundlectl
// upgrade` of each, of `bundlectl diff -o json` of the two upgraded
// copies (the diff alone), and of the two legacy bundles (each upgraded
// on load, one after the other, then diffed). The target is a
// diff within the memory the upgrade needs for one. At 10,000 pods
// (contracttest.Large, 128 MB each uncompressed) it takes minutes, with 30,000
// and 100,000 (1.2 GB each) over 20, so it runs only with testenv.Long,
// and is not part of make bench-long: go test -bench DiffPeakRSS
// -benchtime 1x ./transform/diff.
func BenchmarkDiffPeakRSS(b *testing.B) {
	if !testenv.Long() {
		b.Skip("set " + testenv.LongEnv + "=1: generates, upgrades and diffs two bundles of 10,000 to 100,000 pods")
	}
	bundlectl := testenv.Bundlectl(b)
	launcher := testenv.Build(b, peakrss.Launcher)
	for _, size := range []struct{ pods, namespaces, events int }{{10000, 20, 5000}, {30000, 20, 15000}, {100000, 30, 20000}} {
		b.Run(fmt.Sprintf("pods=%d", size.pods), func(b *testing.B) {
			spec := contracttest.Large()
			spec.Pods, spec.Namespaces, spec.Events = size.pods, size.namespaces, size.events
			dir := b.TempDir()
			a, later, stats := benchBundles(b, dir, spec, false)
			if err := peakrss.FromDisk(bundlectl); err != nil {
				b.Fatal(err)
			}
			for range b.N {
				run := func(metric string, status int, args ...string) {
					b.Helper()
					start := time.Now()
					// Through sh, for the exit status (diff's 1: they differ);
					// the peak is the largest of the launcher's descendants'.
					script := `"$0" "$@" >/dev/null; test $? -eq ` + strconv.Itoa(status)
					peak, out, err := peakrss.Run(context.Background(), launcher, "sh", append([]string{"-c", script, bundlectl}, args...)...)
					if err != nil {
						b.Fatalf("bundlectl %s: %v\n%s", strings.Join(args, " "), err, out)
					}
					b.ReportMetric(float64(peak)/1e6, metric+"-peak-RSS-MB")
					b.ReportMetric(time.Since(start).Seconds(), metric+"-s")
				}
				upA, upB := filepath.Join(dir, "up-a.tar"), filepath.Join(dir, "up-b.tar")
				run("upgrade-A", 0, "upgrade", "--force", a, upA)
				run("upgrade-B", 0, "upgrade", "--force", later, upB)
				run("diff-upgraded", 1, "diff", "-o", "json", upA, upB)
				run("diff-legacy", 1, "diff", "-o", "json", a, later)
			}
			b.ReportMetric(float64(stats.LargestFile)/1e6, "largest-file-MB")
			b.ReportMetric(float64(stats.UncompressedBytes)/1e6, "bundle-MB")
		})
	}
}
