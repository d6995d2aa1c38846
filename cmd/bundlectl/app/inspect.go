package app

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
)

type inspectOptions struct {
	IOStreams
	printFlags
	sourceFlags
	bundle string
	http   contract.HTTPOptions
}

func newInspectCommand(streams IOStreams) *cobra.Command {
	o := &inspectOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use: "inspect BUNDLE",
		Long: `Inspect summarises a bundle (a .tar.gz/.tgz/.tar archive, a folder, - for
standard input, or an https:// URL): versions, collection time, resources,
logs, the analyzers' results and problems.`,
		Short: "Summarise a support bundle: versions, collection time, resources, logs and problems",
		Args:  cobra.ExactArgs(1),
		RunE:  runE(o),
	}
	o.printFlags.addFlags(cmd, "output")
	o.sourceFlags.addFlags(cmd)
	return cmd
}

func (o *inspectOptions) Complete(args []string) error {
	o.bundle = args[0]
	return nil
}

func (o *inspectOptions) Validate() error {
	if err := o.printFlags.validate(); err != nil {
		return err
	}
	var err error
	o.http, err = o.sourceFlags.options()
	return err
}

func (o *inspectOptions) Run(ctx context.Context) error {
	b, err := contract.OpenContext(ctx, o.bundle, contract.OpenOptions{Stdin: o.In, HTTP: o.http, Limits: contract.DefaultLimits, KeepStream: true})
	if err != nil {
		return err
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		return err
	}
	return o.print(o.Out, rep)
}
