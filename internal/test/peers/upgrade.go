package peers

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/peakrss"
)

// measureUpgrade times `bundlectl upgrade` against a gzip round trip of
// the same archive in process (compress/gzip, default level, as
// BenchmarkUpgrade) and against gzip(1), in turn, and keeps the
// upgrade's peak RSS, the untimed first run's too.
func (r *runner) measureUpgrade(ctx context.Context, in, out string) error {
	var up, goGzip, cliGzip, rss []float64
	upgrade := func() (time.Duration, error) {
		start := time.Now()
		peak, b, err := peakrss.Run(ctx, r.o.PeakRSS, r.o.Bundlectl, "upgrade", "--force", in, out)
		if err != nil {
			return 0, fmt.Errorf("bundlectl upgrade: %w\n%s", err, b)
		}
		rss = append(rss, float64(peak)/1e6)
		return time.Since(start), nil
	}
	// The executable as read from disk, not as the linker left it in the
	// page cache (peakrss.FromDisk); the first run, which reads it, is
	// not timed.
	if err := peakrss.FromDisk(r.o.Bundlectl); err != nil {
		return err
	}
	if _, err := upgrade(); err != nil {
		return err
	}
	measures := []func() error{
		func() error {
			d, err := upgrade()
			up = append(up, d.Seconds())
			return err
		},
		func() error {
			s, err := timed(func() error { return gzipRoundTrip(in) })
			goGzip = append(goGzip, s)
			return err
		},
		func() error {
			s, err := timed(func() error { return gzipCLIRoundTrip(ctx, in) })
			cliGzip = append(cliGzip, s)
			return err
		},
	}
	for i := range r.o.UpgradeReps {
		for j := range measures {
			// A rotation, so that each comes first in turn.
			if err := measures[(i+j)%len(measures)](); err != nil {
				return err
			}
		}
	}
	upgradeTarget := Target{MinRatio: 0.6, Text: "ratio ≥ 0.6 (upgrade at least 60% of a gzip round trip's speed, issue #20)"}
	r.rep.Figures = append(r.rep.Figures,
		Figure{Name: "upgrade-s", What: "`bundlectl upgrade` of the archive, against a decompress-and-recompress of it with compress/gzip (default level) in process",
			Peer: "gzip round trip", Bundlectl: median(up), PeerValue: median(goGzip), BundlectlSamples: up, PeerSamples: goGzip, Target: upgradeTarget},
		Figure{Name: "upgrade-vs-gzip-cli-s", What: "the same upgrade, against `gzip -dc | gzip -c` (gzip(1), level 6)",
			Peer: "gzip(1)", Bundlectl: median(up), PeerValue: median(cliGzip), BundlectlSamples: up, PeerSamples: cliGzip},
		Figure{Name: "upgrade-peak-rss-MB", What: "the upgrade's peak RSS",
			Bundlectl: maxOf(rss), BundlectlSamples: rss,
			Target: Target{MaxValue: 100 + float64(r.rep.Bundle.LargestFile)/1e6, Text: "≤ 100 MB + the largest file (`make bench-long`'s target)"}},
	)
	return nil
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// gzipRoundTrip decompresses the archive and compresses it again at the
// default level, as BenchmarkUpgrade does.
func gzipRoundTrip(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(io.Discard)
	if _, err := io.Copy(zw, zr); err != nil {
		return err
	}
	return zw.Close()
}

// gzipCLIRoundTrip is `gzip -dc path | gzip -c > /dev/null`.
func gzipCLIRoundTrip(ctx context.Context, path string) error {
	d := exec.CommandContext(ctx, "gzip", "-dc", path)
	c := exec.CommandContext(ctx, "gzip", "-c")
	pipe, err := d.StdoutPipe()
	if err != nil {
		return err
	}
	c.Stdin = pipe
	if err := d.Start(); err != nil {
		return err
	}
	if err := c.Run(); err != nil {
		d.Wait()
		return fmt.Errorf("gzip -c: %w", err)
	}
	if err := d.Wait(); err != nil {
		return fmt.Errorf("gzip -dc: %w", err)
	}
	return nil
}
