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

// shellOptions are serve's, with a shell started once the bundle is
// served.
type shellOptions struct {
	serveOptions
	bundle string
}

func newShellCommand(streams IOStreams) *cobra.Command {
	o := &shellOptions{serveOptions: serveOptions{IOStreams: streams}}
	cmd := &cobra.Command{
		Use:   "shell BUNDLE",
		Short: "Start $SHELL with kubectl pointed at a served support bundle",
		Long: `Shell serves the bundle as serve does and starts $SHELL (or /bin/sh) with
KUBECONFIG set to the bundle's kubeconfig, so kubectl, k9s and other
clients read the bundle. Exiting the shell stops the server and removes
the kubeconfig.`,
		Args: cobra.ExactArgs(1),
		RunE: runE(o),
	}
	o.addFlags(cmd)
	return cmd
}

func (o *shellOptions) Complete(args []string) error {
	o.bundle = args[0]
	return o.serveOptions.Complete(args)
}

// Run serves the bundle for as long as the shell runs. Ctrl-C typed in
// the shell also reaches bundlectl (they share the terminal's process
// group) and cancels the parent context, so the server is stopped by the
// shell's exit instead; SIGTERM and SIGHUP are passed on to the shell.
func (o *shellOptions) Run(parent context.Context) error {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	defer cancel()
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	var shellErr error
	so := o.serve
	so.Ready = func(kubeconfig string) {
		fmt.Fprintf(o.Out, "Starting %s with this KUBECONFIG; exit the shell to stop serving.\n", shell)
		c := exec.Command(shell)
		c.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "BUNDLECTL_BUNDLE="+o.bundle)
		c.Stdin, c.Stdout, c.Stderr = o.In, o.Out, o.ErrOut
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
