package transform

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bundlectl/bundlectl/contract"
)

// Options configure Upgrade.
type Options struct {
	// Source and Dest are a .tar.gz/.tgz/.tar archive, a folder, or "-"
	// for standard input and output.
	Source, Dest string
	// Force replaces an existing Dest that bundlectl wrote.
	Force bool
	// CollectedAt overrides the collection time the bundle tells.
	CollectedAt time.Time
	Stdin       io.Reader
	Stdout      io.Writer
	// Progress receives a progress line, rewritten in place; nil for none.
	Progress io.Writer
	Limits   contract.Limits
	// HTTP says how a Source named by a URL is fetched.
	HTTP contract.HTTPOptions
	// KubeVersion, when set, is the Kubernetes version ("v1.31.14",
	// "1.31") whose tables are rendered instead of the cluster's own.
	KubeVersion string
}

// Upgrade rewrites the bundle at Source into the contract at Dest in one
// streaming pass. Dest appears only when everything was written: on any
// error or cancellation nothing is left, and Source is never touched.
// Tables that cannot be made are problems in the summary, not errors.
func Upgrade(ctx context.Context, o Options) (*Summary, error) {
	// Dest is checked before the bundle is read (a download, a first
	// pass), and its temporary file made only after.
	wopts := contract.WriterOptions{Force: o.Force, Stdout: o.Stdout, Source: o.Source}
	if err := contract.CheckDest(o.Dest, wopts); err != nil {
		return nil, err
	}
	b, err := contract.OpenContext(ctx, o.Source, contract.OpenOptions{Stdin: o.Stdin, HTTP: o.HTTP, Limits: o.Limits, KeepStream: true})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	w, err := contract.CreateWriter(o.Dest, wopts)
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	sum, err := Run(ctx, b, w, RunOptions{CollectedAt: o.CollectedAt, Progress: o.Progress, KubeVersion: o.KubeVersion})
	if err != nil {
		return nil, err
	}
	if err := w.Commit(ctx); err != nil {
		return nil, err
	}
	// A folder cannot hold some entries an archive can (a hard link to a
	// folder): reported with the rest.
	sum.Problems = append(sum.Problems, w.Skipped...)
	return sum, nil
}

// RunOptions configure Run.
type RunOptions struct {
	CollectedAt time.Time
	Progress    io.Writer
	// KubeVersion overrides the cluster's version the tables are
	// rendered for (Options.KubeVersion).
	KubeVersion string
}

// Run streams every entry of b into w unchanged, with a table after each
// raw list that has none (rendered for the cluster's minor, or
// o.KubeVersion's), then the ranked rows of the resources whose rows
// depend on the rest of the list (rankedrows.go), discovery.json when the bundle has none,
// then the lists of the other group versions discovery serves
// (writeConverted) and the metrics.k8s.io lists made from the bundle's
// node metrics (writeNodeMetrics), then the OpenAPI documents when it has none. It does not commit w.
func Run(ctx context.Context, b *contract.Bundle, w *contract.Writer, o RunOptions) (*Summary, error) {
	heap := NewHeapLimit(memoryLimit(b))
	defer heap.Restore()
	if !b.HasClusterResources {
		return copyOnly(ctx, b, w, o, heap)
	}
	collected, err := collectionTime(b, o.CollectedAt)
	if err != nil {
		return nil, err
	}
	at := collected.CollectedAt
	sum := newSummary(b, w, collected)
	crds, problems := newCRDIndex(b.CRDList)
	for _, p := range problems {
		sum.problem(contract.CRDListPath, p)
	}
	cluster, err := findClusterVersion(b, sum)
	if err != nil {
		return nil, err
	}
	chooseMinor(o.KubeVersion, cluster, sum)
	p := newPipeline(ctx, b, w, NewRenderer(at, crds).ForMinor(sum.RenderedFor), sum, cluster, heap)
	defer p.spool.close()
	if o.Progress != nil {
		stop := p.progress.start(o.Progress)
		defer stop()
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	if err := p.writeRankedRows(at); err != nil {
		return nil, err
	}
	var d *contract.Discovery
	if b.DiscoveryJSON == nil {
		if d, err = p.writeDiscovery(at); err != nil {
			return nil, err
		}
	} else {
		sum.Discovery = "kept"
		if d, err = contract.ParseDiscovery(b.DiscoveryJSON); err != nil {
			sum.problem(contract.DiscoveryPath(), fmt.Errorf("%w; no OpenAPI documents are made", err))
		} else {
			for _, err := range d.Invalid {
				sum.problem(contract.DiscoveryPath(), err)
			}
		}
	}
	if d != nil {
		openapi := p.startOpenAPI(d)
		if err := p.writeConverted(ctx, d); err != nil {
			<-openapi.done
			return nil, err
		}
		if err := p.writeNodeMetrics(ctx, d, at); err != nil {
			<-openapi.done
			return nil, err
		}
		if err := p.writeOpenAPI(openapi, at); err != nil {
			return nil, err
		}
	}
	sum.finish()
	return sum, nil
}

// copyOnly upgrades a bundle without cluster-resources/: every entry is
// copied and nothing is added, not even a discovery.json, which would
// describe a cluster the bundle did not collect. Its collection time is
// reported when known, not required: no age is computed.
func copyOnly(ctx context.Context, b *contract.Bundle, w *contract.Writer, o RunOptions, heap *HeapLimit) (*Summary, error) {
	collected, err := collectionTime(b, o.CollectedAt)
	if err != nil && !errors.Is(err, contract.ErrNoCollectionTime) {
		return nil, err
	}
	sum := newSummary(b, w, collected)
	sum.NothingToRender = contract.NoClusterResources
	p := newPipeline(ctx, b, w, NewRenderer(collected.CollectedAt, nil), sum, clusterVersion{}, heap)
	defer p.spool.close()
	if o.Progress != nil {
		defer p.progress.start(o.Progress)()
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	sum.finish()
	return sum, nil
}

// collectionTime is the time every age is computed at: the flag, else what
// the bundle tells (contract.Bundle.CollectedAt).
func collectionTime(b *contract.Bundle, flag time.Time) (contract.CollectionTime, error) {
	if !flag.IsZero() {
		return contract.CollectionTime{CollectedAt: flag.UTC().Truncate(time.Second), CollectedAtSource: contract.TimeFromFlag}, nil
	}
	c, err := b.CollectedAt()
	if err != nil {
		return contract.CollectionTime{}, fmt.Errorf("%s: %w", b.Path, err)
	}
	return c, nil
}

// entryName is the archive name of a path relative to the bundle root.
func entryName(b *contract.Bundle, rel string) string {
	if b.Root == "" {
		return rel
	}
	return b.Root + "/" + rel
}

// newEntryHeader is the header of an entry the upgrade adds: owned like
// the entry it belongs to, so that a folder written as root or as a user
// gets its new files the same way, and dated deterministically.
func newEntryHeader(name string, size int64, like *tar.Header, mtime time.Time) *tar.Header {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: mtime}
	if like != nil {
		hdr.Mode = like.Mode &^ 0o111
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = like.Uid, like.Gid, like.Uname, like.Gname
		hdr.ModTime = like.ModTime
	}
	return hdr
}
