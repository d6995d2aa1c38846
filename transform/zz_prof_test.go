package transform_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/contract/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

func TestProfUpgrade(t *testing.T) {
	if os.Getenv("PROF") == "" {
		t.Skip()
	}
	in := "/tmp/large.tgz"
	if _, err := os.Stat(in); err != nil {
		if _, err := contracttest.WriteBundleFile(in, contracttest.Large()); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out.tgz")
	if _, err := transform.Upgrade(context.Background(), transform.Options{Source: in, Dest: out}); err != nil {
		t.Fatal(err)
	}
}
