package app

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract/collect"
)

type collectOptions struct {
	kubeconfig          string
	context             string
	namespaces          []string
	force               bool
	includeSecretValues bool
	output              string
}

func newCollectCommand(streams IOStreams) *cobra.Command {
	o := &collectOptions{}
	cmd := &cobra.Command{
		Use:   "collect OUT",
		Short: "Collect a support bundle of the bundle contract from a live cluster",
		Long: `Collect lists every resource of the cluster (built-in and custom, at its
preferred version) in troubleshoot's layout, with the server's own Table
beside every list, discovery, the field selectors the server accepts, and
pod logs. Every table is rendered by the server in the same second, the
collection time, so that ages in a served bundle are those kubectl showed.

OUT is a .tar.gz/.tgz/.tar archive, a folder, or - for standard output (the
summary then goes to standard error). OUT appears only once it is complete.
Secret values are masked unless --include-secret-values. What could not be
collected (a table, a log, a probe) is listed in the summary; the command
fails only when the cluster cannot be reached or OUT cannot be written.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.output != "" && o.output != "json" {
				return fmt.Errorf("unknown output format %q: use -o json or nothing", o.output)
			}
			return runCollect(cmd.Context(), o, args[0], streams)
		},
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG or ~/.kube/config)")
	cmd.Flags().StringVar(&o.context, "context", "", "kubeconfig context (default the current context)")
	cmd.Flags().StringSliceVarP(&o.namespaces, "namespace", "n", nil, "collect namespaced resources only in these namespaces (repeatable; default all)")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace OUT if it exists")
	cmd.Flags().BoolVar(&o.includeSecretValues, "include-secret-values", false, "keep the values of Secrets instead of masking them")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "summary format: json")
	return cmd
}

func runCollect(ctx context.Context, o *collectOptions, dest string, streams IOStreams) error {
	cfg, err := collect.LoadConfig(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	sum, err := collect.Run(ctx, collect.Options{
		Config: cfg, Namespaces: o.namespaces, IncludeSecretValues: o.includeSecretValues,
		Dest: dest, Force: o.force, Stdout: streams.Out,
	})
	if err != nil {
		return err
	}
	out := streams.Out
	if dest == "-" {
		out = streams.ErrOut
	}
	if o.output == "json" {
		return sum.WriteJSON(out)
	}
	return sum.WriteText(out)
}
