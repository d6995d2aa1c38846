package app

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// kubernetesModule is the release whose printers and scheme bundlectl embeds.
const kubernetesModule = "k8s.io/kubernetes"

func newVersionCommand(streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print bundlectl's version and the Kubernetes release it embeds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, k8s := buildVersions()
			fmt.Fprintf(streams.Out, "bundlectl %s (Kubernetes %s, bundle schema %s)\n", v, k8s, schemaVersion())
			return nil
		},
	}
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
