package index

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/bundlectl/bundlectl/contract"
)

// logKey names one collected container log.
type logKey struct {
	namespace, pod, container string
	previous                  bool
}

// logStore finds container logs on disk. They are copied once, at load,
// into a temporary folder: an archive cannot be read at random, logs are
// too big to keep in memory, and a folder's files may change or vanish
// while it is served (the server serves what it loaded, and never opens a
// path of the bundle after load).
type logStore struct {
	bundle *contract.Bundle
	dir    string // temporary folder, "" until a log is copied
	files  map[logKey]string
	byRel  map[string]string
	links  map[logKey]string // symlinked logs: the target's path relative to the root
	n      int
}

func newLogStore(b *contract.Bundle) *logStore {
	return &logStore{bundle: b, files: map[logKey]string{}, byRel: map[string]string{}, links: map[logKey]string{}}
}

func (s *logStore) add(e *contract.Entry) error {
	c := e.Class
	key := logKey{namespace: c.Key.Namespace, pod: c.Pod, container: c.Container, previous: c.Previous}
	switch {
	case e.Header.Typeflag == tar.TypeSymlink || e.Header.Typeflag == tar.TypeLink:
		if e.LinkRel != "" {
			s.links[key] = e.LinkRel
		}
		return nil
	case !e.IsRegular():
		return nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "bundlectl-serve-logs-*")
		if err != nil {
			return fmt.Errorf("extracting logs: %w", err)
		}
		s.dir = dir
	}
	s.n++
	p := filepath.Join(s.dir, strconv.Itoa(s.n)+".log")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("extracting %s: %w", e.Rel, err)
	}
	_, err = io.Copy(f, e.Reader())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("extracting %s: %w", e.Rel, err)
	}
	s.files[key], s.byRel[e.Rel] = p, p
	return nil
}

// resolveLinks points symlinked logs at their targets, once every entry
// has been seen.
func (s *logStore) resolveLinks() {
	for key, rel := range s.links {
		if p, ok := s.byRel[rel]; ok {
			if _, exists := s.files[key]; !exists {
				s.files[key] = p
			}
		}
	}
}

func (s *logStore) close() error {
	if s.dir == "" {
		return nil
	}
	return os.RemoveAll(s.dir)
}
