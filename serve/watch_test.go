package serve

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

type event struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// watchEvents reads a watch until the server ends it, and says how long
// the connection stayed open.
func watchEvents(t *testing.T, srv *httptest.Server, path string, headers ...string) ([]event, time.Duration) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("watch: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var events []event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		events = append(events, e)
	}
	return events, time.Since(start)
}

func eventNames(events []event) []string {
	var out []string
	for _, e := range events {
		m := e.Object["metadata"].(map[string]any)
		n, _ := m["name"].(string)
		out = append(out, e.Type+" "+n)
	}
	return out
}

func TestWatch(t *testing.T) {
	srv := testServer(t)
	x := load(t, smallBundle(t))

	// No resourceVersion: the current objects, then the connection stays
	// open until timeoutSeconds.
	events, open := watchEvents(t, srv, "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1")
	if got := strings.Join(eventNames(events), ","); got != "ADDED web-1,ADDED web-2" {
		t.Errorf("events %s", got)
	}
	if open < 900*time.Millisecond {
		t.Errorf("the watch closed after %v, before its timeout", open)
	}
	if events[0].Object["kind"] != "Pod" || events[0].Object["apiVersion"] != "v1" {
		t.Errorf("event object %v %v", events[0].Object["kind"], events[0].Object["apiVersion"])
	}

	// From the list's resourceVersion: nothing has changed since.
	events, _ = watchEvents(t, srv, "/api/v1/pods?watch=true&timeoutSeconds=1&resourceVersion="+x.ResourceVersion)
	if len(events) != 0 {
		t.Errorf("events after the snapshot: %v", eventNames(events))
	}

	// A watch list (client-go's WatchListClient): the objects, then the
	// bookmark that ends the initial events.
	events, _ = watchEvents(t, srv, "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	if got := strings.Join(eventNames(events), ","); got != "ADDED web-1,ADDED web-2,BOOKMARK " {
		t.Fatalf("events %s", got)
	}
	meta := events[2].Object["metadata"].(map[string]any)
	if meta["resourceVersion"] != x.ResourceVersion || meta["annotations"].(map[string]any)["k8s.io/initial-events-end"] != "true" {
		t.Errorf("bookmark %v", events[2].Object)
	}

	r := get(t, srv, "/api/v1/pods?watch=1&sendInitialEvents=true")
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", "")
}

func TestWatchOneObject(t *testing.T) {
	srv := testServer(t)
	for _, path := range []string{
		"/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1&fieldSelector=" + url.QueryEscape("metadata.name=web-2"),
		"/api/v1/watch/namespaces/default/pods/web-2?timeoutSeconds=1",
	} {
		events, _ := watchEvents(t, srv, path)
		if got := strings.Join(eventNames(events), ","); got != "ADDED web-2" {
			t.Errorf("%s: %s", path, got)
		}
	}
	r := get(t, srv, "/api/v1/watch/namespaces/default/pods/web-2?fieldSelector="+url.QueryEscape("metadata.name=web-1"))
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", "fieldSelector metadata.name doesn't match requested name")
}

func TestWatchTable(t *testing.T) {
	srv := testServer(t)
	// kubectl get -w: Tables of one row, the columns in the first only.
	events, _ := watchEvents(t, srv, "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=1", tableAccept)
	if len(events) != 2 {
		t.Fatalf("events %v", events)
	}
	for i, e := range events {
		if e.Object["kind"] != "Table" || len(e.Object["rows"].([]any)) != 1 {
			t.Fatalf("event %d: %v", i, e.Object)
		}
	}
	if events[0].Object["columnDefinitions"] == nil || events[1].Object["columnDefinitions"] != nil {
		t.Errorf("column definitions: %v / %v", events[0].Object["columnDefinitions"], events[1].Object["columnDefinitions"])
	}
}

func TestWatchEndsWhenServerStops(t *testing.T) {
	x := load(t, smallBundle(t))
	stop := make(chan struct{})
	srv := httptest.NewServer(NewHandler(x, HandlerOptions{Token: testToken, Stop: stop}))
	defer srv.Close()
	time.AfterFunc(200*time.Millisecond, func() { close(stop) })
	_, open := watchEvents(t, srv, "/api/v1/pods?watch=1")
	if open > 5*time.Second {
		t.Errorf("the watch outlived the server by %v", open)
	}
}

// TestBadResourceVersion refuses a resourceVersion that is not a number
// as the server's storage does (TestBadResourceVersionLive compares with
// it): a watch or a get with its error as a 500 (it is no API status),
// a list with a BadRequest; a watch never hangs open instead.
func TestBadResourceVersion(t *testing.T) {
	srv := testServer(t)
	const msg = `resourceVersion: Invalid value: "garbage": strconv.ParseUint: parsing "garbage": invalid syntax`
	for _, tc := range []struct {
		path   string
		code   int
		reason string
		msg    string
	}{
		{"/api/v1/pods?watch=true&resourceVersion=garbage", 500, "", msg},
		{"/api/v1/namespaces/default/pods/web-1?resourceVersion=garbage", 500, "", msg},
		{"/api/v1/namespaces/default/pods/nope?resourceVersion=garbage", 500, "", msg},
		{"/api/v1/pods?resourceVersion=garbage", 400, "BadRequest", "invalid resource version: " + msg},
	} {
		r := get(t, srv, tc.path)
		if r.code != tc.code {
			t.Errorf("%s: %d, want %d: %s", tc.path, r.code, tc.code, r.body)
			continue
		}
		s := decode(t, r)
		if s["kind"] != "Status" || s["message"] != tc.msg || (s["reason"] != nil) != (tc.reason != "") {
			t.Errorf("%s: %s", tc.path, r.body)
		}
	}
}

// TestWatchTimeouts: timeoutSeconds is read as kube-apiserver v1.37.1's
// handleWatch reads it. Negative, or so large that it wraps around in
// nanoseconds, the watch ends at once with no event (the server answers
// 200 and ends the stream before its events, but for a race); 0 or unset,
// it lasts the default; the largest that does not wrap, as long as asked.
// A watch that stayed open for a negative timeout was held forever.
func TestWatchTimeouts(t *testing.T) {
	srv := testServer(t)
	for _, q := range []string{"-1", "-9223372036", "9223372037", "18446744073"} {
		events, open := watchEvents(t, srv, "/api/v1/namespaces/default/pods?watch=1&timeoutSeconds="+q)
		if len(events) != 0 || open > 10*time.Second {
			t.Errorf("timeoutSeconds=%s: %v after %v, want no event at once", q, eventNames(events), open)
		}
	}
	for _, tc := range []struct {
		seconds *int64
		min     time.Duration
		max     time.Duration
	}{
		{nil, minRequestTimeout, 2 * minRequestTimeout},
		{ptr(int64(0)), minRequestTimeout, 2 * minRequestTimeout},
		{ptr(int64(1)), time.Second, time.Second},
		{ptr(int64(9223372036)), 9223372036 * time.Second, 9223372036 * time.Second},
		{ptr(int64(9223372037)), -1 << 63, -1},
		// -2^63 s is a whole number of 2^64 ns: 0, the default.
		{ptr(int64(-1 << 63)), minRequestTimeout, 2 * minRequestTimeout},
	} {
		if got := watchTimeout(tc.seconds); got < tc.min || got > tc.max {
			t.Errorf("watchTimeout(%v) = %v, want between %v and %v", tc.seconds, got, tc.min, tc.max)
		}
	}
}

func ptr[T any](v T) *T { return &v }
