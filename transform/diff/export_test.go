package diff

import (
	"context"
	"io"
)

// WithRunBudget is o with the sorters' budget set to n bytes, so that a
// test can make the diff write its records as many runs.
func WithRunBudget(o Options, n int) Options {
	o.runBudget = n
	return o
}

// Run is Compare with the objects read back into the Report, which the
// tests look at as a whole.
func Run(ctx context.Context, o Options) (*Report, error) {
	res, err := Compare(ctx, o)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	return res.Whole()
}

// Whole is the report with its objects read back.
func (r *Result) Whole() (*Report, error) {
	rep := r.Report
	rep.Objects = []ObjectChange{}
	for i := range r.count {
		o, err := r.object(i)
		if err != nil {
			return nil, err
		}
		rep.Objects = append(rep.Objects, o)
	}
	return &rep, nil
}

// WriteText writes a whole report as Result.WriteText does.
func (r *Report) WriteText(w io.Writer) error {
	res := &Result{Report: *r, count: len(r.Objects), object: func(i int) (ObjectChange, error) { return r.Objects[i], nil }}
	return res.WriteText(w)
}
