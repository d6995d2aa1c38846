package app

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
)

type inspectOptions struct {
	IOStreams
	printFlags
	bundle string
}

func newInspectCommand(streams IOStreams) *cobra.Command {
	o := &inspectOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "inspect BUNDLE",
		Short: "Summarise a support bundle: versions, collection time, resources, logs and problems",
		Args:  cobra.ExactArgs(1),
		RunE:  runE(o),
	}
	o.printFlags.addFlags(cmd, "output")
	return cmd
}

func (o *inspectOptions) Complete(args []string) error {
	o.bundle = args[0]
	return nil
}

func (o *inspectOptions) Validate() error { return o.printFlags.validate() }

func (o *inspectOptions) Run(context.Context) error {
	b, err := contract.OpenReader(o.bundle, o.In, contract.DefaultLimits)
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
