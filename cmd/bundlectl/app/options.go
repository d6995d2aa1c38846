package app

import (
	"context"
	"fmt"
	"io"
	"unicode/utf8"

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
// they are escaped, which leaves the values as they were, as the JSON
// streams (diff's report is not held whole).
func (p *printFlags) print(w io.Writer, r report) error {
	if p.output != "json" {
		return r.WriteText(w)
	}
	e := &jsonEscaper{w: w}
	if err := r.WriteJSON(e); err != nil {
		return err
	}
	return e.flush()
}

// jsonEscaper writes JSON through termtext.EscapeJSON, holding back a
// character a write ends in the middle of until the next.
type jsonEscaper struct {
	w    io.Writer
	held []byte
}

func (e *jsonEscaper) Write(p []byte) (int, error) {
	doc := p
	if len(e.held) > 0 {
		doc = append(e.held, p...)
	}
	cut := len(doc)
	for i := len(doc) - 1; i >= 0 && i >= len(doc)-utf8.UTFMax; i-- {
		if utf8.RuneStart(doc[i]) {
			if !utf8.FullRune(doc[i:]) {
				cut = i
			}
			break
		}
	}
	if _, err := e.w.Write(termtext.EscapeJSON(doc[:cut])); err != nil {
		return 0, err
	}
	e.held = append(e.held[:0], doc[cut:]...)
	return len(p), nil
}

// flush writes what is held back: the end of a document that is not
// UTF-8, which is not escaped (encoding/json writes only UTF-8).
func (e *jsonEscaper) flush() error {
	_, err := e.w.Write(e.held)
	e.held = e.held[:0]
	return err
}
