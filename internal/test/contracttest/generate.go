package contracttest

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// BundleSpec describes a generated legacy support bundle: how many objects
// of each kind, when it was collected, and the seed that makes it
// reproducible. The same spec always gives the same bytes.
type BundleSpec struct {
	Pods, Namespaces, Deployments, Nodes, Events int
	// LogBytesPerPod is the size of each container log collected for an
	// unhealthy pod (troubleshoot collects logs of unhealthy pods only);
	// 0 writes no logs.
	LogBytesPerPod int
	// CollectedAt names the bundle folder and is the mtime of every entry;
	// every timestamp inside the bundle is before it.
	CollectedAt time.Time
	Seed        int64
}

// GeneratedAt is the default collection time of generated bundles.
var GeneratedAt = time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)

// Large is the benchmark bundle: 10,000 pods over 20 namespaces, 500
// Deployments (each with its ReplicaSet and Service), 50 nodes and 5,000
// events.
func Large() BundleSpec {
	return BundleSpec{Pods: 10000, Namespaces: 20, Deployments: 500, Nodes: 50, Events: 5000,
		LogBytesPerPod: 2048, CollectedAt: GeneratedAt, Seed: 1}
}

// Small is the same cluster shape at 200 pods, for tests.
func Small() BundleSpec {
	return BundleSpec{Pods: 200, Namespaces: 4, Deployments: 16, Nodes: 8, Events: 150,
		LogBytesPerPod: 512, CollectedAt: GeneratedAt, Seed: 1}
}

// BundleStats is what WriteBundle wrote.
type BundleStats struct {
	// Objects counts the objects written per kind (Pod, Deployment, ...).
	Objects map[string]int
	// PodStates counts pods per state as kubectl's STATUS column names it
	// (Running, CrashLoopBackOff, Pending, ContainerCreating,
	// ImagePullBackOff, Completed, Evicted).
	PodStates map[string]int
	// Entries is the number of files in the archive.
	Entries int
	// ResourceBytes is the uncompressed size of the JSON files under
	// cluster-resources/ (lists and discovery; logs excluded).
	ResourceBytes int64
	// PodListBytes is the part of ResourceBytes in pods/<ns>.json.
	PodListBytes int64
	// Logs and LogBytes count the pod log files.
	Logs     int
	LogBytes int64
	// UncompressedBytes is the content of every entry; ArchiveBytes is
	// the .tar.gz as written.
	UncompressedBytes int64
	ArchiveBytes      int64
	// LargestFile is the size of the largest entry.
	LargestFile int64
}

// TroubleshootVersion is the version.yaml of generated bundles: the first
// v0.123 release that writes ReplicaSets to replicasets/ again.
const TroubleshootVersion = "v0.123.16"

// GeneratedKubernetesVersion is the cluster version generated bundles claim.
const GeneratedKubernetesVersion = "v1.35.4"

// BundleRoot is the top folder of a bundle collected at t.
func BundleRoot(t time.Time) string {
	return "support-bundle-" + t.UTC().Format("2006-01-02T15_04_05")
}

// WriteBundleFile writes the bundle of spec to path; on error nothing is left.
func WriteBundleFile(path string, spec BundleSpec) (BundleStats, error) {
	f, err := os.Create(path)
	if err != nil {
		return BundleStats{}, err
	}
	stats, err := WriteBundle(f, spec)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return BundleStats{}, err
	}
	return stats, nil
}

// WriteBundle writes a legacy support bundle as troubleshoot v0.123 lays it
// out: a .tar.gz of typed lists, one file at a time. Memory holds the plan
// of the cluster (a few hundred bytes per Deployment and namespace), the
// logs of one namespace, and at most 64 MB of the file being written: a
// larger file goes through a temporary file, since a tar header needs
// the entry's size first. The bytes depend on the spec only.
func WriteBundle(w io.Writer, spec BundleSpec) (BundleStats, error) {
	if err := spec.check(); err != nil {
		return BundleStats{}, err
	}
	g := newGenerator(spec)
	// Compression runs beside generation: the tar stream goes through a
	// pipe to a goroutine that gzips it.
	cw := &countingWriter{w: w}
	pr, pw := io.Pipe()
	zipped := make(chan error, 1)
	go func() {
		zw, _ := gzip.NewWriterLevel(cw, gzip.DefaultCompression)
		_, err := io.Copy(zw, pr)
		if err == nil {
			err = zw.Close()
		}
		pr.CloseWithError(err)
		zipped <- err
	}()
	bw := bufio.NewWriterSize(pw, 1<<20)
	aw := &archiveWriter{tw: tar.NewWriter(bw), root: g.root, mtime: g.at,
		stats: BundleStats{Objects: map[string]int{}, PodStates: map[string]int{}}}
	err := g.write(aw)
	if err == nil {
		err = aw.tw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	pw.CloseWithError(err)
	if zerr := <-zipped; err == nil {
		err = zerr
	}
	if err != nil {
		return BundleStats{}, err
	}
	aw.stats.ArchiveBytes = cw.n
	return aw.stats, nil
}

func (s BundleSpec) check() error {
	for _, n := range []int{s.Pods, s.Namespaces, s.Deployments, s.Nodes, s.Events, s.LogBytesPerPod} {
		if n < 0 {
			return errors.New("contracttest: negative count in BundleSpec")
		}
	}
	switch {
	case s.CollectedAt.IsZero():
		return errors.New("contracttest: BundleSpec.CollectedAt is not set")
	case s.Namespaces == 0 && (s.Deployments > 0 || s.Events > 0):
		return errors.New("contracttest: Deployments and Events need at least one namespace")
	case s.Pods > 0 && (s.Deployments == 0 || s.Nodes == 0):
		return errors.New("contracttest: pods need at least one Deployment and one node")
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// archiveWriter writes regular files under the bundle root.
type archiveWriter struct {
	tw    *tar.Writer
	root  string
	mtime time.Time
	stats BundleStats
}

// file writes one small entry.
func (a *archiveWriter) file(rel string, body []byte) error {
	sp := spool{}
	if err := sp.Write(body); err != nil {
		return err
	}
	return a.fileFrom(rel, &sp)
}

// fileFrom writes one entry from a spool.
func (a *archiveWriter) fileFrom(rel string, sp *spool) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: a.root + "/" + rel, Size: sp.size, Mode: 0o600, ModTime: a.mtime}
	if err := a.tw.WriteHeader(hdr); err != nil {
		return err
	}
	if err := sp.copyTo(a.tw); err != nil {
		return err
	}
	size := sp.size
	a.stats.Entries++
	a.stats.UncompressedBytes += size
	a.stats.LargestFile = max(a.stats.LargestFile, size)
	switch {
	case strings.HasPrefix(rel, "cluster-resources/pods/logs/"):
		a.stats.Logs++
		a.stats.LogBytes += size
	case strings.HasPrefix(rel, "cluster-resources/"):
		a.stats.ResourceBytes += size
		if strings.HasPrefix(rel, "cluster-resources/pods/") {
			a.stats.PodListBytes += size
		}
	}
	return nil
}

// spoolMemory is how much of one file a spool holds in memory before it
// moves to a temporary file: a tar header needs the size of the entry
// before its content, and a namespace of a huge bundle can hold gigabytes.
var spoolMemory int64 = 64 << 20

// spool collects one entry's content: in memory, then in a temporary file.
type spool struct {
	parts [][]byte
	f     *os.File
	bw    *bufio.Writer
	size  int64
}

func (s *spool) Write(p []byte) error {
	s.size += int64(len(p))
	if s.f == nil && s.size > spoolMemory {
		f, err := os.CreateTemp("", "bundlectl-generate-*")
		if err != nil {
			return err
		}
		s.f, s.bw = f, bufio.NewWriterSize(f, 1<<20)
		for _, q := range s.parts {
			if _, err := s.bw.Write(q); err != nil {
				return err
			}
		}
		s.parts = nil
	}
	if s.f != nil {
		_, err := s.bw.Write(p)
		return err
	}
	s.parts = append(s.parts, p)
	return nil
}

func (s *spool) copyTo(w io.Writer) error {
	if s.f == nil {
		for _, p := range s.parts {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w, s.f)
	if err == nil && n != s.size {
		err = fmt.Errorf("spool %s: read %d of %d bytes", s.f.Name(), n, s.size)
	}
	return err
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

var (
	firstItem = []byte("[\n    ")
	nextItem  = []byte(",\n    ")
	lastItem  = []byte("\n  ]\n}")
	noItems   = []byte("null\n}")
)

// marshalItems marshals n objects on every CPU; the result is in order and
// does not depend on the scheduling.
func marshalItems(n int, obj func(i int) any) ([][]byte, error) {
	out := make([][]byte, n)
	errs := make([]error, n)
	const chunk = 16
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					out[i], errs[i] = json.MarshalIndent(obj(i), "    ", "  ")
				}
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
