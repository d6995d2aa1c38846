package index

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/bundlectl/bundlectl/contract"
)

// ContainerLog is a container's collected log as serve reads it.
type ContainerLog struct {
	// File is the copy on disk, read by seeking (never the bundle's own
	// path: see logStore).
	File string
	// Rel is the file of the bundle it was copied from (a symlink's
	// target), which `serve -v` names.
	Rel string
	// Error says that the file holds why troubleshoot could not collect
	// the log (its -logs-errors.log or -errors.json), not the log.
	Error bool
	// Ambiguous are the other pods ("namespace/name") the file may be
	// the log of (contract.PodLog.Ambiguous).
	Ambiguous []string
}

// logKey names one collected container log.
type logKey struct {
	namespace, pod, container string
	previous, error           bool
}

// logStore finds container logs on disk. Every file that may be a pod log
// is copied once, at load, into a temporary folder: an archive cannot be
// read at random, logs are too big to keep in memory, and a folder's
// files may change or vanish while it is served (the server serves what
// it loaded, and never opens a path of the bundle after load). Which pod
// and container a file belongs to is decided once every entry has been
// seen (contract.MapPodLogs: older layouts name no namespace, so the
// pods decide), and the copies that belong to none are removed.
type logStore struct {
	dir   string // temporary folder, "" until a file is copied
	files []contract.LogFile
	// copies are the copied files by their path in the bundle.
	copies map[string]string
	logs   map[logKey]ContainerLog

	mu   sync.Mutex
	pods map[string]contract.PodContainers // by namespace/name
}

func newLogStore() *logStore {
	return &logStore{copies: map[string]string{}, logs: map[logKey]ContainerLog{}, pods: map[string]contract.PodContainers{}}
}

// add keeps f, a file of the walk that may be a pod log; a regular file is
// copied.
func (s *logStore) add(e *contract.Entry, f contract.LogFile) error {
	s.files = append(s.files, f)
	if f.Symlink {
		return nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "bundlectl-serve-logs-*")
		if err != nil {
			return fmt.Errorf("extracting logs: %w", err)
		}
		s.dir = dir
	}
	p := filepath.Join(s.dir, strconv.Itoa(len(s.copies)+1)+".log")
	out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("extracting %s: %w", e.Rel, err)
	}
	_, err = io.Copy(out, e.Reader())
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("extracting %s: %w", e.Rel, err)
	}
	s.copies[f.Rel] = p
	return nil
}

// addPods notes the pods of a pod list, for mapping; a pod in several
// files counts once. Safe for the decoding workers.
func (s *logStore) addPods(pods []contract.PodContainers) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pods {
		s.pods[p.Namespace+"/"+p.Name] = p
	}
}

// mapLogs maps every kept file to its pod and container, once the walk
// has seen every entry and pod, and removes the copies no log uses.
func (s *logStore) mapLogs() error {
	pods := make([]contract.PodContainers, 0, len(s.pods))
	for _, p := range s.pods {
		pods = append(pods, p)
	}
	used := map[string]bool{}
	for _, l := range contract.MapPodLogs(s.files, pods).Logs {
		p, ok := s.copies[l.Path]
		if !ok {
			continue
		}
		used[l.Path] = true
		s.logs[logKey{namespace: l.Namespace, pod: l.Pod, container: l.Container, previous: l.Previous, error: l.Error}] = ContainerLog{File: p, Rel: l.Path, Error: l.Error, Ambiguous: l.Ambiguous}
	}
	for rel, p := range s.copies {
		if !used[rel] {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("removing the copy of %s: %w", rel, err)
			}
		}
	}
	s.files, s.copies, s.pods = nil, nil, nil
	return nil
}

// find is the container's log, else the file that says why it could not
// be collected.
func (s *logStore) find(namespace, pod, container string, previous bool) (ContainerLog, bool) {
	k := logKey{namespace: namespace, pod: pod, container: container, previous: previous}
	if l, ok := s.logs[k]; ok {
		return l, true
	}
	k.error = true
	l, ok := s.logs[k]
	return l, ok
}

func (s *logStore) close() error {
	if s.dir == "" {
		return nil
	}
	return os.RemoveAll(s.dir)
}
