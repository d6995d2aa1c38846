package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Concurrent first requests for a whole list wait for one compression.
func TestGzipCacheCompressesOnce(t *testing.T) {
	var c gzipCache
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]string, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = string(c.get("k", func() []byte {
				calls.Add(1)
				<-release
				return []byte("z")
			}))
		}()
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("compressed %d times, want once", n)
	}
	for i, g := range got {
		if g != "z" {
			t.Errorf("request %d got %q", i, g)
		}
	}
	if b := c.get("other", func() []byte { return []byte("o") }); string(b) != "o" {
		t.Errorf("another key: %q", b)
	}
}

// The body is indented as it is written, in parts split anywhere, and
// must be what json.Indent makes of it whole: the server's ?pretty=true.
func TestWriteIndented(t *testing.T) {
	for _, doc := range []string{
		`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}` + "\n",
		`{"a":[1,2,{"b":{}},[],[[]],"x\"y\\","{[,:]}"],"c":null,"d":true,"e":-1.5e3,"f":"\u00e9\\\""}`,
		`{"items":[{"metadata":{"name":"a"},"data":{"k":"` + strings.Repeat("v", 300) + `"}},{"metadata":{"name":"b"}}]}` + "\n",
		`  {"lead":"ing"}` + "\n",
	} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(doc), "", "  "); err != nil {
			t.Fatal(err)
		}
		for size := 1; size <= len(doc); size += max(1, size/2) {
			b := &body{}
			for i := 0; i < len(doc); i += size {
				b.addString(doc[i:min(i+size, len(doc))])
			}
			var got bytes.Buffer
			if err := b.writeIndented(&got); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() || b.indentedSize() != want.Len() {
				t.Fatalf("parts of %d bytes: size %d\n%s\nwant %d\n%s", size, b.indentedSize(), got.String(), want.Len(), want.String())
			}
		}
	}
}

// Answers carry the Date net/http would have added, of the second they
// were made in.
func TestDateHeader(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 30, 5, 0, time.UTC)
	for _, now := range []time.Time{at, at.Add(999 * time.Millisecond), at.Add(time.Second), at.Add(-time.Hour).In(time.FixedZone("x", 3600))} {
		if got, want := date(now), now.UTC().Format(http.TimeFormat); len(got) != 1 || got[0] != want {
			t.Errorf("date(%v) = %q, want %q", now, got, want)
		}
	}
	srv := testServer(t)
	before := time.Now().Truncate(time.Second)
	r := get(t, srv, "/api/v1/namespaces/default/pods/web-1", tableAccept)
	d, err := http.ParseTime(r.header.Get("Date"))
	if err != nil || len(r.header.Values("Date")) != 1 || d.Before(before) || d.After(time.Now()) {
		t.Errorf("Date %q (%v), asked at %v", r.header.Values("Date"), err, before)
	}
}
