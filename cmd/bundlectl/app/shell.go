package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/serve"
)

func newShellCommand(streams IOStreams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "shell BUNDLE",
		Short: "Start $SHELL with kubectl pointed at a served support bundle",
		Long: `Shell serves the bundle as serve does and starts $SHELL (or /bin/sh) with
KUBECONFIG set to the bundle's kubeconfig, so kubectl, k9s and other
clients read the bundle. Exiting the shell stops the server and removes
the kubeconfig.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runShell(cmd.Context(), o, args[0], streams)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// runShell serves the bundle for as long as the shell runs. Ctrl-C typed
// in the shell also reaches bundlectl (they share the terminal's process
// group) and cancels the parent context, so the server is stopped by the
// shell's exit instead; SIGTERM and SIGHUP are passed on to the shell.
func runShell(parent context.Context, o *serveOptions, bundle string, streams IOStreams) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	defer cancel()
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	var shellErr error
	so, err := o.options([]string{bundle}, streams)
	if err != nil {
		return err
	}
	so.Ready = func(kubeconfig string) {
		fmt.Fprintf(streams.Out, "Starting %s with this KUBECONFIG; exit the shell to stop serving.\n", shell)
		c := exec.Command(shell)
		c.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "BUNDLECTL_BUNDLE="+bundle)
		c.Stdin, c.Stdout, c.Stderr = streams.In, streams.Out, streams.ErrOut
		if err := c.Start(); err != nil {
			shellErr = fmt.Errorf("starting %s: %w", shell, err)
			cancel()
			return
		}
		signals := make(chan os.Signal, 1)
		signal.Notify(signals, syscall.SIGTERM, syscall.SIGHUP)
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		go func() {
			defer cancel()
			defer signal.Stop(signals)
			select {
			case shellErr = <-done:
			case sig := <-signals:
				c.Process.Signal(sig)
				<-done
			}
		}()
	}
	if err := serve.Run(ctx, so); err != nil {
		return err
	}
	var ee *exec.ExitError
	if errors.As(shellErr, &ee) {
		if code := ee.ExitCode(); code > 0 {
			return exitError{code: code}
		}
		return nil
	}
	return shellErr
}
