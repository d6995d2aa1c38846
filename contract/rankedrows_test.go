package contract_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/contract"
)

func TestRankedRowsRoundTrip(t *testing.T) {
	in := &contract.RankedRows{Rows: []contract.RankedRow{
		{Name: "fast", Row: contract.RowCells{Cells: json.RawMessage(`["fast",1]`)}, TopRow: contract.RowCells{Cells: json.RawMessage(`["fast (default)",1]`)}},
		{Namespace: "a", Name: "x", Row: contract.RowCells{Cells: json.RawMessage(`["x"]`), Conditions: json.RawMessage(`[{"type":"Completed","status":"True"}]`)},
			TopRow: contract.RowCells{Cells: json.RawMessage(`["x*"]`)}},
	}}
	data, err := in.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(data), "}\n") {
		t.Errorf("no final newline: %q", data)
	}
	out, err := contract.ParseRankedRows(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, out); d != "" {
		t.Errorf("round trip (-in +out):\n%s", d)
	}
}

func TestParseRankedRowsRefuses(t *testing.T) {
	for data, want := range map[string]string{
		`[]`: "ranked rows: json: cannot unmarshal array",
		`{}`: `ranked rows: no "rows" array`,
		`{"rows":[{"row":{"cells":[]},"topRow":{"cells":[]}}]}`:                                                                  "ranked rows: row 0 has no name",
		`{"rows":[{"name":"a","row":{"cells":[]},"topRow":{"cells":[]}},{"name":"a","row":{"cells":[]},"topRow":{"cells":[]}}]}`: "ranked rows: row 1: a is ranked twice",
		`{"rows":[{"namespace":"n","name":"a","row":{"cells":[]},"topRow":{}}]}`:                                                 "ranked rows: row 0 (n/a): topRow: cells must be a JSON array",
		`{"rows":[{"name":"a","row":{"cells":{}},"topRow":{"cells":[]}}]}`:                                                       "ranked rows: row 0 (a): row: cells must be a JSON array",
		`{"rows":[{"name":"a","row":{"cells":[],"conditions":"x"},"topRow":{"cells":[]}}]}`:                                      "ranked rows: row 0 (a): row: conditions must be a JSON array",
	} {
		_, err := contract.ParseRankedRows([]byte(data))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", data, err, want)
		}
	}
}
