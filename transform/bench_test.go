package transform_test

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/peakrss"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
	"github.com/bundlectl/bundlectl/transform"
)

// The upgrade's speed is measured against what any tool must at least do
// with a bundle archive: decompress it and compress it again. Both run in
// the same benchmark, alternately, so that machine noise hits both.

var (
	largeOnce  sync.Once
	largePath  string
	largeStats contracttest.BundleStats
	largeErr   error
)

// largeBundle is the generated benchmark bundle: 10,000 realistic pods,
// 5,000 events, 500 deployments and replica sets, 50 nodes.
func largeBundle(b *testing.B) (string, contracttest.BundleStats) {
	b.Helper()
	largeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bundlectl-bench-")
		if err != nil {
			largeErr = err
			return
		}
		largePath = filepath.Join(dir, contracttest.BundleRoot(contracttest.GeneratedAt)+".tar.gz")
		largeStats, largeErr = contracttest.WriteBundleFile(largePath, contracttest.Large())
	})
	if largeErr != nil {
		b.Fatal(largeErr)
	}
	return largePath, largeStats
}

// gzipRoundTrip decompresses the archive and compresses it again at the
// default level, as the upgrade writes it.
func gzipRoundTrip(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(io.Discard)
	if _, err := io.Copy(zw, zr); err != nil {
		return err
	}
	return zw.Close()
}

// BenchmarkUpgrade reports the upgrade's throughput in MB/s of
// uncompressed input and, as "ratio", its speed relative to a plain gzip
// round trip of the same archive (the target is at least 0.6, issue #20).
func BenchmarkUpgrade(b *testing.B) {
	in, stats := largeBundle(b)
	out := filepath.Join(b.TempDir(), "upgraded.tar.gz")
	var upgradeTime, gzipTime time.Duration
	b.SetBytes(stats.UncompressedBytes)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		start := time.Now()
		if err := gzipRoundTrip(in); err != nil {
			b.Fatal(err)
		}
		gzipTime += time.Since(start)
		b.StartTimer()
		start = time.Now()
		if _, err := transform.Upgrade(context.Background(), transform.Options{Source: in, Dest: out, Force: true}); err != nil {
			b.Fatal(err)
		}
		upgradeTime += time.Since(start)
	}
	mb := float64(stats.UncompressedBytes) / 1e6 * float64(b.N)
	b.ReportMetric(mb/upgradeTime.Seconds(), "upgrade-MB/s")
	b.ReportMetric(mb/gzipTime.Seconds(), "gzip-roundtrip-MB/s")
	b.ReportMetric(gzipTime.Seconds()/upgradeTime.Seconds(), "ratio")
}

// BenchmarkUpgradePeakRSS upgrades a generated bundle of about 1 GB of
// JSON with `bundlectl upgrade`, the executable users run (BUNDLECTL_BIN
// or one built for it, read from disk: peakrss.FromDisk), and reports its
// peak RSS, measured as its own (package peakrss), next to the largest
// single file (the target: under 100 MB plus that file). It takes minutes, so it runs only with
// testenv.Long (make bench-long).
func BenchmarkUpgradePeakRSS(b *testing.B) {
	if !testenv.Long() {
		b.Skip("set " + testenv.LongEnv + "=1 (make bench-long): generates and upgrades a 1 GB bundle")
	}
	bundlectl := testenv.Bundlectl(b)
	dir := b.TempDir()
	in := filepath.Join(dir, contracttest.BundleRoot(contracttest.GeneratedAt)+".tar.gz")
	spec := contracttest.Large()
	spec.Pods, spec.Namespaces, spec.Events = 90000, 30, 20000
	stats, err := contracttest.WriteBundleFile(in, spec)
	if err != nil {
		b.Fatal(err)
	}
	launcher := testenv.Build(b, peakrss.Launcher)
	if err := peakrss.FromDisk(bundlectl); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		peak, out, err := peakrss.Run(context.Background(), launcher, bundlectl, "upgrade", "--force", in, filepath.Join(dir, "out.tar.gz"))
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		rss := float64(peak) / 1e6
		b.ReportMetric(rss, "peak-RSS-MB")
		b.ReportMetric(float64(stats.LargestFile)/1e6, "largest-file-MB")
		b.ReportMetric(float64(stats.UncompressedBytes)/1e6, "bundle-MB")
		b.ReportMetric(rss-float64(stats.LargestFile)/1e6, "RSS-above-largest-MB")
	}
}
