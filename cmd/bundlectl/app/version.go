package app

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
)

// kubernetesModule is the release whose printers and scheme bundlectl embeds.
const kubernetesModule = "k8s.io/kubernetes"

type versionOptions struct {
	IOStreams
}

func newVersionCommand(streams IOStreams) *cobra.Command {
	o := &versionOptions{IOStreams: streams}
	return &cobra.Command{
		Use:   "version",
		Short: "Print bundlectl's version and the Kubernetes release it embeds",
		Args:  cobra.NoArgs,
		RunE:  runE(o),
	}
}

func (o *versionOptions) Complete([]string) error { return nil }

func (o *versionOptions) Validate() error { return nil }

func (o *versionOptions) Run(context.Context) error {
	v, k8s := buildVersions()
	_, err := fmt.Fprintf(o.Out, "bundlectl %s (Kubernetes %s, bundle schema %s)\n", v, k8s, contract.SchemaVersion)
	return err
}

// buildVersions reads versions from the binary's build info, so that
// `go install ...@vX` reports vX without ldflags.
func buildVersions() (self, kubernetes string) {
	self, kubernetes = "(devel)", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if info.Main.Version != "" {
		self = info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == kubernetesModule {
			kubernetes = d.Version
		}
	}
	return
}
