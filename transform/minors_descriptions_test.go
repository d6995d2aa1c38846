package transform

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestMinorDescriptions holds transform/minors_descriptions.json.gz to the
// column definitions every recorded minor's printers declared: for each
// minor older than the pin, each description that differs from the
// pinned printers' (or whose column the pinned printers lack). -update
// writes it.
func TestMinorDescriptions(t *testing.T) {
	pinned := recordedColumns(t, contract.PinnedMinor)
	if len(pinned.Columns) == 0 {
		t.Fatalf("the %s recording has no columns: make record-printers", contract.PinnedMinor)
	}
	want := minorDescriptionsFile{}
	for m := contract.MinorNumber(contract.OldestMinor); m < contract.MinorNumber(contract.PinnedMinor); m++ {
		minor := fmt.Sprintf("1.%d", m)
		rec := recordedColumns(t, minor)
		if len(rec.Columns) == 0 {
			t.Fatalf("the %s recording has no columns: make record-printers", minor)
		}
		for kind, columns := range rec.Columns {
			// A kind removedKinds prints at this minor starts from no
			// description at all, whether the pin has it or not.
			pinnedDesc := map[string]string{}
			if !removedAt(kind, m) {
				for _, c := range pinned.Columns[kind] {
					pinnedDesc[c.Name] = c.Description
				}
			}
			for _, c := range columns {
				if d, ok := pinnedDesc[c.Name]; ok && d == c.Description {
					continue
				}
				if want[minor] == nil {
					want[minor] = map[string]map[string]string{}
				}
				if want[minor][kind] == nil {
					want[minor][kind] = map[string]string{}
				}
				want[minor][kind][c.Name] = c.Description
			}
		}
	}
	const path = "minors_descriptions.json.gz"
	if testenv.Update() {
		data, err := json.MarshalIndent(want, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", path, buf.Len())
		return
	}
	got, err := readMinorDescriptions(minorDescriptionsGz)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s is not what the recordings declare: go test -run %s -update, and build again", path, t.Name())
	}
}

// recordedColumns reads the column definitions of a minor's recording
// (testdata/printers/1.NN.json.gz).
func recordedColumns(t *testing.T, minor string) (rec struct {
	Kubernetes string                                    `json:"kubernetes"`
	Columns    map[string][]metav1.TableColumnDefinition `json:"columns"`
}) {
	t.Helper()
	path := filepath.Join("..", "testdata", "printers", minor+".json.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

// TestRemovedKinds holds removedKinds to the recordings: a minor's
// printers printed exactly the removed kinds whose minors cover it among
// the kinds the pinned printers lack, with the columns (names, types,
// formats and priorities) written for them; a kind the pin still prints
// but removedKinds covers at a minor has that minor's columns too.
func TestRemovedKinds(t *testing.T) {
	pinned := recordedColumns(t, contract.PinnedMinor)
	byKind := map[string]removedKind{}
	for gk, k := range removedKinds {
		byKind[gk.Kind] = k
	}
	for m := contract.MinorNumber(contract.OldestMinor); m < contract.MinorNumber(contract.PinnedMinor); m++ {
		minor := fmt.Sprintf("1.%d", m)
		rec := recordedColumns(t, minor)
		for kind, columns := range rec.Columns {
			k, ok := byKind[kind]
			covered := ok && m >= k.since && m <= k.upTo
			if _, ok := pinned.Columns[kind]; ok && !covered {
				continue
			}
			if !covered {
				t.Errorf("%s printed %s, which the pin lacks and removedKinds does not cover at %s", minor, kind, minor)
				continue
			}
			var want, got []metav1.TableColumnDefinition
			for _, c := range columns {
				c.Description = ""
				want = append(want, c)
			}
			got = k.columns
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s's columns at %s: %+v, its printers declared %+v", kind, minor, got, want)
			}
		}
		for kind, k := range byKind {
			if _, ok := rec.Columns[kind]; !ok && m >= k.since && m <= k.upTo {
				t.Errorf("removedKinds has %s at %s, whose printers did not print it", kind, minor)
			}
		}
	}
}

// removedAt says whether removedKinds prints kind at minor m.
func removedAt(kind string, m int) bool {
	for gk := range removedKinds {
		if gk.Kind == kind {
			_, ok := removedKindFor(gk, m)
			return ok
		}
	}
	return false
}
