package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// RankedRows is what _meta/ranked-rows/{group|core}.{resource}.json holds
// (RankedRowsPath): the rows of a resource whose printer marks, in each
// list it prints, only the highest-ranked of some objects among those
// listed, and none in a single object's table (1.37's StorageClasses:
// " (default)" on the newest of the listed classes annotated default).
// A Table of a list shows TopRow for the highest-ranked of Rows it lists
// and Row for the others of Rows; a Table of one object (a GET, a watch
// event) shows Row. Objects not in Rows show their stored rows. Rows
// are made by upgrade, from the printers of the bundle's release.
type RankedRows struct {
	// Rows are highest rank first.
	Rows []RankedRow `json:"rows"`
}

// RankedRow is one object's two rows.
type RankedRow struct {
	Namespace string   `json:"namespace,omitempty"`
	Name      string   `json:"name"`
	Row       RowCells `json:"row"`
	TopRow    RowCells `json:"topRow"`
}

// RowCells are a Table row's cells and conditions, as the Table's JSON
// has them.
type RowCells struct {
	Cells      json.RawMessage `json:"cells"`
	Conditions json.RawMessage `json:"conditions,omitempty"`
}

// ParseRankedRows decodes and checks a ranked-rows file: every row names
// an object once and has cells, a JSON array, in both of its rows.
func ParseRankedRows(data []byte) (*RankedRows, error) {
	var r RankedRows
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("ranked rows: %w", err)
	}
	if r.Rows == nil {
		return nil, errors.New(`ranked rows: no "rows" array`)
	}
	seen := make(map[string]bool, len(r.Rows))
	for i, row := range r.Rows {
		if row.Name == "" {
			return nil, fmt.Errorf("ranked rows: row %d has no name", i)
		}
		key := row.Name
		if row.Namespace != "" {
			key = row.Namespace + "/" + row.Name
		}
		if seen[key] {
			return nil, fmt.Errorf("ranked rows: row %d: %s is ranked twice", i, key)
		}
		seen[key] = true
		if err := row.Row.check(); err != nil {
			return nil, fmt.Errorf("ranked rows: row %d (%s): row: %w", i, key, err)
		}
		if err := row.TopRow.check(); err != nil {
			return nil, fmt.Errorf("ranked rows: row %d (%s): topRow: %w", i, key, err)
		}
	}
	return &r, nil
}

func (c RowCells) check() error {
	if !isArray(c.Cells) {
		return errors.New("cells must be a JSON array")
	}
	if c.Conditions != nil && !isArray(c.Conditions) && !bytes.Equal(bytes.TrimSpace(c.Conditions), []byte("null")) {
		return errors.New("conditions must be a JSON array")
	}
	return nil
}

func isArray(data json.RawMessage) bool {
	return bytes.HasPrefix(bytes.TrimSpace(data), []byte("["))
}

// Marshal encodes the file as it is written, with a final newline.
func (r *RankedRows) Marshal() ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
