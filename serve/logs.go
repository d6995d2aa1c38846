package serve

import (
	"archive/tar"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

var podsResource = schema.GroupResource{Resource: "pods"}

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

// podContainers is what pods/log needs of a pod: its container names.
type podContainers struct {
	init, containers, ephemeral []string
}

// containersOf reads a pod's container names from its compact JSON without
// decoding it.
func containersOf(pod []byte) *podContainers {
	spec := rawjson.Get(pod, "spec")
	names := func(field string) []string {
		var out []string
		rawjson.EachElement(rawjson.Get(spec, field), func(c []byte) {
			out = append(out, rawjson.String(rawjson.Get(c, "name")))
		})
		return out
	}
	return &podContainers{init: names("initContainers"), containers: names("containers"), ephemeral: names("ephemeralContainers")}
}

func (p *podContainers) all() []string {
	var names []string
	for _, list := range [][]string{p.init, p.containers, p.ephemeral} {
		names = append(names, list...)
	}
	return names
}

// serveLog answers pods/log from the collected logs, with the server's
// rules for choosing the container and its messages when it cannot.
func (s *server) serveLog(w http.ResponseWriter, r *http.Request, req *apiRequest) {
	q := r.URL.Query()
	opts, err := logOptions(req.name, q)
	if err != nil {
		writeError(w, err)
		return
	}
	o := req.res.find(req.namespace, req.name)
	if o == nil {
		writeError(w, apierrors.NewNotFound(podsResource, req.name))
		return
	}
	container, err := chooseContainer(opts.container, req.name, containersOf(o.item))
	if err != nil {
		writeError(w, err)
		return
	}
	p, ok := s.x.logs.files[logKey{namespace: req.namespace, pod: req.name, container: container, previous: opts.previous}]
	if !ok {
		what := "logs"
		if opts.previous {
			what = "previous logs"
		}
		err := apierrors.NewNotFound(podsResource, req.name)
		err.ErrStatus.Message = fmt.Sprintf("the %s of container %q of pod %q in namespace %q were not collected in this support bundle", what, container, req.name, req.namespace)
		writeError(w, err)
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		writeError(w, fmt.Errorf("reading the log of %s/%s/%s: %w", req.namespace, req.name, container, err))
		return
	}
	data = tail(data, opts.tailLines)
	if opts.limitBytes >= 0 && int64(len(data)) > opts.limitBytes {
		data = data[:opts.limitBytes]
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data)
}

type logOpts struct {
	container             string
	previous              bool
	tailLines, limitBytes int64 // -1 when not set
}

// logOptions reads the query as PodLogOptions, refusing the values the
// server's validation refuses.
func logOptions(pod string, q map[string][]string) (logOpts, error) {
	o := logOpts{tailLines: -1, limitBytes: -1}
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	o.container = get("container")
	var errs field.ErrorList
	if v := get("previous"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, apierrors.NewBadRequest(err.Error())
		}
		o.previous = b
	}
	for _, p := range []struct {
		name string
		to   *int64
		min  int64
		msg  string
	}{
		{"tailLines", &o.tailLines, 0, "must be greater than or equal to 0"},
		{"limitBytes", &o.limitBytes, 1, "must be greater than 0"},
	} {
		v := get(p.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, apierrors.NewBadRequest(err.Error())
		}
		if n < p.min {
			errs = append(errs, field.Invalid(field.NewPath(p.name), n, p.msg))
		}
		*p.to = n
	}
	if len(errs) > 0 {
		return o, apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, pod, errs)
	}
	return o, nil
}

// chooseContainer is the server's validateContainer
// (pkg/registry/core/pod/strategy.go): without a container, a pod's only
// container; with several, an error naming them all, init and ephemeral
// containers included. kubectl chooses the default container itself
// (kubectl.kubernetes.io/default-container, else the first) before asking.
func chooseContainer(container, pod string, p *podContainers) (string, error) {
	if container == "" {
		switch len(p.containers) {
		case 1:
			return p.containers[0], nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod))
		default:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %s", pod, p.all()))
		}
	}
	for _, name := range p.all() {
		if name == container {
			return container, nil
		}
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod))
}

// tail keeps the last n lines of data (all of it when n < 0), as the
// kubelet's tailLines does: a final line without a newline counts.
func tail(data []byte, n int64) []byte {
	if n < 0 {
		return data
	}
	if n == 0 {
		return nil
	}
	end := len(data)
	if end > 0 && data[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if data[i] == '\n' {
			n--
			if n == 0 {
				return data[i+1:]
			}
		}
	}
	return data
}
