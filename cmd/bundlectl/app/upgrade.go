package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform"
)

type upgradeOptions struct {
	IOStreams
	printFlags
	sourceFlags
	force       bool
	strict      bool
	collectedAt string
	kubeVersion string

	upgrade transform.Options
}

func newUpgradeCommand(streams IOStreams) *cobra.Command {
	o := &upgradeOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "upgrade OLD NEW",
		Short: "Rewrite a support bundle into the bundle contract: tables beside every list, and discovery",
		Long: `Upgrade copies every entry of the bundle OLD unchanged into NEW and adds a
meta.k8s.io/v1 Table beside every raw list (as the cluster's own Kubernetes
release served it, 1.20 to 1.37, as of the collection time),
cluster-resources/_meta/discovery.json,
and the OpenAPI documents kubectl explain reads (cluster-resources/_meta/openapi:
the 1.37 API's own, and the custom resources' built from their CRDs).

OLD and NEW are each a .tar.gz/.tgz/.tar archive (the extension in any
case), a folder, or - for standard input and output; OLD may also be an
https:// URL (see --token-file). A NEW named as another archive (.zip,
.tar.zst) is an error. NEW appears only once it is complete, with OLD's
permissions; OLD is never touched: NEW may not be, hold or lie inside it.
--force replaces only an archive or a folder holding a bundle, never a
folder of other files. Tables that cannot be made are listed and their raw lists
copied all the same (--strict makes that an error). Upgrading an upgraded
bundle changes nothing.`,
		Args: cobra.ExactArgs(2),
		RunE: runE(o),
	}
	cmd.Flags().BoolVar(&o.force, "force", false, "replace NEW if it exists and is an archive or a folder holding a bundle (never a folder of other files)")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit non-zero when any table could not be made")
	cmd.Flags().StringVar(&o.collectedAt, "collected-at", "", "collection time (RFC 3339) that ages are computed at, instead of the one the bundle tells")
	cmd.Flags().StringVar(&o.kubeVersion, "kube-version", "", "render the tables as this Kubernetes version's server did (v1.31.14 or 1.31), instead of the cluster's own")
	o.printFlags.addFlags(cmd, "summary")
	o.sourceFlags.addFlags(cmd)
	return cmd
}

func (o *upgradeOptions) Complete(args []string) error {
	o.upgrade = transform.Options{Source: args[0], Dest: args[1], Force: o.force, Stdin: o.In, Stdout: o.Out,
		Limits: contract.DefaultLimits, KubeVersion: o.kubeVersion}
	if f, ok := o.ErrOut.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		o.upgrade.Progress = f
	}
	var err error
	if o.upgrade.HTTP, err = o.sourceFlags.options(); err != nil {
		return err
	}
	o.upgrade.CollectedAt, err = parseCollectedAt(o.collectedAt)
	return err
}

func (o *upgradeOptions) Validate() error {
	if err := o.printFlags.validate(); err != nil {
		return err
	}
	return transform.CheckKubeVersion(o.kubeVersion)
}

func (o *upgradeOptions) Run(ctx context.Context) error {
	sum, err := transform.Upgrade(ctx, o.upgrade)
	if err != nil {
		return err
	}
	// The summary goes where it does not mix with the bundle: on stderr
	// when the bundle itself goes to stdout.
	out := o.Out
	if sum.Dest == "-" {
		out = o.ErrOut
	}
	if err := o.print(out, sum); err != nil {
		return err
	}
	if o.strict && len(sum.Problems) > 0 {
		fmt.Fprintf(o.ErrOut, "bundlectl: %d table(s) could not be made (--strict)\n", len(sum.Problems))
		return exitError{code: 2}
	}
	return nil
}

// parseCollectedAt reads --collected-at; "" is the zero time (the bundle
// tells).
func parseCollectedAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--collected-at: %w", err)
	}
	return t, nil
}
