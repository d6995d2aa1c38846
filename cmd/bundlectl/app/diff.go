package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/termtext"
	"github.com/bundlectl/bundlectl/transform/diff"
)

type diffOptions struct {
	IOStreams
	printFlags
	sourceFlags
	all       bool
	kinds     []string
	namespace string
	selector  string
	logs      bool

	diff diff.Options
}

func newDiffCommand(streams IOStreams) *cobra.Command {
	o := &diffOptions{IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show what changed between two support bundles of a cluster, object by object",
		Long: `Diff compares bundle B with bundle A (each a .tar.gz/.tgz/.tar archive, a
folder, an https:// URL, or - for standard input; legacy bundles are
upgraded on load) object by object, matched by group, kind, namespace and
name: each is added, removed, replaced (re-created: another uid) or
changed. It prints the counts per kind, the highlights (restarts up, pods
no longer Running, new Warning events, image changes, node conditions,
deployments with fewer available replicas), then each kind's rows as
kubectl prints them from each bundle's own tables (ages as of each
bundle's collection time), with the changed cells marked "*", and the
fields that changed.

Noise is left out unless --all: resourceVersion, managedFields,
generation, times that move with the clock alone (lease renewals, node
heartbeats) and the order of lists.

The exit status is that of diff(1): 0 when the bundles are the same, 1
when they differ, 2 on error, or when a list of either bundle could not
be read (its objects are then not compared; standard error names it).`,
		Args: func(cmd *cobra.Command, args []string) error { return o.troubleExit(cobra.ExactArgs(2)(cmd, args)) },
		RunE: func(cmd *cobra.Command, args []string) error { return o.troubleExit(runE(o)(cmd, args)) },
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "show the noise too: objects that differ only in resourceVersion, managedFields, generation or clock-driven times")
	cmd.Flags().StringSliceVar(&o.kinds, "kind", nil, "compare only these kinds: resource or kind names, optionally with the group (pods, Pod, deployments.apps; repeatable)")
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "", "compare only the objects of this namespace")
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "compare only the objects whose labels match this selector on either side (=, ==, !=, in, notin, exists)")
	cmd.Flags().BoolVar(&o.logs, "logs", false, "also compare the pod logs, by size and last lines")
	o.printFlags.addFlags(cmd, "output")
	o.sourceFlags.addFlags(cmd)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return o.troubleExit(err) })
	return cmd
}

// troubleExit reports err and exits 2, diff(1)'s status for trouble,
// where Main would exit 1: a difference is 1.
func (o *diffOptions) troubleExit(err error) error {
	var ee exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	fmt.Fprintf(o.ErrOut, "bundlectl: %s\n", errorText(err))
	return exitError{code: 2}
}

func (o *diffOptions) Complete(args []string) error {
	o.diff = diff.Options{A: args[0], B: args[1], Stdin: o.In, Limits: contract.DefaultLimits, Log: o.ErrOut,
		All: o.all, Kinds: o.kinds, Namespace: o.namespace, Logs: o.logs}
	if o.selector != "" {
		sel, err := labels.Parse(o.selector)
		if err != nil {
			return fmt.Errorf("-l %s: %w", o.selector, err)
		}
		o.diff.Selector = sel
	}
	var err error
	o.diff.HTTP, err = o.sourceFlags.options()
	return err
}

func (o *diffOptions) Validate() error {
	if err := o.printFlags.validate(); err != nil {
		return err
	}
	if o.diff.A == "-" && o.diff.B == "-" {
		return errors.New("only one of A and B can be - (standard input)")
	}
	return nil
}

func (o *diffOptions) Run(ctx context.Context) error {
	rep, err := diff.Compare(ctx, o.diff)
	if err != nil {
		return err
	}
	defer rep.Close()
	if err := o.print(o.Out, rep); err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", termtext.Escape(w))
	}
	if len(rep.Warnings) > 0 {
		// Trouble, in diff(1)'s words: the objects of a file that could
		// not be read were not compared.
		fmt.Fprintf(o.ErrOut, "bundlectl: %d file(s) could not be read; their objects were not compared\n", len(rep.Warnings))
		return exitError{code: 2}
	}
	if !rep.Equal {
		return exitError{code: 1}
	}
	return nil
}
