// Package app holds bundlectl's cobra commands. Each command parses its
// flags into an options struct and calls one function of a package that
// knows nothing of cobra; the I/O streams are passed in so that the whole
// CLI runs in process in tests.
package app

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// IOStreams are the standard streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// exitError carries an exit code for failures that are already reported.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Main runs bundlectl with args and returns the process exit code.
func Main(args []string, streams IOStreams) int {
	ctx, stop := exitContext(streams)
	defer stop()
	cmd := NewRootCommand(streams)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(ctx); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintf(streams.ErrOut, "bundlectl: %s\n", errorText(err))
		return 1
	}
	return 0
}

// errorText is an error's message with what a terminal would act on
// escaped in each of its lines: errors quote entry names, servers' answers
// and paths. Line breaks between errors joined with errors.Join remain.
func errorText(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = termtext.Escape(l)
	}
	return strings.Join(lines, "\n")
}

// NewRootCommand builds the command tree.
func NewRootCommand(streams IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "bundlectl",
		Short:         "Upgrade, inspect and serve Kubernetes support bundles",
		Long:          "bundlectl reads the support bundles that Replicated's troubleshoot collects, upgrades them to the bundle contract (discovery and server-side tables), and serves them to kubectl as a read-only Kubernetes API.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.AddCommand(
		newVersionCommand(streams),
		newInspectCommand(streams),
		newDiffCommand(streams),
		newUpgradeCommand(streams),
		newServeCommand(streams),
		newShellCommand(streams),
		newCollectCommand(streams),
		newConformanceCommand(streams),
	)
	return root
}
