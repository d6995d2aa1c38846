package transform

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/termtext"
)

// UpgradeOnLoad is the upgrade `bundlectl serve` runs on a legacy bundle
// (one without discovery.json), in the shape of serve.UpgradeFunc: serve
// cannot upgrade by itself, since the upgrade needs k8s.io/kubernetes,
// which serve never imports. The bundle is upgraded into an uncompressed
// tar (0600) in a folder of its own inside dir, the run's private folder,
// which cleanup removes (serve does once the bundle is loaded); log is
// told the collection time the ages are computed at. The problems are
// returned, not printed: serve prints them with what it finds in the same
// files when it loads the copy, each file once. collectedAt, when not
// zero, overrides the time the bundle tells, and kubeVersion, when set,
// the Kubernetes version the tables are rendered for.
func UpgradeOnLoad(collectedAt time.Time, kubeVersion string, log io.Writer) func(ctx context.Context, b *contract.Bundle, dir string) (path string, problems []contract.Problem, cleanup func(), err error) {
	return func(ctx context.Context, b *contract.Bundle, dir string) (string, []contract.Problem, func(), error) {
		dir, err := os.MkdirTemp(dir, "upgraded-")
		if err != nil {
			return "", nil, nil, err
		}
		cleanup := func() { os.RemoveAll(dir) }
		dest := filepath.Join(dir, "upgraded.tar")
		w, err := contract.CreateWriter(dest, contract.WriterOptions{})
		if err != nil {
			cleanup()
			return "", nil, nil, err
		}
		defer w.Abort()
		sum, err := Run(ctx, b, w, RunOptions{CollectedAt: collectedAt, KubeVersion: kubeVersion})
		if err == nil {
			err = w.Commit(ctx)
		}
		if err != nil {
			cleanup()
			return "", nil, nil, err
		}
		// What the bundle gave is escaped: it cannot rewrite the terminal.
		esc := termtext.Escape
		fmt.Fprintf(log, "Upgraded %s on load: %d tables synthesized for Kubernetes %s as of %s\n",
			esc(b.Path), sum.Tables(), esc(sum.RenderedFor), esc(fmt.Sprint(sum.CollectionTime)))
		if sum.RenderedForNote != "" {
			fmt.Fprintf(log, "note: %s: %s\n", esc(b.Path), esc(sum.RenderedForNote))
		}
		return dest, sum.Problems, cleanup, nil
	}
}
