package diff

import (
	"context"
	"fmt"

	"github.com/bundlectl/bundlectl/contract"
)

// visitor says what a walk over a side reads: the lists of record (raw
// lists the bundle stores, not the upgrade's converted copies) and the
// tables beside them, each only where want says, and the log files.
type visitor struct {
	wantList  func(rel string) bool
	list      func(rel string, c contract.Classification, l *contract.List) error
	wantTable func(rel string) bool
	table     func(rel string, data []byte) error
	log       func(e *contract.Entry) error
}

// walk streams the side once through v. A file that cannot be read as
// what its path says is a warning (the rest of the bundle is compared),
// as serve reports it; a broken archive ends the walk.
func (s *side) walk(ctx context.Context, v visitor) error {
	err := s.b.Walk(func(e *contract.Entry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !e.InRoot || e.Superseded {
			return nil
		}
		if v.log != nil {
			if _, ok := contract.LogFileOf(e); ok && e.IsRegular() {
				return v.log(e)
			}
		}
		c := e.Class
		switch {
		case v.list != nil && s.b.IsListOfRecord(e) && !c.Converted && (v.wantList == nil || v.wantList(e.Rel)):
			defer s.heap.reading(e.Size())()
			data, err := s.read(e)
			if data == nil {
				s.unreadable[e.Rel] = true
				return err
			}
			l, err := contract.DecodeList(data, c.Format)
			if err != nil {
				s.warn(e.Rel, fmt.Errorf("%w; its objects are not compared", err))
				s.unreadable[e.Rel] = true
				return nil
			}
			defer s.heap.hold(l)()
			return v.list(e.Rel, c, l)
		case v.table != nil && c.Class == contract.ClassTable && !c.Converted && e.HasContent() && v.wantTable(e.Rel):
			// A table is read, and compacted into a copy (rows).
			defer s.heap.reading(2 * e.Size())()
			data, err := s.read(e)
			if data == nil {
				return err
			}
			return v.table(e.Rel, data)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.name, err)
	}
	return nil
}

// read reads an entry; a file over the decode limit is a warning (nil,
// nil), a broken archive an error.
func (s *side) read(e *contract.Entry) ([]byte, error) {
	data, err := e.ReadAll()
	if err == nil {
		return data, nil
	}
	if local := e.LocalError(err); local != nil {
		s.warn(e.Rel, local)
		return nil, nil
	}
	return nil, err
}

// warn notes a problem with one file of the side, once.
func (s *side) warn(rel string, err error) {
	msg := fmt.Sprintf("%s: %s: %v", s.name, rel, err)
	if !s.warned[msg] {
		if s.warned == nil {
			s.warned = map[string]bool{}
		}
		s.warned[msg] = true
		s.warnings = append(s.warnings, msg)
	}
}
