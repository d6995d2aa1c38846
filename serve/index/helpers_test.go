package index

import (
	"context"
	"os"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// smallDir is servetest.Small written once for the whole test binary.
var smallDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "index-test-*")
	if err != nil {
		panic(err)
	}
	if smallDir, err = servetest.Small().Write(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func smallBundle(testing.TB) string { return smallDir }

// load opens and loads a bundle, closed when the test ends.
func load(t testing.TB, path string) *Index {
	t.Helper()
	b, err := contract.Open(path, contract.Limits{})
	if err == nil {
		var x *Index
		if x, err = Load(context.Background(), b); err == nil {
			t.Cleanup(func() { x.Close() })
			return x
		}
	}
	t.Fatal(err)
	return nil
}
