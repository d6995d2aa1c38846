package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

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
	// keepTokenEnv passes $BUNDLECTL_TOKEN on to the shell.
	keepTokenEnv bool
}

func newShellCommand(streams IOStreams) *cobra.Command {
	o := &shellOptions{serveOptions: serveOptions{IOStreams: streams}}
	cmd := &cobra.Command{
		Use:   "shell BUNDLE [BUNDLE...] [-c COMMAND]",
		Short: "Start $SHELL with kubectl pointed at served support bundles",
		Long: `Shell serves the bundles as serve does (one kubeconfig context each, the
first one current) and starts $SHELL (or /bin/sh) with KUBECONFIG set to
their kubeconfig and BUNDLECTL_BUNDLE to the first bundle, so kubectl, k9s
and other clients read the bundles; $BUNDLECTL_TOKEN, the bundle store's
credential, is left out of its environment unless --keep-token-env.
Exiting the shell stops the servers and removes the kubeconfig; shell
exits with the shell's status.

With -c COMMAND the shell runs COMMAND ($SHELL -c COMMAND) instead of a
session, for scripts: what serve prints goes to standard error, so
standard output is the command's alone.

    bundlectl shell bundle.tar.gz -c 'kubectl get pods -A'`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(o),
	}
	o.addFlags(cmd)
	cmd.Flags().StringVarP(&o.command, "command", "c", "", "run this command with the shell and exit with its status, instead of an interactive shell")
	cmd.Flags().BoolVar(&o.keepTokenEnv, "keep-token-env", false, "pass $"+contract.TokenEnv+" on to the shell (by default it is removed from the shell's environment: it is the bundle store's credential, which kubectl does not need)")
	return cmd
}

func (o *shellOptions) Complete(args []string) error {
	o.bundle = args[0]
	return o.serveOptions.Complete(args)
}

// shellGrace is how long the shell is given to end once told to (an
// interactive shell ignores SIGTERM) before it is killed, so that serve
// stops and removes what it wrote.
const shellGrace = 5 * time.Second

// Run serves the bundle for as long as the shell runs. Until the shell
// starts, bundlectl ends as every command does (exitContext). Then Ctrl-C
// and Ctrl-\ typed in the shell also reach bundlectl (they share the
// terminal's process group) and cancel the parent context, which serve no
// longer follows: the shell decides. Every other way of being told to end
// (SIGTERM, SIGHUP, a closed output, the parent's death) is passed on to
// the shell, as the signal or as SIGHUP, and serve stops when it exits.
func (o *shellOptions) Run(parent context.Context) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	followParent := context.AfterFunc(parent, cancel)
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
		if !followParent() {
			return // told to end while loading
		}
		if o.command == "" {
			fmt.Fprintf(o.Out, "Starting %s with this KUBECONFIG; exit the shell to stop serving.\n", shell)
		}
		c := exec.Command(shell, argv...)
		c.Env = shellEnv(os.Environ(), o.keepTokenEnv, "KUBECONFIG="+kubeconfig, "BUNDLECTL_BUNDLE="+contract.SourceName(o.bundle))
		c.Stdin, c.Stdout, c.Stderr = o.In, o.Out, o.ErrOut
		if err := c.Start(); err != nil {
			shellErr = fmt.Errorf("starting %s: %w", shell, err)
			cancel()
			return
		}
		exits := watchExits(ctx, o.IOStreams, []os.Signal{syscall.SIGTERM, syscall.SIGHUP})
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		go func() {
			defer cancel()
			select {
			case shellErr = <-done:
			case ev := <-exits:
				shellErr = endShell(c, ev, done)
			}
		}()
	}
	if err := serve.Run(ctx, so); err != nil {
		return err
	}
	var ee *exec.ExitError
	if errors.As(shellErr, &ee) {
		code := ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as shells report a command a signal ended
		}
		if code > 0 {
			return exitError{code: code}
		}
		return nil
	}
	return shellErr
}

// endShell passes ev on to the shell (the signal received, else SIGHUP:
// what a closed terminal sends) and waits for it to end, killing it after
// shellGrace.
func endShell(c *exec.Cmd, ev exitEvent, done <-chan error) error {
	sig := ev.signal
	if sig == nil || sig == syscall.SIGPIPE {
		sig = syscall.SIGHUP
	}
	c.Process.Signal(sig)
	select {
	case err := <-done:
		return err
	case <-time.After(shellGrace):
		c.Process.Kill()
		return <-done
	}
}

// tokenEnv is the variable a bundle store's token may come in
// (contract.TokenEnv).
var tokenEnv = contract.TokenEnv + "="

// shellEnv is the shell's environment: env without the bundle store's
// token unless keepToken (kubectl has no use for it, and every command of
// the shell would inherit it), with set added last (the last value of a
// name wins).
func shellEnv(env []string, keepToken bool, set ...string) []string {
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		if keepToken || !strings.HasPrefix(kv, tokenEnv) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}
