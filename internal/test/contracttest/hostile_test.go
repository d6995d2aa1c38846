package contracttest

import (
	"os"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

// The hostile corpus is what it says: small archives, the huge entries
// declared at full size, and, at a size that can be read, every stream
// valid down to the gzip checksum (so each case is refused for what it
// holds, not for a broken generator).
func TestWriteHostileCorpus(t *testing.T) {
	corpus, err := WriteHostileCorpus(t.TempDir(), HostileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, h := range corpus {
		if names[h.Name] {
			t.Errorf("two cases named %s", h.Name)
		}
		names[h.Name] = true
		fi, err := os.Stat(h.Path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 8<<20 {
			t.Errorf("%s: the archive is %d bytes", h.Name, fi.Size())
		}
		if h.Failsafe && h.Rel == "" || h.Want == "" || h.Accepted && (h.Failsafe || h.TablePath == "") {
			t.Errorf("%s: incomplete case %+v", h.Name, h)
		}
	}
	for _, want := range []string{"absolute-path", "dot-dot", "symlink-out", "hardlink-out", "gzip-bomb", "huge-json",
		"truncated-gzip", "truncated-tar", "corrupt-header", "duplicate", "invalid-json", "deep-json", "wrong-kind",
		"yaml-not-yaml", "non-utf8-name", "metadata-number", "big-configmap", "big-secret", "big-custom-resource",
		"early-decoys", "early-oversize", "pax-long-path", "pax-long-linkpath", "pax-comment", "pax-xattr",
		"big-crd-list-many", "big-crd-list-huge", "linked-lists", "backslash-name", "two-roots", "discovery-invalid-group",
		"gzip-long-name", "v7-tar"} {
		if !names[want] {
			t.Errorf("no %s case", want)
		}
	}

	small, err := WriteHostileCorpus(t.TempDir(), HostileOptions{HugeJSONSize: 3 << 20, BombSize: 3 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range small {
		if !h.Huge {
			continue
		}
		b, err := contract.Open(h.Path, contract.DefaultLimits)
		if err != nil {
			t.Fatalf("%s at 3 MB: %v", h.Name, err)
		}
		var size int64
		err = b.Walk(func(e *contract.Entry) error {
			if e.Name != h.Entry {
				return nil
			}
			data, err := e.ReadAll()
			size = int64(len(data))
			if err == nil && h.Name == "huge-json" {
				var l *contract.List
				if l, err = contract.DecodeList(data, contract.FormatJSON); err == nil && len(l.Items) < 1000 {
					t.Errorf("%s: %d items", h.Name, len(l.Items))
				}
			}
			return err
		})
		if err != nil || size != 3<<20 {
			t.Errorf("%s at 3 MB: %d bytes, %v", h.Name, size, err)
		}
	}
}
