package app

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract/collect"
)

type collectOptions struct {
	IOStreams
	printFlags
	kubeconfig          string
	context             string
	namespaces          []string
	force               bool
	includeSecretValues bool
	dest                string
}

func newCollectCommand(streams IOStreams) *cobra.Command {
	o := &collectOptions{IOStreams: streams}
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
		RunE: runE(o),
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG or ~/.kube/config)")
	cmd.Flags().StringVar(&o.context, "context", "", "kubeconfig context (default the current context)")
	cmd.Flags().StringSliceVarP(&o.namespaces, "namespace", "n", nil, "collect namespaced resources only in these namespaces (repeatable; default all)")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace OUT if it exists")
	cmd.Flags().BoolVar(&o.includeSecretValues, "include-secret-values", false, "keep the values of Secrets instead of masking them")
	o.printFlags.addFlags(cmd, "summary")
	return cmd
}

func (o *collectOptions) Complete(args []string) error {
	o.dest = args[0]
	return nil
}

func (o *collectOptions) Validate() error { return o.printFlags.validate() }

func (o *collectOptions) Run(ctx context.Context) error {
	cfg, err := collect.LoadConfig(o.kubeconfig, o.context)
	if err != nil {
		return err
	}
	sum, err := collect.Run(ctx, collect.Options{
		Config: cfg, Namespaces: o.namespaces, IncludeSecretValues: o.includeSecretValues,
		Dest: o.dest, Force: o.force, Stdout: o.Out,
	})
	if err != nil {
		return err
	}
	// The summary goes on stderr when the bundle goes to stdout.
	out := o.Out
	if o.dest == "-" {
		out = o.ErrOut
	}
	return o.print(out, sum)
}
