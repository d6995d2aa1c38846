package diff_test

import (
	"context"
	"io"
	"path/filepath"
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

// BenchmarkDiffPeakRSS runs `bundlectl diff` (BUNDLECTL_BIN, or one built
// for it) on two legacy bundles of about 1 GB of JSON each, the size of
// BenchmarkUpgradePeakRSS's, the second an hour later, and reports its
// peak RSS as its own (package peakrss): the target is the memory
// the upgrade needs for one (each side is upgraded on load, one after
// the other, then diffed). It takes many minutes (its one run, on a loaded
// machine, did not end in 27), so it runs only with testenv.Long, and is
// not part of make bench-long: go test -bench DiffPeakRSS ./transform/diff.
func BenchmarkDiffPeakRSS(b *testing.B) {
	if !testenv.Long() {
		b.Skip("set " + testenv.LongEnv + "=1: generates and diffs two 1 GB bundles")
	}
	bundlectl := testenv.Bundlectl(b)
	spec := contracttest.Large()
	spec.Pods, spec.Namespaces, spec.Events = 90000, 30, 20000
	a, later, stats := benchBundles(b, b.TempDir(), spec, false)
	launcher := testenv.Build(b, peakrss.Launcher)
	if err := peakrss.FromDisk(bundlectl); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		start := time.Now()
		// Through sh, as exit status 1 (they differ) is the expected one;
		// the peak is the largest of the launcher's descendants'.
		script := `"$0" diff -o json "$1" "$2" >/dev/null; test $? -eq 1`
		peak, out, err := peakrss.Run(context.Background(), launcher, "sh", "-c", script, bundlectl, a, later)
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s")
		b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
		b.ReportMetric(float64(stats.LargestFile)/1e6, "largest-file-MB")
		b.ReportMetric(float64(stats.UncompressedBytes)/1e6, "bundle-MB")
	}
}
