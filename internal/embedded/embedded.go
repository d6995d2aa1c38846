// Package embedded reads the data files compiled into bundlectl (gzipped
// JSON made by the scripts that record what older releases served).
package embedded

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
)

// GzipJSON decodes gzipped JSON into a T.
func GzipJSON[T any](gz []byte) (T, error) {
	var v T
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return v, err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return v, err
	}
	err = json.Unmarshal(data, &v)
	return v, err
}
