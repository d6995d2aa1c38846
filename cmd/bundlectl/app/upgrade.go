package app

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform"
)

type upgradeOptions struct {
	force       bool
	strict      bool
	collectedAt string
	output      string
}

func newUpgradeCommand(streams IOStreams) *cobra.Command {
	o := &upgradeOptions{}
	cmd := &cobra.Command{
		Use:   "upgrade OLD NEW",
		Short: "Rewrite a support bundle into the bundle contract: tables beside every list, and discovery",
		Long: `Upgrade copies every entry of the bundle OLD unchanged into NEW and adds a
meta.k8s.io/v1 Table beside every raw list (rendered by the Kubernetes 1.37
printers as of the collection time), cluster-resources/_meta/discovery.json,
and the OpenAPI documents kubectl explain reads (cluster-resources/_meta/openapi:
the 1.37 API's own, and the custom resources' built from their CRDs).

OLD and NEW are each a .tar.gz/.tgz/.tar archive, a folder, or - for
standard input and output. NEW appears only once it is complete; OLD is
never touched. Tables that cannot be made are listed and their raw lists
copied all the same (--strict makes that an error). Upgrading an upgraded
bundle changes nothing.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := o.complete(args, streams)
			if err != nil {
				return err
			}
			sum, err := transform.Upgrade(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return o.report(sum, streams)
		},
	}
	cmd.Flags().BoolVar(&o.force, "force", false, "replace NEW if it exists")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit non-zero when any table could not be made")
	cmd.Flags().StringVar(&o.collectedAt, "collected-at", "", "collection time (RFC 3339) that ages are computed at, instead of the one the bundle tells")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "summary format: json")
	return cmd
}

func (o *upgradeOptions) complete(args []string, streams IOStreams) (transform.Options, error) {
	opts := transform.Options{Source: args[0], Dest: args[1], Force: o.force, Stdin: streams.In, Stdout: streams.Out, Limits: contract.DefaultLimits}
	if o.output != "" && o.output != "json" {
		return opts, fmt.Errorf("unknown output format %q: use -o json or nothing", o.output)
	}
	if o.collectedAt != "" {
		t, err := time.Parse(time.RFC3339, o.collectedAt)
		if err != nil {
			return opts, fmt.Errorf("--collected-at: %w", err)
		}
		opts.CollectedAt = t
	}
	if f, ok := streams.ErrOut.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Progress = f
	}
	return opts, nil
}

// report writes the summary where it does not mix with the bundle: on
// stderr when the bundle itself goes to stdout.
func (o *upgradeOptions) report(sum *transform.Summary, streams IOStreams) error {
	out := streams.Out
	if sum.Dest == "-" {
		out = streams.ErrOut
	}
	var err error
	if o.output == "json" {
		err = sum.WriteJSON(out)
	} else {
		err = sum.WriteText(out)
	}
	if err != nil {
		return err
	}
	if o.strict && len(sum.Problems) > 0 {
		fmt.Fprintf(streams.ErrOut, "bundlectl: %d table(s) could not be made (--strict)\n", len(sum.Problems))
		return exitError{code: 2}
	}
	return nil
}
