package conformance

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/conformance/cluster"
	"github.com/bundlectl/bundlectl/conformance/kind"
)

// fakeProvider records whether the gate asked for a cluster.
type fakeProvider struct{ created, deleted bool }

func (p *fakeProvider) Name() string { return "fake" }
func (p *fakeProvider) Create(ctx context.Context) (*cluster.Cluster, error) {
	p.created = true
	return nil, errors.New("fake: no cluster")
}
func (p *fakeProvider) Delete(ctx context.Context) error { p.deleted = true; return nil }

// What can be refused is refused before a cluster is created: a checks
// file, a baseline, a missing kubectl.
func TestRunRefusesBeforeCreatingACluster(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("checks:\n- name: x\n  kubectl: [get]\n  normalize: [age]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]Options{
		"checks":   {Checks: []string{bad}, Kubectl: "true"},
		"baseline": {Baseline: bad, Kubectl: "true"},
		"kubectl":  {Kubectl: filepath.Join(dir, "no-kubectl")},
	} {
		p := &fakeProvider{}
		o.Provider = p
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("%s: no error", name)
		}
		if p.created {
			t.Errorf("%s: a cluster was created", name)
		}
	}
}

// Without a container runtime the kind provider stops at once and says
// to use --local (a PATH with no container CLI on it stands for a machine
// without one).
func TestRunKindWithoutRuntime(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("KIND_EXPERIMENTAL_PROVIDER", "")
	start := time.Now()
	work := filepath.Join(t.TempDir(), "work")
	_, err = Run(context.Background(), Options{
		Provider: kind.New(kind.Options{WorkDir: t.TempDir()}),
		Kubectl:  truePath,
		WorkDir:  work,
	})
	if !errors.Is(err, kind.ErrNoContainerRuntime) {
		t.Fatalf("err = %v, want ErrNoContainerRuntime", err)
	}
	if !strings.Contains(err.Error(), "--local") {
		t.Errorf("error %q does not suggest --local", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s: not at once", d)
	}
}

// A temporary work dir goes when the gate could not even start.
func TestRunRemovesItsTemporaryWorkDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := Run(context.Background(), Options{Provider: &fakeProvider{}, Kubectl: "true"}); err == nil {
		t.Fatal("no error")
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 0 {
		t.Errorf("left %v in the temp dir", entries)
	}
}
