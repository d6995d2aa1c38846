package app

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/serve"
	"github.com/bundlectl/bundlectl/transform"
)

// serveOptions are the options of `bundlectl serve` and `bundlectl shell`.
type serveOptions struct {
	IOStreams
	sourceFlags
	address         string
	port            int
	insecureHTTP    bool
	collectedAt     string
	kubeVersion     string
	writeKubeconfig string
	verbose         bool

	serve serve.Options
}

func (o *serveOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.address, "address", "127.0.0.1", "address to listen on; any other than a loopback address lets other machines read the bundle (serve warns)")
	cmd.Flags().IntVar(&o.port, "port", 0, "port of the first bundle's server (the next bundles take the next ports); 0 picks free ports")
	cmd.Flags().BoolVar(&o.insecureHTTP, "insecure-http", false, "serve plain HTTP without a token instead of HTTPS with a CA and token made for this run")
	cmd.Flags().StringVar(&o.collectedAt, "collected-at", "", "collection time (RFC 3339) for legacy bundles that do not tell it; ages are computed at it")
	cmd.Flags().StringVar(&o.kubeVersion, "kube-version", "", "for legacy bundles, render the tables as this Kubernetes version's server did (v1.31.14 or 1.31), instead of the cluster's own")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "log every request on standard error: method, path and query, status, bytes sent and duration")
	o.sourceFlags.addFlags(cmd)
	cmd.Flags().StringVar(&o.writeKubeconfig, "write-kubeconfig", "", "write the kubeconfig to this file instead of a new temporary folder (it must not exist; it is removed when serving stops), for scripts that run serve in the background and wait for the file")
}

func (o *serveOptions) Complete(args []string) error {
	o.serve = serve.Options{
		Bundles:      args,
		Address:      o.address,
		Port:         o.port,
		InsecureHTTP: o.insecureHTTP,
		Kubeconfig:   o.writeKubeconfig,
		Limits:       contract.DefaultLimits,
		Stdin:        o.In,
		Out:          o.Out,
		ErrOut:       o.ErrOut,
		Verbose:      o.verbose,
	}
	var err error
	if o.serve.HTTP, err = o.sourceFlags.options(); err != nil {
		return err
	}
	at, err := parseCollectedAt(o.collectedAt)
	o.serve.Upgrade = transform.UpgradeOnLoad(at, o.kubeVersion, o.ErrOut)
	return err
}

func (o *serveOptions) Validate() error { return transform.CheckKubeVersion(o.kubeVersion) }

func (o *serveOptions) Run(ctx context.Context) error { return serve.Run(ctx, o.serve) }

func newServeCommand(streams IOStreams) *cobra.Command {
	o := &serveOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "serve BUNDLE [BUNDLE...]",
		Short: "Serve support bundles to kubectl as read-only Kubernetes API servers",
		Long: `Serve loads each bundle (a .tar.gz, a folder or an https:// URL; legacy
bundles are upgraded on load) and serves it as a read-only Kubernetes API on its own port of
127.0.0.1, over HTTPS with a CA and a bearer token made for this run. It
prints the Kubernetes version, the collection time and the object counts
of each bundle, then the kubeconfig to use:

    export KUBECONFIG=<path>

The kubeconfig has one context per bundle and is removed when serve stops
(Ctrl-C); ~/.kube/config is never touched. --write-kubeconfig FILE writes
it to FILE instead, for scripts that run serve in the background and wait
for the file to appear. Ages in kubectl's tables are as of the time the
bundle was collected.

Writes are refused (405), as are exec, attach, port-forward and proxy;
logs are those the bundle collected. --address other than a loopback
address lets other machines read the bundle, and serve warns when it does.

-v logs one line per request on standard error (method, path and query,
status, bytes sent, duration), to see what kubectl asked and why it got
the answer it printed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(o),
	}
	o.addFlags(cmd)
	return cmd
}
