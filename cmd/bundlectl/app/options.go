package app

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// options is the shape of every command, kubectl's: Complete fills the
// options from the arguments and derives what the flags imply, Validate
// refuses what cannot run, and Run does the work through one function of
// a package that knows nothing of cobra. The I/O streams are in the
// options, never globals, so that each command runs in process in tests.
type options interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE runs o as a cobra command.
func runE(o options) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

// report is what a command prints: text for people, JSON for scripts.
type report interface {
	WriteText(w io.Writer) error
	WriteJSON(w io.Writer) error
}

// printFlags is the -o flag of every command that prints a report.
type printFlags struct {
	output string
}

func (p *printFlags) addFlags(cmd *cobra.Command, what string) {
	cmd.Flags().StringVarP(&p.output, "output", "o", "", what+" format: json")
}

func (p *printFlags) validate() error {
	if p.output != "" && p.output != "json" {
		return fmt.Errorf("unknown output format %q: use -o json or nothing", p.output)
	}
	return nil
}

// print writes r as -o says. encoding/json leaves some characters a
// terminal acts on (C1 controls, bidirectional overrides) raw in strings:
// they are escaped, which leaves the values as they were.
func (p *printFlags) print(w io.Writer, r report) error {
	if p.output != "json" {
		return r.WriteText(w)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return err
	}
	_, err := w.Write(termtext.EscapeJSON(buf.Bytes()))
	return err
}
