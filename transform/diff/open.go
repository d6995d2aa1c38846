package diff

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/termtext"
	"github.com/bundlectl/bundlectl/transform"
)

// side is one opened bundle of the comparison, upgraded when legacy.
type side struct {
	b           *contract.Bundle
	name        string
	collectedAt time.Time
	version     string
	cleanup     func()
	// warnings are the files that could not be read, each once.
	warnings []string
	warned   map[string]bool
	// unreadable are the lists that could not be read: the other side's
	// objects in a list of that name are neither added nor removed.
	unreadable map[string]bool
	// collected are the resources the side has a list of (empty or not);
	// customCollected: one of them is a custom resource.
	collected       map[schema.GroupResource]bool
	customCollected bool
	// heap is the comparison's heap limit, which the lists read raise.
	heap *memory
}

// open opens a bundle as serve loads one: a legacy bundle is upgraded
// first (transform.UpgradeOnLoad, which tells log what it did) into a
// temporary uncompressed tar, so that both sides have tables of their
// own release as of their own collection time.
func open(ctx context.Context, name string, o Options) (*side, error) {
	b, err := contract.OpenContext(ctx, name, contract.OpenOptions{Stdin: o.Stdin, HTTP: o.HTTP, Limits: o.Limits, KeepStream: true})
	if err != nil {
		return nil, err
	}
	s := &side{b: b, name: b.Path, cleanup: func() { b.Close() }, unreadable: map[string]bool{}, collected: map[schema.GroupResource]bool{}}
	if !b.HasClusterResources {
		s.cleanup()
		return nil, fmt.Errorf("%s: %s, so there are no objects to compare", s.name, contract.NoClusterResources)
	}
	if b.DiscoveryJSON == nil {
		if err := s.upgrade(ctx, o.Log); err != nil {
			return nil, err
		}
	}
	d, err := s.b.Discovery()
	if err != nil || d == nil {
		s.cleanup()
		if err == nil {
			err = fmt.Errorf("no %s after the upgrade", contract.DiscoveryPath())
		}
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	s.collectedAt, s.version = d.CollectedTime(), d.KubernetesVersion
	return s, nil
}

// upgrade replaces the legacy bundle by its upgraded copy, in a folder of
// its own in TMPDIR. The tables the upgrade could not make are told to
// log; a list that cannot be read is found again, and warned of, when the
// copy is read.
func (s *side) upgrade(ctx context.Context, log io.Writer) error {
	path, problems, removeCopy, err := transform.UpgradeOnLoad(time.Time{}, "", log)(ctx, s.b, "")
	limits := s.b.Limits()
	s.cleanup()
	if err != nil {
		return fmt.Errorf("upgrading %s: %w", s.name, err)
	}
	for _, p := range problems {
		fmt.Fprintf(log, "warning: %s: %s: %s\n", termtext.Escape(s.name), termtext.Escape(p.Path), termtext.Escape(p.Message))
	}
	b, err := contract.Open(path, limits)
	if err != nil {
		removeCopy()
		return fmt.Errorf("opening the upgraded %s: %w", s.name, err)
	}
	s.b, s.cleanup = b, func() { b.Close(); removeCopy() }
	// The upgrade's heap is garbage now; collected before the index is
	// built, it is reused rather than added to (as serve does).
	runtime.GC()
	return nil
}
