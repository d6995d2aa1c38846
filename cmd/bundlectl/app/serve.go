package app

import (
	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/serve"
)

// serveOptions are the flags of `bundlectl serve` and `bundlectl shell`.
type serveOptions struct {
	address      string
	port         int
	insecureHTTP bool
	// upgrade turns a legacy bundle into one of the contract before it is
	// served; nil until the command layer wires the upgrade in.
	upgrade serve.UpgradeFunc
}

func (o *serveOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.address, "address", "127.0.0.1", "address to listen on")
	cmd.Flags().IntVar(&o.port, "port", 0, "port of the first bundle's server (the next bundles take the next ports); 0 picks free ports")
	cmd.Flags().BoolVar(&o.insecureHTTP, "insecure-http", false, "serve plain HTTP without a token instead of HTTPS with a CA and token made for this run")
}

func (o *serveOptions) options(bundles []string, streams IOStreams) serve.Options {
	return serve.Options{
		Bundles:      bundles,
		Address:      o.address,
		Port:         o.port,
		InsecureHTTP: o.insecureHTTP,
		Upgrade:      o.upgrade,
		Limits:       contract.DefaultLimits,
		Stdin:        streams.In,
		Out:          streams.Out,
		ErrOut:       streams.ErrOut,
	}
}

func newServeCommand(streams IOStreams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve BUNDLE [BUNDLE...]",
		Short: "Serve support bundles to kubectl as read-only Kubernetes API servers",
		Long: `Serve loads each bundle and serves it as a read-only Kubernetes API on its
own local port, then prints the kubeconfig to use:

    export KUBECONFIG=<path>

The kubeconfig has one context per bundle and is removed when serve stops
(Ctrl-C); ~/.kube/config is never touched. Ages in kubectl's tables are as
of the time the bundle was collected.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve.Run(cmd.Context(), o.options(args, streams))
		},
	}
	o.addFlags(cmd)
	return cmd
}
