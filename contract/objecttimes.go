package contract

import (
	"bytes"
	"io"
	"time"
)

// A bundle's objects tell, better than any file time, when it was
// collected: the apiserver stamps creationTimestamp and every
// managedFields entry with its own clock (a node's lease is renewed every
// ten seconds, so its managedFields time is within seconds of the
// collection), and the printers compute every age of a table from a few
// more fields. No list was taken before its newest such time, and a
// collection time before it would print that object's age as <invalid>,
// as no live server did. The first pass reads every list anyway, so it
// notes the newest of them (newestObjectTime) without decoding anything.

// timeKeys are the members whose times the printers show as a duration
// until now (AGE, LAST SEEN, restarts' "(5m ago)", a running Job's
// DURATION, a CronJob's LAST SCHEDULE), managedFields' time, and the
// times a live cluster renews all along (a lease's renewTime, a node
// condition's lastHeartbeatTime), which tell how recent the collection
// is. A deletionTimestamp is left out: it is set in the future, when
// the grace period ends.
var timeKeys = map[string]bool{
	"creationTimestamp": true, "time": true, "renewTime": true, "lastHeartbeatTime": true,
	"firstTimestamp": true, "lastTimestamp": true, "eventTime": true, "lastObservedTime": true,
	"deprecatedFirstTimestamp": true, "deprecatedLastTimestamp": true,
	"finishedAt": true, "startTime": true, "completionTime": true, "lastScheduleTime": true,
}

// customTimeKeys are the members read in a custom resource's list, whose
// other fields are the resource author's: a "time" there can be anything,
// a certificate's expiry included.
var customTimeKeys = map[string]bool{"creationTimestamp": true}

// maxTimeKey is the longest key the scanner looks back for.
const maxTimeKey = len("deprecatedFirstTimestamp")

// timeWindow is how much of a read the scanner keeps for the next one, so
// that a member split between two reads is still seen whole: the key,
// the space and colon around it, and the longest RFC 3339 value.
const timeWindow = 128

// timeScanner finds the newest object time of lists (newestObjectTime);
// the first pass keeps one, so that its buffer is made once.
type timeScanner struct {
	buf []byte
}

// newestObjectTime reads a JSON list (or any JSON) to its end and returns
// the newest time found in one of keys' members, zero when none. It
// does not parse the JSON: it finds each string that starts like an RFC
// 3339 time ("20dd-dd-ddT") and reads the key before it, which a JSON
// writer puts right before its value, whatever the indentation.
func (s *timeScanner) newestObjectTime(r io.Reader, keys map[string]bool) (time.Time, error) {
	if s.buf == nil {
		s.buf = make([]byte, 256<<10)
	}
	var newest time.Time
	kept := 0 // bytes at the start of buf carried over from the last read
	for {
		n, err := io.ReadFull(r, s.buf[kept:])
		data := s.buf[:kept+n]
		last := err != nil
		// Values that start in the last timeWindow bytes may be cut; they
		// are read again at the start of the next buffer.
		end := len(data)
		if !last && end > timeWindow {
			end -= timeWindow
		}
		if t := newestIn(data, end, keys); t.After(newest) {
			newest = t
		}
		if last {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = nil
			}
			return newest, err
		}
		// Keep the window, and the key context before it.
		kept = copy(s.buf, data[max(end-maxTimeKey-8, 0):])
	}
}

// newestIn is the newest time of keys' members whose values start in
// data[:end]. It looks for the T of each "20dd-dd-ddT: a quote is every
// few bytes of JSON, a T a hundred times less often.
func newestIn(data []byte, end int, keys map[string]bool) time.Time {
	var newest time.Time
	for i := 11; i < end+11 && i < len(data); {
		j := bytes.IndexByte(data[i:min(end+11, len(data))], 'T')
		if j < 0 {
			break
		}
		q := i + j - 11 // the value's opening quote
		if data[q] == '"' && data[q+1] == '2' && data[q+2] == '0' {
			if t, ok := timeAt(data, q, keys); ok && t.After(newest) {
				newest = t
			}
		}
		i += j + 1
	}
	return newest
}

// timeAt reads the RFC 3339 string value whose opening quote is at
// data[q] and the key before it; ok when the key is one of keys and the
// value is a time.
func timeAt(data []byte, q int, keys map[string]bool) (time.Time, bool) {
	// The value: "2006-01-02T15:04:05[.frac](Z|±07:00)", at most 36 bytes.
	const minLen, maxLen = len(`"2006-01-02T15:04:05Z"`), len(`"2006-01-02T15:04:05.999999999+07:00"`)
	if len(data)-q < minLen || data[q+11] != 'T' || data[q+5] != '-' || data[q+8] != '-' {
		return time.Time{}, false
	}
	close := bytes.IndexByte(data[q+1:min(len(data), q+maxLen)], '"')
	if close < 0 {
		return time.Time{}, false
	}
	value := data[q+1 : q+1+close]
	// The key: `"name"`, optional space, a colon, optional space.
	k := q - 1
	for k >= 0 && isJSONSpace(data[k]) {
		k--
	}
	if k < 0 || data[k] != ':' {
		return time.Time{}, false
	}
	k--
	for k >= 0 && isJSONSpace(data[k]) {
		k--
	}
	if k < 1 || data[k] != '"' {
		return time.Time{}, false
	}
	open := bytes.LastIndexByte(data[max(0, k-maxTimeKey-1):k], '"')
	if open < 0 {
		return time.Time{}, false
	}
	key := data[max(0, k-maxTimeKey-1)+open+1 : k]
	if !keys[string(key)] {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(value))
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// objectTime is the newest object time of one candidate root's lists.
type objectTime struct {
	t   time.Time
	rel string // the list it is in
}

// listTimes notes the newest object time of one list entry in the first
// pass, under the root candidate it would belong to (the root is known
// only when the pass ends).
type listTimes struct {
	root, rel string
	keys      map[string]bool
	into      map[string]objectTime
	scanner   *timeScanner
}

// newListTimes is nil for an entry that is not a raw JSON list the
// bundle stored (tables and converted lists are the upgrade's).
func newListTimes(root, rel string, into map[string]objectTime, scanner *timeScanner) *listTimes {
	c := Classify(rel)
	if c.Class != ClassResourceList || c.Format != FormatJSON || c.Converted {
		return nil
	}
	keys := timeKeys
	if c.Custom {
		keys = customTimeKeys
	}
	return &listTimes{root: root, rel: rel, keys: keys, into: into, scanner: scanner}
}

func (l *listTimes) read(r io.Reader) error {
	t, err := l.scanner.newestObjectTime(r, l.keys)
	if err != nil {
		return err
	}
	l.note(t)
	return nil
}

// readBytes reads a list the first pass holds already.
func (l *listTimes) readBytes(data []byte) {
	l.note(newestIn(data, len(data), l.keys))
}

func (l *listTimes) note(t time.Time) {
	if t.After(l.into[l.root].t) {
		l.into[l.root] = objectTime{t: t, rel: l.rel}
	}
}

// readEntry reads the entry's content: an archive's as it streams by, a
// folder's file from disk.
func (l *listTimes) readEntry(re rawEntry) error {
	if re.r != nil {
		return l.read(re.r)
	}
	if re.open == nil {
		return nil
	}
	f, err := re.open()
	if err != nil {
		return err
	}
	defer f.Close()
	return l.read(io.LimitReader(f, re.hdr.Size))
}
