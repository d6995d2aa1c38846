package app

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
)

type inspectOptions struct {
	output string
	bundle string
}

func newInspectCommand(streams IOStreams) *cobra.Command {
	o := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect BUNDLE",
		Short: "Summarise a support bundle: versions, collection time, resources, logs and problems",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.bundle = args[0]
			if o.output != "" && o.output != "json" {
				return fmt.Errorf("unknown output format %q: use -o json or nothing", o.output)
			}
			return runInspect(o, streams)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output format: json")
	return cmd
}

func runInspect(o *inspectOptions, streams IOStreams) error {
	b, err := contract.OpenReader(o.bundle, streams.In, contract.DefaultLimits)
	if err != nil {
		return err
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		return err
	}
	if o.output == "json" {
		return rep.WriteJSON(streams.Out)
	}
	return rep.WriteText(streams.Out)
}
