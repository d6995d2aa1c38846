package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestNewestObjectTime(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		keys       map[string]bool
		want       string
	}{
		{"indented", `{"items": [{"metadata": {"creationTimestamp": "2025-10-06T23:18:02Z"}}]}`, timeKeys, "2025-10-06T23:18:02Z"},
		{"compact, newest of several", `{"a":{"creationTimestamp":"2021-01-01T00:00:00Z","time":"2025-01-02T03:04:05Z"},"lastTimestamp":"2024-01-01T00:00:00Z"}`, timeKeys, "2025-01-02T03:04:05Z"},
		{"fraction and offset", `{"eventTime": "2025-10-06T23:18:01.123456+02:00"}`, timeKeys, "2025-10-06T21:18:01.123456Z"},
		{"tab and newline around the colon", "{\"renewTime\"\t:\n \"2025-10-06T23:18:36.000000Z\"}", timeKeys, "2025-10-06T23:18:36Z"},
		{"deletionTimestamp is in the future by design", `{"deletionTimestamp": "2030-01-01T00:00:00Z", "creationTimestamp": "2025-01-01T00:00:00Z"}`, timeKeys, "2025-01-01T00:00:00Z"},
		{"a custom resource's own fields", `{"spec": {"time": "2030-01-01T00:00:00Z"}, "metadata": {"creationTimestamp": "2025-01-01T00:00:00Z"}}`, customTimeKeys, "2025-01-01T00:00:00Z"},
		{"a value in an array is no member", `{"times": ["2030-01-01T00:00:00Z"]}`, timeKeys, ""},
		{"a member written inside a string", `{"message": "\"time\": \"2030-01-01T00:00:00Z\""}`, timeKeys, ""},
		{"not a time", `{"time": "2025-13-45T99:99:99Z", "creationTimestamp": "2025-01-0"}`, timeKeys, ""},
		{"cut short", `{"time": "2025-01-01T00:00`, timeKeys, ""},
		{"none", `{"items": []}`, timeKeys, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := new(timeScanner).newestObjectTime(strings.NewReader(tc.json), tc.keys)
			if err != nil {
				t.Fatal(err)
			}
			if s := formatOrEmpty(got); s != tc.want {
				t.Errorf("newest = %q, want %q", s, tc.want)
			}
		})
	}
}

// A member whose key and value straddle two reads is found whatever the
// split, and the newest wins across the whole stream.
func TestNewestObjectTimeAcrossReads(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"items": [`)
	want := time.Date(2025, 9, 11, 20, 55, 9, 0, time.UTC)
	for i := 0; b.Len() < 3<<20; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		ts := want.Add(-time.Duration(i%5000) * time.Second)
		if i == 4321 {
			ts = want
		}
		item, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": strings.Repeat("x", i%97), "creationTimestamp": ts}})
		b.Write(item)
	}
	b.WriteString("]}")
	data := b.Bytes()
	got, err := new(timeScanner).newestObjectTime(bytes.NewReader(data), timeKeys)
	if err != nil || !got.Equal(want) {
		t.Errorf("newest = %v, %v; want %v", got, err, want)
	}
	// One byte at a time: every read ends inside some member.
	small := data[:200<<10]
	wantSmall := newestByDecoding(t, append(append([]byte{}, small[:bytes.LastIndexByte(small, '}')+1]...), "]}"...))
	got, err = new(timeScanner).newestObjectTime(iotest.OneByteReader(bytes.NewReader(small)), timeKeys)
	if err != nil || !got.Equal(wantSmall) {
		t.Errorf("one byte at a time: newest = %v, %v; want %v", got, err, wantSmall)
	}
	// Every offset of one member around the 256 KB buffer's end.
	member := `"creationTimestamp": "2026-01-02T03:04:05Z"`
	for pad := 256<<10 - 200; pad < 256<<10+50; pad++ {
		doc := `{"a": "` + strings.Repeat(" ", pad) + `", ` + member + `}`
		got, err := new(timeScanner).newestObjectTime(strings.NewReader(doc), timeKeys)
		if err != nil || formatOrEmpty(got) != "2026-01-02T03:04:05Z" {
			t.Fatalf("member at %d: newest = %v, %v", pad, got, err)
		}
	}
}

// newestByDecoding is what the scanner must find, read the slow way.
func newestByDecoding(t *testing.T, data []byte) time.Time {
	t.Helper()
	var doc struct {
		Items []struct {
			Metadata struct {
				CreationTimestamp time.Time `json:"creationTimestamp"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var newest time.Time
	for _, it := range doc.Items {
		if it.Metadata.CreationTimestamp.After(newest) {
			newest = it.Metadata.CreationTimestamp
		}
	}
	return newest
}

func formatOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// BenchmarkNewestObjectTime reads a list of realistic pods, as the first
// pass does for every list: its MB/s is what the scan costs per byte.
func BenchmarkNewestObjectTime(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00", "cluster-resources", "pods", "shop.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	var s timeScanner
	for b.Loop() {
		if _, err := s.newestObjectTime(bytes.NewReader(data), timeKeys); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzNewestObjectTime: however a list is cut into reads, the scanner
// finds what one look at the whole finds.
func FuzzNewestObjectTime(f *testing.F) {
	f.Add([]byte(`{"items":[{"metadata":{"creationTimestamp":"2025-10-06T23:18:02Z"}}]}`), uint16(7))
	f.Add([]byte(`{"time" : "2025-01-02T03:04:05.123+02:00","eventTime":"2024-01-01T00:00:00.000000Z"}`), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		want := newestIn(data, len(data), timeKeys)
		var s timeScanner
		s.buf = make([]byte, timeWindow+64+int(cut)%512) // small reads, many cuts
		got, err := s.newestObjectTime(iotest.HalfReader(bytes.NewReader(data)), timeKeys)
		if err != nil || !got.Equal(want) {
			t.Fatalf("streamed %v (%v), whole %v", got, err, want)
		}
	})
}
