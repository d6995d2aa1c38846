package contract_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sigsjson "sigs.k8s.io/json"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// FuzzDecodeList decodes arbitrary bytes as every legacy list shape, in
// JSON and YAML, and holds the one-pass scanner to encoding/json: a list
// it accepts has items that are JSON objects, and each item's kind,
// apiVersion, name and namespace are what encoding/json decodes (the last
// of duplicated keys, escapes resolved). The kind check never panics.
// Seeds: testdata/fuzz/FuzzDecodeList (every list shape of the example
// bundle and the decode tests), and the cases below.
func FuzzDecodeList(f *testing.F) {
	for _, s := range []string{
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"687"},"items":[{"metadata":{"name":"a","namespace":"n"}}]}`,
		`{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a.b.c"}}]}`,
		`[{"metadata":{"name":"a"}},{"kind":"Pod","metadata":{"name":"b","name":"c"}}]`,
		`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default"}}`,
		`{"items":[{"metadata":{"n\u0061me":"esc\"aped","namespace":"x"},"kind":"K\u0069nd"}]}`,
		`{"items":[{"metadata":{"name":"ab"}},{"metadata":{"name":"cd"}}],"kind":"PodList","items":[{"metadata":{"name":"ef"}},{"metadata":{"name":"g"}}]}`,
		`{"items":[{"metadata":{"name":"ab"}}],"items":null}`,
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("- apiVersion: velero.io/v1\n  kind: BackupStorageLocation\n  metadata:\n    name: default\n"), true)
	f.Add([]byte("- metadata:\n    name: e\n  spec:\n    ip: ***HIDDEN***\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, yaml bool) {
		defer watchdog(10 * time.Second)()
		format := contract.FormatJSON
		if yaml {
			format = contract.FormatYAML
		}
		l, err := contract.DecodeList(data, format)
		if trimmed := bytes.TrimSpace(data); !yaml && len(trimmed) > 0 && !json.Valid(trimmed) {
			// Validated as it is split: refused, where it goes wrong
			// named as a validation first would.
			if want := rawjson.Check(trimmed); err == nil || want == nil || err.Error() != want.Error() {
				t.Fatalf("invalid JSON %q: err %v, want %v", data, err, want)
			}
		}
		// ScanList reads what DecodeList reads, keeping the items asked for.
		even := func(name string) bool { return len(name)%2 == 0 }
		scanned, serr := contract.ScanList(data, format, even)
		if (serr == nil) != (err == nil) || err != nil && serr.Error() != err.Error() {
			t.Fatalf("ScanList: %v, DecodeList: %v", serr, err)
		}
		if err != nil {
			return
		}
		if scanned.Len() != len(l.Items) {
			t.Fatalf("ScanList: %d items, DecodeList: %d", scanned.Len(), len(l.Items))
		}
		j := 0
		for i := range l.Items {
			if _, name := l.ItemKey(i); !even(name) {
				continue
			}
			if j >= len(scanned.Items) || scanned.StorageKey(j) != l.StorageKey(i) || !bytes.Equal(scanned.Items[j], l.Items[i]) {
				t.Fatalf("ScanList kept %d items; DecodeList's item %d, %s, is not its %d", len(scanned.Items), i, l.StorageKey(i), j)
			}
			j++
		}
		if j != len(scanned.Items) {
			t.Fatalf("ScanList kept %d items, %d asked", len(scanned.Items), j)
		}
		if len(l.Items) > 0 {
			v, k := l.ItemType(0)
			if sv, sk := scanned.FirstItemType(); sv != v || sk != k {
				t.Fatalf("ScanList's first item is a %s %s, DecodeList's a %s %s", sv, sk, v, k)
			}
		}
		for i, item := range l.Items {
			if !json.Valid(item) || len(bytes.TrimSpace(item)) == 0 || bytes.TrimSpace(item)[0] != '{' {
				t.Fatalf("item %d is not a JSON object: %q", i, item)
			}
			var want struct {
				APIVersion any `json:"apiVersion"`
				Kind       any `json:"kind"`
				Metadata   struct {
					Name      any `json:"name"`
					Namespace any `json:"namespace"`
				} `json:"metadata"`
			}
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(item, &want); err != nil && !strings.HasPrefix(err.Error(), "json: cannot unmarshal") {
				t.Fatalf("item %d: %v, yet accepted: %s", i, err, item)
			}
			// A type error (metadata not an object) leaves the rest
			// decoded, as a key's last value: an item without a name
			// must have been refused, and the last of a duplicated key
			// read, below.
			str := func(v any) string { s, _ := v.(string); return s }
			ns, name := l.ItemKey(i)
			apiVersion, kind := l.ItemType(i)
			if name != str(want.Metadata.Name) || ns != str(want.Metadata.Namespace) || apiVersion != str(want.APIVersion) || kind != str(want.Kind) {
				t.Fatalf("item %d: scanned %q %q %q %q, the decoder says %q %q %q %q: %s", i,
					apiVersion, kind, ns, name, str(want.APIVersion), str(want.Kind), str(want.Metadata.Namespace), str(want.Metadata.Name), item)
			}
			if name == "" {
				t.Fatalf("item %d without a name accepted: %s", i, item)
			}
			if key := l.StorageKey(i); ns == "" && key != name || ns != "" && key != ns+"/"+name {
				t.Fatalf("item %d: storage key %q of %q %q", i, key, ns, name)
			}
		}
		for _, rel := range []string{"cluster-resources/pods/default.json", "cluster-resources/custom-resources/w.example.com/default.json"} {
			contract.CheckKinds(contract.Classify(rel), l)
		}
	})
}
