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

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/serve"
)

// shellOptions are serve's, with a shell started once the bundles are
// served.
type shellOptions struct {
	serveOptions
	bundle string
	// command, when set, is run by the shell (-c) instead of an
	// interactive session, for scripts: its output alone is on stdout.
	command string
}

func newShellCommand(streams IOStreams) *cobra.Command {
	o := &shellOptions{serveOptions: serveOptions{IOStreams: streams}}
	cmd := &cobra.Command{
		Use:   "shell BUNDLE [BUNDLE...] [-c COMMAND]",
		Short: "Start $SHELL with kubectl pointed at served support bundles",
		Long: `Shell serves the bundles as serve does (one kubeconfig context each, the
first one current) and starts $SHELL (or /bin/sh) with KUBECONFIG set to
their kubeconfig and BUNDLECTL_BUNDLE to the first bundle, so kubectl, k9s
and other clients read the bundles. Exiting the shell stops the servers
and removes the kubeconfig; shell exits with the shell's status.

With -c COMMAND the shell runs COMMAND ($SHELL -c COMMAND) instead of a
session, for scripts: what serve prints goes to standard error, so
standard output is the command's alone.

    bundlectl shell bundle.tar.gz -c 'kubectl get pods -A'`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(o),
	}
	o.addFlags(cmd)
	cmd.Flags().StringVarP(&o.command, "command", "c", "", "run this command with the shell and exit with its status, instead of an interactive shell")
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
	var argv []string
	if o.command != "" {
		argv = []string{"-c", o.command}
		so.Out = o.ErrOut
	}
	so.Ready = func(kubeconfig string) {
		if o.command == "" {
			fmt.Fprintf(o.Out, "Starting %s with this KUBECONFIG; exit the shell to stop serving.\n", shell)
		}
		c := exec.Command(shell, argv...)
		c.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "BUNDLECTL_BUNDLE="+contract.SourceName(o.bundle))
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
