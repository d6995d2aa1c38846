package contract_test

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// fuzzLimits keep each input small enough to be read in a millisecond.
var fuzzLimits = contract.Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 4 << 20, MaxDecodeSize: 1 << 20}

// FuzzOpenArchive reads arbitrary bytes as a bundle archive from standard
// input, as `bundlectl inspect -` does, and decodes every list in it.
// Whatever the bytes, the reader does not panic, every error names the
// bundle (and is an EntryError once the archive is being read), and
// every entry it delivers has a clean name that stays inside the bundle.
// Seeds: testdata/fuzz/FuzzOpenArchive (the hostile corpus at a small
// size, plain and gzipped bundles), and the cases below.
func FuzzOpenArchive(f *testing.F) {
	f.Add(contracttest.Tar(f, []contracttest.File{{Name: "sb/cluster-resources/pods/default.json", Body: podList}}))
	f.Add(contracttest.Gzip(f, contracttest.Tar(f, []contracttest.File{
		{Name: "sb/version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"},
		{Name: "sb/cluster-resources/nodes.json", Body: `{"kind":"NodeList","items":[{"metadata":{"name":"n"}}]}`},
		{Name: "sb/cluster-resources/custom-resources/w.example.com/default.yaml", Body: "- metadata:\n    name: w\n"},
		{Name: "sb/cluster-resources/custom-resources/w.example.com/default.json", Typeflag: '2', Linkname: "default.yaml"},
	})))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(10 * time.Second)()
		checkKeptStream(t, data)
		b, err := contract.OpenReader("-", bytes.NewReader(data), fuzzLimits)
		if err != nil {
			checkFuzzError(t, err, len(data) > 0)
			return
		}
		defer func() {
			if err := b.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}()
		if b.Size > fuzzLimits.MaxTotalSize || b.LargestEntry > fuzzLimits.MaxEntrySize {
			t.Fatalf("opened past the limits: %d bytes, largest %d", b.Size, b.LargestEntry)
		}
		n := 0
		err = b.Walk(func(e *contract.Entry) error {
			n++
			checkName(t, e.Name)
			if e.InRoot {
				checkName(t, e.Rel)
			}
			if e.LinkRel != "" {
				checkName(t, e.LinkRel)
			}
			if !e.IsRegular() {
				return nil
			}
			data, err := e.ReadAll()
			if err != nil {
				return err
			}
			if int64(len(data)) != e.Header.Size {
				t.Fatalf("%s: read %d bytes, the header says %d", e.Name, len(data), e.Header.Size)
			}
			if e.InRoot && e.Class.Class == contract.ClassResourceList {
				if l, err := contract.DecodeList(data, e.Class.Format); err == nil {
					contract.CheckKinds(e.Class, l)
				}
			}
			return nil
		})
		if err != nil {
			checkFuzzError(t, err, true)
			return
		}
		if n != b.Entries {
			t.Errorf("walked %d entries, the first pass counted %d", n, b.Entries)
		}
	})
}

// checkKeptStream holds a bundle opened with KeepStream to one opened
// without: the same error or none, and walks that deliver the same
// entries, byte for byte, or fail the same way.
func checkKeptStream(t *testing.T, data []byte) {
	t.Helper()
	open := func(keep bool) (*contract.Bundle, error) {
		return contract.OpenContext(t.Context(), "-", contract.OpenOptions{Stdin: bytes.NewReader(data), Limits: fuzzLimits, KeepStream: keep})
	}
	plain, perr := open(false)
	kept, kerr := open(true)
	if fmt.Sprint(perr) != fmt.Sprint(kerr) {
		t.Fatalf("opened with KeepStream: %v; without: %v", kerr, perr)
	}
	if perr != nil {
		return
	}
	defer plain.Close()
	defer kept.Close()
	want, werr := walkEntries(t, plain)
	got, gerr := walkEntries(t, kept)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("walked with KeepStream: %d entries, %v; without: %d entries, %v", len(got), gerr, len(want), werr)
	}
}

// watchdog crashes the process when an input runs longer than d, so
// that the fuzzer keeps a hang as a failing input; call the function it
// returns when the input is done.
func watchdog(d time.Duration) func() {
	timer := time.AfterFunc(d, func() { panic(fmt.Sprintf("one input ran over %v", d)) })
	return func() { timer.Stop() }
}

// checkFuzzError checks that a reader's error names the bundle.
func checkFuzzError(t *testing.T, err error, entryError bool) {
	t.Helper()
	var ee *contract.EntryError
	if entryError && !errors.As(err, &ee) {
		t.Fatalf("error %v (%T) is not an EntryError", err, err)
	}
	if !strings.Contains(err.Error(), "-") {
		t.Fatalf("error %q does not name the bundle", err)
	}
}

// checkName fails on a name that is absolute, climbs out with "..", or
// is not clean.
func checkName(t *testing.T, name string) {
	t.Helper()
	if name == "" || strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../") ||
		strings.Contains(name, "/../") || path.Clean(name) != name || strings.ContainsRune(name, 0) {
		t.Fatalf("unsafe name %q delivered", name)
	}
}
