package index

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/bundlectl/bundlectl/contract"
)

// ContainerLog is a container's collected log as serve reads it.
type ContainerLog struct {
	// Rel is the file of the bundle it was read from (a symlink's
	// target), which `serve -v` names.
	Rel string
	// Error says that the file holds why troubleshoot could not collect
	// the log (its -logs-errors.log or -errors.json), not the log.
	Error bool
	// Ambiguous are the other pods ("namespace/name") the file may be
	// the log of (contract.PodLog.Ambiguous).
	Ambiguous []string

	spool     *os.File
	off, size int64
}

// Open reads the log as it was at load, at random: `--tail` seeks from
// the end. Reads are safe from any number of requests at once.
func (l ContainerLog) Open() *io.SectionReader {
	return io.NewSectionReader(l.spool, l.off, l.size)
}

// logKey names one collected container log.
type logKey struct {
	namespace, pod, container string
	previous, error           bool
}

// span is where a file's bytes are in the spool.
type span struct{ off, size int64 }

// logStore keeps the files that may be pod logs, back to back, in one
// spool: a temporary file removed from its folder as soon as it is
// created, so that nothing is left whatever ends serve (SIGKILL
// included), and nothing else can open it. An archive cannot be read at
// random, logs are too big to keep in memory, and a folder's files may
// change or vanish while it is served (the server serves what it loaded,
// and never opens a path of the bundle after load); one file whatever
// the number of logs, costing their bytes and no more. Which pod and
// container a file belongs to is decided once every entry has been seen
// (contract.MapPodLogs: older layouts name no namespace, so the pods
// decide); when the files of no pod take most of the spool, the logs
// are copied into a new one without them.
type logStore struct {
	spool *os.File // nil until a file is kept
	name  string   // the spool's name where it could not be removed at once
	w     *bufio.Writer
	size  int64
	files []contract.LogFile
	// kept are the files in the spool by their path in the bundle.
	kept map[string]span
	logs map[logKey]ContainerLog

	mu   sync.Mutex
	pods map[string]contract.PodContainers // by namespace/name
}

func newLogStore() *logStore {
	return &logStore{kept: map[string]span{}, logs: map[logKey]ContainerLog{}, pods: map[string]contract.PodContainers{}}
}

// add keeps f, a file of the walk that may be a pod log; a regular
// file's bytes go to the spool.
func (s *logStore) add(e *contract.Entry, f contract.LogFile) error {
	s.files = append(s.files, f)
	if f.Symlink {
		return nil
	}
	if s.spool == nil {
		var err error
		if s.spool, s.name, err = contract.TempFile("bundlectl-serve-logs-*"); err != nil {
			return fmt.Errorf("keeping the logs: %w", err)
		}
		s.w = bufio.NewWriterSize(s.spool, 256<<10)
	}
	n, err := io.Copy(s.w, e.Reader())
	if err != nil {
		return fmt.Errorf("keeping %s: %w", e.Rel, err)
	}
	s.kept[f.Rel] = span{off: s.size, size: n}
	s.size += n
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
// has seen every entry and pod.
func (s *logStore) mapLogs() error {
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return fmt.Errorf("keeping the logs: %w", err)
		}
		s.w = nil
	}
	pods := make([]contract.PodContainers, 0, len(s.pods))
	for _, p := range s.pods {
		pods = append(pods, p)
	}
	mapped := contract.MapPodLogs(s.files, pods).Logs
	used := map[string]span{}
	var usedBytes int64
	for _, l := range mapped {
		sp, ok := s.kept[l.Path]
		if _, seen := used[l.Path]; ok && !seen {
			used[l.Path] = sp
			usedBytes += sp.size
		}
	}
	if s.size-usedBytes > usedBytes {
		if err := s.compact(used); err != nil {
			return err
		}
	}
	for _, l := range mapped {
		sp, ok := used[l.Path]
		if !ok {
			continue
		}
		s.logs[logKey{namespace: l.Namespace, pod: l.Pod, container: l.Container, previous: l.Previous, error: l.Error}] = ContainerLog{
			Rel: l.Path, Error: l.Error, Ambiguous: l.Ambiguous, spool: s.spool, off: sp.off, size: sp.size}
	}
	s.files, s.kept, s.pods = nil, nil, nil
	return nil
}

// compact copies the files of used into a new spool, which replaces the
// old one, and moves their spans accordingly.
func (s *logStore) compact(used map[string]span) error {
	spool, name, err := contract.TempFile("bundlectl-serve-logs-*")
	if err != nil {
		return fmt.Errorf("keeping the logs: %w", err)
	}
	w := bufio.NewWriterSize(spool, 256<<10)
	var size int64
	for rel, sp := range used {
		n, err := io.Copy(w, io.NewSectionReader(s.spool, sp.off, sp.size))
		if err == nil && n != sp.size {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			closeSpool(spool, name)
			return fmt.Errorf("keeping %s: %w", rel, err)
		}
		used[rel] = span{off: size, size: n}
		size += n
	}
	if err := w.Flush(); err != nil {
		closeSpool(spool, name)
		return fmt.Errorf("keeping the logs: %w", err)
	}
	closeSpool(s.spool, s.name)
	s.spool, s.name, s.size = spool, name, size
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
	if s.spool == nil {
		return nil
	}
	err := closeSpool(s.spool, s.name)
	s.spool = nil
	return err
}

func closeSpool(f *os.File, name string) error {
	err := f.Close()
	if name != "" {
		if rerr := os.Remove(name); err == nil {
			err = rerr
		}
	}
	return err
}
