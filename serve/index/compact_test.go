package index

import "github.com/bundlectl/bundlectl/internal/rawjson"

// compact returns data without insignificant white space, checking that
// it is valid JSON.
func compact(data []byte) ([]byte, error) {
	if err := rawjson.Check(data); err != nil {
		return nil, err
	}
	return rawjson.AppendCompact(make([]byte, 0, len(data)), data), nil
}
