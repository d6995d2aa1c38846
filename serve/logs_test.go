package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"path"
	"runtime"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

func TestLogs(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		path, want string
	}{
		{"/api/v1/namespaces/default/pods/web-2/log", "web-2 app line 1\nweb-2 app line 2\nweb-2 app line 3\nweb-2 app line 4\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=sidecar", "web-1 sidecar line 1\nweb-1 sidecar line 2\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&previous=true", "web-1 app previous line 1\nweb-1 app previous line 2\nweb-1 app previous line 3\n"},
		// The server reads any boolean but "0" and "false" as true.
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&previous=yes", "web-1 app previous line 1\nweb-1 app previous line 2\nweb-1 app previous line 3\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=2", "web-1 app line 4\nweb-1 app line 5\n"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=0", ""},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=2&limitBytes=5", "web-1"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=app&limitBytes=100000", "web-1 app line 1\nweb-1 app line 2\nweb-1 app line 3\nweb-1 app line 4\nweb-1 app line 5\n"},
		// follow ends at the end of the file.
		{"/api/v1/namespaces/default/pods/web-1/log?container=sidecar&follow=true", "web-1 sidecar line 1\nweb-1 sidecar line 2\n"},
	} {
		r := get(t, srv, tc.path)
		if r.code != http.StatusOK || r.body != tc.want || r.header.Get("Content-Type") != "text/plain" || r.header.Get("Warning") != "" {
			t.Errorf("%s: %d %q %q %q, want %q", tc.path, r.code, r.header.Get("Content-Type"), r.header.Get("Warning"), r.body, tc.want)
		}
	}
	for _, tc := range []struct {
		path   string
		code   int
		reason string
		msg    string
	}{
		// The server's own messages when no container is named.
		{"/api/v1/namespaces/default/pods/web-1/log", 400, "BadRequest", "a container name must be specified for pod web-1, choose one of: [setup app sidecar]"},
		{"/api/v1/namespaces/default/pods/web-1/log?container=nope", 400, "BadRequest", "container nope is not valid for pod web-1"},
		{"/api/v1/namespaces/default/pods/nope/log", 404, "NotFound", `pods "nope" not found`},
		// web-2's status records no terminated container before this one:
		// the kubelet's answer.
		{"/api/v1/namespaces/default/pods/web-2/log?previous=true", 400, "BadRequest", `previous terminated container "app" in pod "web-2" not found`},
		// coredns ran (its status says so) but its log is not in the bundle.
		{"/api/v1/namespaces/kube-system/pods/coredns-abc/log", 404, "NotFound", `the logs of container "coredns" of pod "coredns-abc" in namespace "kube-system" were not collected in this support bundle`},
		// web-1's init container has no status in the bundle.
		{"/api/v1/namespaces/default/pods/web-1/log?container=setup", 400, "BadRequest", `container "setup" in pod "web-1" is not available`},
		{"/api/v1/namespaces/default/pods/web-2/log?tailLines=-1", 422, "Invalid", `PodLogOptions "web-2" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{"/api/v1/namespaces/default/pods/web-2/log?limitBytes=0", 422, "Invalid", `PodLogOptions "web-2" is invalid: limitBytes: Invalid value: 0: must be greater than 0`},
		{"/api/v1/namespaces/default/pods/web-2/log?sinceSeconds=0", 422, "Invalid", `PodLogOptions "web-2" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0`},
		{"/api/v1/namespaces/default/pods/web-2/log?sinceSeconds=10&sinceTime=2025-11-20T09:00:00Z", 422, "Invalid", "PodLogOptions \"web-2\" is invalid: []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"},
		{"/api/v1/namespaces/default/pods/web-2/log?stream=Stdout", 422, "Invalid", `PodLogOptions "web-2" is invalid: stream: Forbidden: may not be specified`},
		{"/api/v1/namespaces/default/pods/web-2/log?tailLines=x", 400, "BadRequest", `strconv.ParseInt: parsing "x": invalid syntax`},
		{"/api/v1/namespaces/default/pods/web-2/log?sinceTime=yesterday", 400, "BadRequest", `parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		// Options are validated before the pod is looked up.
		{"/api/v1/namespaces/default/pods/nope/log?tailLines=-1", 422, "Invalid", ""},
	} {
		t.Run(tc.path, func(t *testing.T) { wantStatus(t, get(t, srv, tc.path), tc.code, tc.reason, tc.msg) })
	}
}

// TestLogLayouts serves logs from every layout troubleshoot wrote, with
// timestamps, since and the warnings of a log without timestamps.
func TestLogLayouts(t *testing.T) {
	srv := newHandlerServer(t, load(t, servetest.LogLayouts().WriteDir(t, t.TempDir())))
	ts := func(i int) string { return servetest.SetupLogTimes[i].Format("2006-01-02T15:04:05.000000000Z07:00") }
	const setup = "/api/v1/namespaces/default/pods/web-1/log?container=setup"
	noTimestamps := `299 - "the log of container \"app\" of pod \"web-2\" in namespace \"default\" in this support bundle has no timestamps: %s cannot be applied (collect logs with timestamps to use them)"`
	for _, tc := range []struct {
		path, want, warning string
	}{
		{"/api/v1/namespaces/team-a/pods/job-x/log", "job-x main line 1\njob-x main line 2\n", ""},
		{"/api/v1/namespaces/team-a/pods/web-3/log?container=app&tailLines=1", "web-3 app line 3\n", ""},
		// The canonical file wins over a legacy copy.
		{"/api/v1/namespaces/default/pods/web-2/log?tailLines=1", "web-2 app line 4\n", ""},
		// Timestamps are the log's own, shown only when asked for.
		{setup, "setup step 1\nsetup step 2\nsetup step 3\nsetup step 4\n", ""},
		{setup + "&timestamps=true&tailLines=2", ts(2) + " setup step 3\n" + ts(3) + " setup step 4\n", ""},
		// since counts back from the collection.
		{setup + "&sinceSeconds=3600", "setup step 3\nsetup step 4\n", ""},
		{setup + "&sinceTime=2025-11-20T07:30:00Z", "setup step 2\nsetup step 3\nsetup step 4\n", ""},
		// The server passes sinceTime on in whole seconds.
		{setup + "&sinceTime=2025-11-20T09:30:00.5Z&timestamps=1", ts(2) + " setup step 3\n" + ts(3) + " setup step 4\n", ""},
		{setup + "&sinceSeconds=3600&tailLines=3&limitBytes=40&timestamps=true", (ts(2) + " setup step 3\n" + ts(3))[:40], ""},
		{"/api/v1/namespaces/default/pods/web-2/log?timestamps=true&tailLines=1", "web-2 app line 4\n", strings.Replace(noTimestamps, "%s", "timestamps", 1)},
		{"/api/v1/namespaces/default/pods/web-2/log?timestamps=true&sinceSeconds=5", "web-2 app line 1\nweb-2 app line 2\nweb-2 app line 3\nweb-2 app line 4\n", strings.Replace(noTimestamps, "%s", "timestamps and since", 1)},
	} {
		r := get(t, srv, tc.path)
		if r.code != http.StatusOK || r.body != tc.want || r.header.Get("Warning") != tc.warning {
			t.Errorf("%s: %d %q\nwarning %s\nwant %q\nwarning %s", tc.path, r.code, r.body, r.header.Get("Warning"), tc.want, tc.warning)
		}
	}
	wantStatus(t, get(t, srv, "/api/v1/namespaces/kube-system/pods/coredns-abc/log"), 404, "NotFound",
		`the logs of container "coredns" of pod "coredns-abc" in namespace "kube-system" were not collected in this support bundle: failed to get log stream: the server has asked for the client to provide credentials`)
}

// TestAmbiguousLog: a legacy log file whose path names no namespace,
// when pods of that name are in two namespaces, is served for each, with
// a Warning naming the file and the other pod (contract.MapPodLogs).
func TestAmbiguousLog(t *testing.T) {
	f := servetest.LogLayouts()
	for _, ns := range []string{"default", "team-a"} {
		p := path.Join(contract.ClusterResourcesDir, "pods", ns+".json")
		var list map[string]any
		if err := json.Unmarshal(f[p], &list); err != nil {
			t.Fatal(err)
		}
		list["items"] = append(list["items"].([]any), map[string]any{
			"metadata": map[string]any{"name": "db-0", "namespace": ns, "uid": "db-0-" + ns},
			"spec":     map[string]any{"nodeName": "node-1", "containers": []any{map[string]any{"name": "postgres"}}},
		})
		data, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		f[p] = data
	}
	f["kots/admin_console/db-0.log"] = []byte("a postgres line\n")
	srv := newHandlerServer(t, load(t, f.WriteDir(t, t.TempDir())))
	for ns, other := range map[string]string{"default": "team-a", "team-a": "default"} {
		r := get(t, srv, "/api/v1/namespaces/"+ns+"/pods/db-0/log")
		want := `299 - "kots/admin_console/db-0.log, the file this support bundle holds for this log, names no namespace and may be the log of pod ` + other + `/db-0 instead: troubleshoot wrote the logs of pods of the same name to one file, the last one winning"`
		if r.code != http.StatusOK || r.body != "a postgres line\n" || r.header.Get("Warning") != want {
			t.Errorf("%s/db-0: %d %q\nwarning %s\nwant %s", ns, r.code, r.body, r.header.Get("Warning"), want)
		}
	}
	// A log the file holds for one pod only has no warning.
	if r := get(t, srv, "/api/v1/namespaces/team-a/pods/job-x/log"); r.code != http.StatusOK || r.header.Get("Warning") != "" {
		t.Errorf("job-x: %d, warning %q", r.code, r.header.Get("Warning"))
	}
}

func TestTailStart(t *testing.T) {
	long := strings.Repeat("x", tailBlock+7) + "\n"
	for _, tc := range []struct {
		in   string
		n    int64
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\nc\n", 5, "a\nb\nc\n"},
		{"a\nb\nc\n", -1, "a\nb\nc\n"},
		{"a\nb\nc\n", 0, ""},
		{"", 3, ""},
		{"\n\n", 1, "\n"},
		// Lines across blocks.
		{"first\n" + long + long + "last\n", 3, long + long + "last\n"},
		{"first\n" + long + long + "last\n", 4, "first\n" + long + long + "last\n"},
		{strings.Repeat("y\n", 3*tailBlock), 2*tailBlock + 1, strings.Repeat("y\n", 2*tailBlock+1)},
	} {
		r := strings.NewReader(tc.in)
		start, err := tailStart(r, tc.n)
		if got := tc.in[start:]; err != nil || got != tc.want {
			t.Errorf("tailStart(%.20q…, %d) = %d %v: %.40q, want %.40q", tc.in, tc.n, start, err, got, tc.want)
		}
	}
}

// TestLogReader copies a line longer than the reader's buffer, with its
// timestamp stripped and the byte limit applied inside it, and tells the
// kubelet's timestamps from an application's.
func TestLogReader(t *testing.T) {
	line := "2025-11-20T09:00:00.000000000Z " + strings.Repeat("z", 200<<10) + "\n"
	appTime := "2025-11-18T06:43:22.012Z INF started\n"
	offset := "2025-11-20T11:00:00.000000000+01:00 x\n"
	for _, tc := range []struct {
		in   string
		opts logOpts
		want string
	}{
		{line, logOpts{limitBytes: -1}, line[31:]},
		{line, logOpts{limitBytes: 100 << 10}, line[31 : 31+100<<10]},
		{line, logOpts{limitBytes: -1, timestamps: true}, line},
		// Only the kubelet's form is a timestamp of the collection.
		{appTime, logOpts{limitBytes: -1}, appTime},
		{offset, logOpts{limitBytes: -1}, "x\n"},
		{offset, logOpts{limitBytes: -1, timestamps: true}, offset},
	} {
		var out bytes.Buffer
		lr := &logReader{r: bufioReader(tc.in), opts: tc.opts}
		lr.timestamped = lr.startsWithTimestamp()
		lr.copyTo(&out)
		if out.String() != tc.want {
			t.Errorf("%+v: %d bytes, want %d", tc.opts, out.Len(), len(tc.want))
		}
	}
}

// TestContainersOf reads container names from a pod's compact JSON without
// decoding it, init and ephemeral containers included, in the order the
// server's messages list them.
func TestContainersOf(t *testing.T) {
	pod := rawjson.AppendCompact(nil, []byte(`{"metadata":{"name":"p"},"spec":{
		"initContainers":[{"name":"setup","image":"x","command":["sh","-c","echo {\"name\":\"fake\"}"]}],
		"containers":[{"image":"y","name":"app"},{"name":"side\u0063ar"}],
		"ephemeralContainers":[{"name":"debugger"}]},
		"status":{"containerStatuses":[{"name":"not-a-spec-container"}]}}`))
	p := containersOf(pod)
	if got := strings.Join(p.all(), ","); got != "setup,app,sidecar,debugger" {
		t.Errorf("containers %s", got)
	}
	if _, err := chooseContainer("", "p", p); err == nil || err.Error() != "a container name must be specified for pod p, choose one of: [setup app sidecar debugger]" {
		t.Errorf("no container: %v", err)
	}
	if c, err := chooseContainer("debugger", "p", p); err != nil || c != "debugger" {
		t.Errorf("ephemeral container: %q %v", c, err)
	}
	single := containersOf([]byte(`{"spec":{"containers":[{"name":"only"}]}}`))
	if c, err := chooseContainer("", "p", single); err != nil || c != "only" {
		t.Errorf("the only container: %q %v", c, err)
	}
	if got := containersOf([]byte(`{"metadata":{"name":"no-spec"}}`)).all(); len(got) != 0 {
		t.Errorf("no spec: %v", got)
	}
}

// TestKubeletLogError answers, for a container whose log the bundle does
// not hold, what the kubelet answered given the status the bundle
// recorded (validateContainerLogStatus), or nil where it had a log.
func TestKubeletLogError(t *testing.T) {
	pod := func(status string) []byte { return []byte(`{"status":{"initContainerStatuses":[` + status + `]}}`) }
	for _, tc := range []struct {
		status   string
		previous bool
		want     string
	}{
		{`{"name":"other"}`, false, `container "c" in pod "p" is not available`},
		{`{"name":"c","state":{"running":{}}}`, false, ""},
		{`{"name":"c","state":{"running":{}}}`, true, `previous terminated container "c" in pod "p" not found`},
		{`{"name":"c","state":{"running":{}},"lastState":{"terminated":{"containerID":"containerd://1"}}}`, true, ""},
		{`{"name":"c","state":{"terminated":{"containerID":"containerd://2"}}}`, false, ""},
		{`{"name":"c","state":{"terminated":{"exitCode":1}}}`, false, `container "c" in pod "p" is terminated`},
		{`{"name":"c","state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"containerID":"containerd://1"}}}`, false, ""},
		{`{"name":"c","state":{"waiting":{"reason":"ContainerCreating"}}}`, false, `container "c" in pod "p" is waiting to start: ContainerCreating`},
		{`{"name":"c","state":{"waiting":{"reason":"ImagePullBackOff"}}}`, false, `container "c" in pod "p" is waiting to start: trying and failing to pull image`},
		{`{"name":"c","state":{"waiting":{"reason":"ErrImagePull"}}}`, false, `container "c" in pod "p" is waiting to start: image can't be pulled`},
		{`{"name":"c","state":{}}`, false, `container "c" in pod "p" is waiting to start - no logs yet`},
	} {
		err := kubeletLogError(pod(tc.status), "p", "c", tc.previous)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s previous=%v: %q, want %q", tc.status, tc.previous, got, tc.want)
		}
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 4096) }

// TestLogMemory reads the end of a 32 MiB log, and its start under a
// byte limit, without memory that follows the file: issue 18 measured
// 850 MB for --tail=1 of an 800 MB log when the whole file was read.
func TestLogMemory(t *testing.T) {
	files := servetest.Small()
	big := bytes.Repeat([]byte("a line of a big log, long enough to count\n"), 32<<20/42)
	files["cluster-resources/pods/logs/default/web-2/app.log"] = append(big, "the last line\n"...)
	srv := newHandlerServer(t, load(t, files.WriteDir(t, t.TempDir())))
	for _, tc := range []struct{ query, want string }{
		{"tailLines=1", "the last line\n"},
		{"limitBytes=6", "a line"},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r := get(t, srv, "/api/v1/namespaces/default/pods/web-2/log?"+tc.query)
		runtime.ReadMemStats(&after)
		if r.body != tc.want {
			t.Errorf("%s: %q", tc.query, r.body)
		}
		// Client and server in one process: both count.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: %d bytes allocated for a 32 MiB log", tc.query, alloc)
		}
	}
}

// TestKubeletLogFailure: where the kubelet could not read a log (the
// container was removed while its pod crash-loops) it writes its error as
// the body of an answer already begun, and the collector stores that as
// the log (seen on kind 1.37 for a crash-looping pod's previous log). The
// live server prints it with no timestamps, and no warning: served the
// same, whatever timestamps, since or tailLines ask for.
func TestKubeletLogFailure(t *testing.T) {
	const failure = "unable to retrieve container logs for containerd://4c9b37869f8b36ba1cec3a0fee7431c61b8daab66005df44717416ad1f3dee5c"
	f := servetest.LogLayouts()
	f[path.Join(contract.ClusterResourcesDir, "pods", "logs", "default", "web-2", "app.log")] = []byte(failure)
	srv := newHandlerServer(t, load(t, f.WriteDir(t, t.TempDir())))
	for _, q := range []string{"", "?timestamps=true", "?timestamps=true&sinceSeconds=60", "?tailLines=1&sinceTime=2025-11-20T07:30:00Z"} {
		r := get(t, srv, "/api/v1/namespaces/default/pods/web-2/log"+q)
		if r.code != http.StatusOK || r.body != failure || r.header.Get("Warning") != "" {
			t.Errorf("%s: %d %q, warning %q; want the kubelet's message and no warning", q, r.code, r.body, r.header.Get("Warning"))
		}
	}
	// A log that only begins with such a line is a log without
	// timestamps, and warned of.
	f[path.Join(contract.ClusterResourcesDir, "pods", "logs", "default", "web-2", "app.log")] = []byte(failure + "\nanother line\n")
	srv = newHandlerServer(t, load(t, f.WriteDir(t, t.TempDir())))
	if r := get(t, srv, "/api/v1/namespaces/default/pods/web-2/log?timestamps=true"); r.header.Get("Warning") == "" {
		t.Error("a log of two lines without timestamps was served without a warning")
	}
}
