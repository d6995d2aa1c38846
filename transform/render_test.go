package transform

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/contract"
)

// Rendering a chunk at a time must give the bytes of rendering the whole
// list at once, for every convertor: rows never depend on each other.
func TestChunkedRenderingIsTheWholeTable(t *testing.T) {
	root := filepath.Join("..", "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	crdData, err := os.ReadFile(filepath.Join(root, contract.CRDListPath))
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := newCRDIndex(crdData)
	whole := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), crds)
	whole.chunk = 1 << 30
	chunked := *whole
	chunked.chunk = 1
	convertors := map[Convertor]bool{}
	err = filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		c := contract.Classify(rel)
		if c.Class != contract.ClassResourceList || c.Format != contract.FormatJSON {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		l, err := contract.DecodeList(data, c.Format)
		if err != nil {
			return err
		}
		list := List{GVR: contract.ListGVR(c, l), Kind: contract.ListKind(c, l), Custom: c.Custom, ResourceVersion: l.ResourceVersion, Items: l.Items}
		a, conv, err := whole.Render(list)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		b, _, err := chunked.Render(list)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s (%s): chunked rendering differs:\n%s\n%s", rel, conv, a, b)
		}
		convertors[conv] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, conv := range []Convertor{ConvertorPrinters, ConvertorCRD, ConvertorDefault} {
		if !convertors[conv] {
			t.Errorf("no list was rendered by the %s convertor", conv)
		}
	}
}
