package serve

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// pods/log answers as kube-apiserver v1.37 and the kubelet behind it
// answer (pkg/registry/core/pod/rest/log.go, pod.LogLocation,
// pkg/kubelet/server getContainerLogs, k8s.io/cri-client/pkg/logs): the
// options are decoded and validated as the server does, the container is
// chosen by the server's rules, and the log is read as the kubelet reads
// a container's log file: tailLines from the end by seeking, then the
// lines since sinceSeconds or sinceTime, timestamps prefixed on demand,
// cut at limitBytes. follow ends at the end of the file: nothing more
// will be written to it.

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
	opts, err := logOptions(req.name, r.URL.Query())
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
	if len(rawjson.Get(rawjson.Get(o.Item, "spec"), "nodeName")) == 0 {
		// A pod no node ran: the server has no kubelet to ask, and
		// answers with no content.
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	l, ok := s.x.ContainerLog(req.namespace, req.name, container, opts.previous)
	if !ok {
		// What the kubelet answered for a container with no log, where
		// the pod's status tells; else the bundle lacks what it had.
		if err := kubeletLogError(o.Item, req.name, container, opts.previous); err != nil {
			return err
		}
		return notCollected(req.namespace, req.name, container, opts.previous, "")
	}
	noteAccess(r, "log="+l.Rel)
	if len(l.Ambiguous) > 0 {
		addWarning(w, fmt.Sprintf("%s, the file this support bundle holds for this log, names no namespace and may be the log of pod %s instead: troubleshoot wrote the logs of pods of the same name to one file, the last one winning", l.Rel, strings.Join(l.Ambiguous, ", ")))
	}
	if l.Error {
		return notCollected(req.namespace, req.name, container, opts.previous, collectionError(l.Open()))
	}
	f := l.Open()
	start, err := tailStart(f, opts.tailLines)
	if err != nil {
		return fmt.Errorf("reading the log of %s/%s/%s: %w", req.namespace, req.name, container, err)
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("reading the log of %s/%s/%s: %w", req.namespace, req.name, container, err)
	}
	lr := &logReader{r: bufio.NewReaderSize(f, 64<<10), opts: opts, since: opts.since(s.collectedAt())}
	lr.timestamped = lr.startsWithTimestamp()
	if !lr.timestamped && !lr.isKubeletFailure() {
		var lost []string
		if opts.timestamps {
			lost = append(lost, "timestamps")
		}
		if !lr.since.IsZero() {
			lost = append(lost, "since")
		}
		if len(lost) > 0 {
			addWarning(w, fmt.Sprintf("the log of container %q of pod %q in namespace %q in this support bundle has no timestamps: %s cannot be applied (collect logs with timestamps to use them)", container, req.name, req.namespace, strings.Join(lost, " and ")))
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	// Once the answer has started, an error can only end it early, as
	// the kubelet's does.
	lr.copyTo(w)
	return nil
}

// collectedAt is the time sinceSeconds counts back from: when the
// bundle was collected, the "now" of everything it holds.
func (s *server) collectedAt() time.Time {
	if s.x.CollectedAt.IsZero() {
		return time.Now()
	}
	return s.x.CollectedAt
}

// notCollected is the answer for a log the bundle does not hold; why is
// what troubleshoot recorded when it could not collect it, if anything.
func notCollected(namespace, pod, container string, previous bool, why string) error {
	what := "logs"
	if previous {
		what = "previous logs"
	}
	err := apierrors.NewNotFound(podsResource, pod)
	err.ErrStatus.Message = fmt.Sprintf("the %s of container %q of pod %q in namespace %q were not collected in this support bundle", what, container, pod, namespace)
	if why != "" {
		err.ErrStatus.Message += ": " + why
	}
	return err
}

// maxCollectionError bounds what is read of a file recording why a log
// could not be collected: it goes into an error message.
const maxCollectionError = 4 << 10

// collectionError is the text of troubleshoot's record of why a log could
// not be collected: plain text (-logs-errors.log) or a JSON array of
// strings (-errors.json).
func collectionError(f io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(f, maxCollectionError))
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' && rawjson.Valid(data) {
		var msgs []string
		rawjson.EachElement(data, func(v []byte) {
			if m := rawjson.String(v); m != "" {
				msgs = append(msgs, m)
			}
		})
		return strings.Join(msgs, "; ")
	}
	return strings.Join(strings.Fields(string(data)), " ")
}

// kubeletLogError is the kubelet's refusal to read a container's log,
// from the pod's status as the bundle recorded it
// (Kubelet.validateContainerLogStatus): nil when the kubelet would have
// answered with a log. The apiserver passes it on as a BadRequest.
func kubeletLogError(pod []byte, podName, container string, previous bool) error {
	status := rawjson.Get(pod, "status")
	var cs []byte
	for _, list := range []string{"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"} {
		rawjson.EachElement(rawjson.Get(status, list), func(c []byte) {
			if cs == nil && rawjson.String(rawjson.Get(c, "name")) == container {
				cs = c
			}
		})
		if cs != nil {
			break
		}
	}
	bad := func(format string, args ...any) error { return apierrors.NewBadRequest(fmt.Sprintf(format, args...)) }
	if cs == nil {
		return bad("container %q in pod %q is not available", container, podName)
	}
	state, last := rawjson.Get(cs, "state"), rawjson.Get(rawjson.Get(cs, "lastState"), "terminated")
	lastID := rawjson.String(rawjson.Get(last, "containerID"))
	present := func(v []byte) bool { return len(v) > 0 && string(v) != "null" }
	running, terminated, waiting := rawjson.Get(state, "running"), rawjson.Get(state, "terminated"), rawjson.Get(state, "waiting")
	switch {
	case previous:
		if lastID == "" {
			return bad("previous terminated container %q in pod %q not found", container, podName)
		}
	case present(running):
	case present(terminated):
		if rawjson.String(rawjson.Get(terminated, "containerID")) == "" && lastID == "" {
			return bad("container %q in pod %q is terminated", container, podName)
		}
	case present(last):
		if lastID == "" {
			return bad("container %q in pod %q is terminated", container, podName)
		}
	case present(waiting):
		switch reason := rawjson.String(rawjson.Get(waiting, "reason")); reason {
		case "ErrImagePull":
			return bad("container %q in pod %q is waiting to start: image can't be pulled", container, podName)
		case "ImagePullBackOff":
			return bad("container %q in pod %q is waiting to start: trying and failing to pull image", container, podName)
		default:
			return bad("container %q in pod %q is waiting to start: %v", container, podName, reason)
		}
	default:
		return bad("container %q in pod %q is waiting to start - no logs yet", container, podName)
	}
	return nil
}

type logOpts struct {
	container                    string
	previous, follow, timestamps bool
	tailLines, limitBytes        int64 // -1 when not set
	sinceSeconds                 int64 // 0 when not set
	sinceTime                    time.Time
}

// since is the time before which lines are left out (zero: none), as the
// kubelet reckons it, now being when the bundle was collected.
func (o logOpts) since(now time.Time) time.Time {
	var t time.Time
	if o.sinceSeconds > 0 {
		t = now.Add(-time.Duration(o.sinceSeconds) * time.Second)
	}
	if o.sinceTime.After(t) {
		t = o.sinceTime
	}
	return t
}

// logOptions reads the query as the server decodes PodLogOptions
// (Convert_url_Values_To_v1_PodLogOptions: a boolean is false only when
// "0" or "false", numbers are base 10, an empty sinceTime is a zero
// time) and refuses what its ValidatePodLogOptions refuses, with the
// PodLogsQuerySplitStreams gate off as it is by default.
func logOptions(pod string, q map[string][]string) (logOpts, error) {
	o := logOpts{tailLines: -1, limitBytes: -1}
	get := func(k string) (string, bool) {
		if v := q[k]; len(v) > 0 {
			return v[0], true
		}
		return "", false
	}
	flag := func(k string) bool {
		v, ok := get(k)
		return ok && v != "0" && !strings.EqualFold(v, "false")
	}
	number := func(k string) (*int64, error) {
		v, ok := get(k)
		if !ok {
			return nil, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return &n, nil
	}
	o.container, _ = get("container")
	o.previous, o.follow, o.timestamps = flag("previous"), flag("follow"), flag("timestamps")
	sinceSeconds, err := number("sinceSeconds")
	if err != nil {
		return o, err
	}
	_, sinceTime := get("sinceTime")
	if v, _ := get("sinceTime"); v != "" && v != "null" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return o, apierrors.NewBadRequest(err.Error())
		}
		// The apiserver hands the kubelet sinceTime in whole seconds.
		o.sinceTime = t.Truncate(time.Second)
	}
	tailLines, err := number("tailLines")
	if err != nil {
		return o, err
	}
	limitBytes, err := number("limitBytes")
	if err != nil {
		return o, err
	}
	var errs field.ErrorList
	if tailLines != nil {
		if o.tailLines = *tailLines; *tailLines < 0 {
			errs = append(errs, field.Invalid(field.NewPath("tailLines"), *tailLines, "must be greater than or equal to 0"))
		}
	}
	if limitBytes != nil {
		if o.limitBytes = *limitBytes; *limitBytes < 1 {
			errs = append(errs, field.Invalid(field.NewPath("limitBytes"), *limitBytes, "must be greater than 0"))
		}
	}
	switch {
	case sinceSeconds != nil && sinceTime:
		errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case sinceSeconds != nil:
		if o.sinceSeconds = *sinceSeconds; *sinceSeconds < 1 {
			errs = append(errs, field.Invalid(field.NewPath("sinceSeconds"), *sinceSeconds, "must be greater than 0"))
		}
	}
	if _, ok := get("stream"); ok {
		errs = append(errs, field.Forbidden(field.NewPath("stream"), "may not be specified"))
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

// tailBlock is how much of the file tailStart reads at a time.
const tailBlock = 32 << 10

// tailStart is the offset of the last n lines of f (0 when n < 0, the
// end when n is 0), found by reading blocks backwards from the end, as
// the kubelet's findTailLineStartIndex does, so that memory does not grow
// with the file. A last line without a newline counts as a line.
func tailStart(f io.ReadSeeker, n int64) (int64, error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil || n < 0 {
		return 0, err
	}
	if n == 0 {
		return size, nil
	}
	buf := make([]byte, tailBlock)
	for right := size; right > 0; {
		left := max(right-tailBlock, 0)
		b := buf[:right-left]
		if _, err := f.Seek(left, io.SeekStart); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(f, b); err != nil {
			return 0, err
		}
		if right == size && b[len(b)-1] == '\n' {
			// The file's final newline ends the last line; it does not
			// start another.
			b = b[:len(b)-1]
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == '\n' {
				n--
				if n == 0 {
					return left + int64(i) + 1, nil
				}
			}
		}
		right = left
	}
	return 0, nil
}

// errLimitReached ends copying at limitBytes.
var errLimitReached = errors.New("limitBytes reached")

// logReader copies a log from its start offset, line by line as the
// kubelet's logWriter does: lines before since are left out, the
// timestamp the collection recorded at the start of each line is shown
// only when asked for, and copying stops after limitBytes. A line is read
// in pieces, so a long one does not have to fit in memory.
type logReader struct {
	r           *bufio.Reader
	opts        logOpts
	since       time.Time
	timestamped bool
	written     int64
}

// maxTimestamp is the longest timestamp the kubelet writes, with the
// space that follows it in a timestamped log line.
const maxTimestamp = len("2006-01-02T15:04:05.000000000-07:00 ")

// rfc3339NanoFixed is how the kubelet writes timestamps: always nine
// digits of fraction.
const rfc3339NanoFixed = "2006-01-02T15:04:05.000000000Z07:00"

// timestampAt reads the timestamp at the start of a line: its time and
// its length with the space after it, or 0. Only the kubelet's fixed
// width form counts, so that an application's own times at the start of
// its lines ("2025-11-18T06:43:22.012Z INF ...") stay part of the log.
func (l *logReader) timestampAt() (time.Time, int) {
	head, _ := l.r.Peek(maxTimestamp)
	sp := bytes.IndexByte(head, ' ')
	if sp != len("2006-01-02T15:04:05.000000000Z") && sp != len("2006-01-02T15:04:05.000000000-07:00") {
		return time.Time{}, 0
	}
	t, err := time.Parse(rfc3339NanoFixed, string(head[:sp]))
	if err != nil {
		return time.Time{}, 0
	}
	return t, sp + 1
}

// startsWithTimestamp says whether the log's first line carries a
// timestamp: troubleshoot collects logs with or without them, all lines
// alike.
func (l *logReader) startsWithTimestamp() bool {
	_, n := l.timestampAt()
	return n > 0
}

// kubeletFailure is what the kubelet writes in place of a log it cannot
// read (kuberuntime's GetContainerLogs: the container is gone, removed by
// its garbage collection while a pod crash-loops). It has flushed a
// zero-byte write first (GetKubeletContainerLogs), so its 200 has gone
// out and the message is the body: the server passes it on as the log,
// whatever timestamps or since asked for, and the collector stores it as
// the log's content.
var kubeletFailure = regexp.MustCompile(`^unable to retrieve container logs for [a-z0-9.-]+://[0-9a-f]+\n?$`)

// isKubeletFailure says whether the whole log is the kubelet's failure
// to read it, which lacks timestamps on the live server too.
func (l *logReader) isKubeletFailure() bool {
	b, _ := l.r.Peek(256)
	return len(b) < 256 && kubeletFailure.Match(b)
}

func (l *logReader) copyTo(w io.Writer) error {
	lineStart, skip := true, false
	var ts time.Time
	for {
		if _, err := l.r.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if lineStart && l.timestamped {
			t, n := l.timestampAt()
			if n > 0 {
				ts = t // a line without one keeps the previous line's
				l.r.Discard(n)
			}
			skip = !l.since.IsZero() && ts.Before(l.since)
			if !skip && l.opts.timestamps {
				if err := l.write(w, []byte(ts.Format(rfc3339NanoFixed)+" ")); err != nil {
					return err
				}
			}
		} else if lineStart {
			skip = false
		}
		chunk, err := l.r.ReadSlice('\n')
		if len(chunk) > 0 && !skip {
			if werr := l.write(w, chunk); werr != nil {
				return werr
			}
		}
		switch {
		case err == nil:
			lineStart = true
		case errors.Is(err, bufio.ErrBufferFull):
			lineStart = false
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

func (l *logReader) write(w io.Writer, p []byte) error {
	if l.opts.limitBytes >= 0 && l.written+int64(len(p)) >= l.opts.limitBytes {
		p = p[:l.opts.limitBytes-l.written]
		n, err := w.Write(p)
		l.written += int64(n)
		if err == nil {
			err = errLimitReached
		}
		return err
	}
	n, err := w.Write(p)
	l.written += int64(n)
	return err
}
