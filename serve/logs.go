package serve

import (
	"fmt"
	"net/http"
	"os"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

var podsResource = schema.GroupResource{Resource: "pods"}

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
func (s *server) serveLog(w http.ResponseWriter, r *http.Request, req *apiRequest) error {
	q := r.URL.Query()
	opts, err := logOptions(req.name, q)
	if err != nil {
		return err
	}
	o := req.res.Find(req.namespace, req.name)
	if o == nil {
		return apierrors.NewNotFound(podsResource, req.name)
	}
	container, err := chooseContainer(opts.container, req.name, containersOf(o.Item))
	if err != nil {
		return err
	}
	p, ok := s.x.LogFile(req.namespace, req.name, container, opts.previous)
	if !ok {
		what := "logs"
		if opts.previous {
			what = "previous logs"
		}
		err := apierrors.NewNotFound(podsResource, req.name)
		err.ErrStatus.Message = fmt.Sprintf("the %s of container %q of pod %q in namespace %q were not collected in this support bundle", what, container, req.name, req.namespace)
		return err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading the log of %s/%s/%s: %w", req.namespace, req.name, container, err)
	}
	data = tail(data, opts.tailLines)
	if opts.limitBytes >= 0 && int64(len(data)) > opts.limitBytes {
		data = data[:opts.limitBytes]
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data)
	return nil
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
