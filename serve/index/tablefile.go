package index

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// decodeTableFile keeps the column definitions and, for every row, its
// cells and conditions, compacted into blocks shared by the rows, and the
// identity of its object. Rows are matched to objects by that identity,
// so the row's own copy of the metadata is not kept, nor the file: it is
// read from r a member and a row at a time, so that a table of a million
// small rows (five times their list, as the upgrade writes them) costs
// what is kept of its rows, not its size besides.
func decodeTableFile(r io.Reader) (*loadedTable, error) {
	return (&tableScanner{r: r}).table()
}

// table reads a Table document.
func (s *tableScanner) table() (*loadedTable, error) {
	t := &loadedTable{}
	var kind string
	if err := s.byte('{'); err != nil {
		return nil, err
	}
	for first := true; ; first = false {
		if c, err := s.peek(); err != nil {
			return nil, err
		} else if c == '}' && first {
			s.pos++
			break
		}
		key, err := s.value()
		if err != nil {
			return nil, err
		}
		if key[0] != '"' {
			return nil, s.errorf("a key is not a string")
		}
		name := rawjson.String(key)
		if err := s.byte(':'); err != nil {
			return nil, err
		}
		if c, err := s.peek(); err != nil {
			return nil, err
		} else if name == "rows" && c == '[' {
			// The last rows member is read, as encoding/json reads it.
			t.rows = nil
			if err := s.rows(t); err != nil {
				return nil, err
			}
		} else {
			v, err := s.value()
			if err != nil {
				return nil, err
			}
			switch name {
			case "kind":
				kind = rawjson.String(v)
			case "columnDefinitions":
				t.columns = nil
				if v[0] == '[' {
					t.columns = rawjson.AppendCompact(nil, v)
				}
			case "rows": // not an array: no rows
				t.rows = nil
			}
		}
		if done, err := s.next('}'); err != nil {
			return nil, err
		} else if done {
			break
		}
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	if kind != "Table" {
		return nil, fmt.Errorf("kind is %q, not Table", kind)
	}
	return t, nil
}

// rows reads the array of rows at the scanner's position.
func (s *tableScanner) rows(t *loadedTable) error {
	s.pos++ // '['
	var cells rowBlocks
	var served []TableRow
	var nsRaw []byte
	var ns string
	for first := true; ; first = false {
		if c, err := s.peek(); err != nil {
			return err
		} else if c == ']' && first {
			s.pos++
			return nil
		}
		row, err := s.value()
		if err != nil {
			return err
		}
		if len(served) == cap(served) {
			// Rows are kept in blocks, never moved: the loaded rows
			// point at them.
			served = make([]TableRow, 0, 4096)
		}
		served = append(served, TableRow{Cells: cells.keep(rawjson.Get(row, "cells")), Conditions: cells.keep(rawjson.Get(row, "conditions"))})
		lr := loadedRow{row: &served[len(served)-1]}
		if lr.row.Cells == nil {
			lr.row.Cells = []byte("[]")
		}
		if obj := rawjson.Get(row, "object"); len(obj) > 0 && obj[0] == '{' {
			meta := rawjson.Get(obj, "metadata")
			lr.name = rawjson.String(rawjson.Get(meta, "name"))
			// Rows of one namespace share its name.
			if raw := rawjson.Get(meta, "namespace"); !bytes.Equal(raw, nsRaw) || nsRaw == nil {
				nsRaw, ns = append(nsRaw[:0], raw...), rawjson.String(raw)
			}
			lr.namespace = ns
			lr.hasObject = lr.name != ""
		}
		t.rows = append(t.rows, lr)
		if done, err := s.next(']'); err != nil {
			return err
		} else if done {
			return nil
		}
	}
}

// rowBlocks holds the compacted cells and conditions of a table's rows
// in blocks of at least a MiB: one allocation for many rows, none of
// them copied as more are read.
type rowBlocks struct{ block []byte }

func (b *rowBlocks) keep(v []byte) []byte {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	if cap(b.block)-len(b.block) < len(v) {
		b.block = make([]byte, 0, max(1<<20, len(v)))
	}
	start := len(b.block)
	b.block = rawjson.AppendCompact(b.block, v)
	return b.block[start:len(b.block):len(b.block)]
}

// tableScanner reads a JSON document from r one value at a time, holding
// no more of it than the value being read.
type tableScanner struct {
	r   io.Reader
	buf []byte
	pos int
	off int64 // of buf[0] in the document
	eof bool
}

func (s *tableScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", s.off+int64(s.pos), fmt.Sprintf(format, args...))
}

// fill reads more of the document, dropping what was read.
func (s *tableScanner) fill() error {
	if s.eof {
		return s.errorf("unexpected end of JSON input")
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.off += int64(s.pos)
		s.buf, s.pos = s.buf[:n], 0
	}
	if cap(s.buf)-len(s.buf) < 64<<10 {
		s.buf = append(make([]byte, 0, max(2*cap(s.buf), 128<<10)), s.buf...)
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if errors.Is(err, io.EOF) {
		s.eof = true
	} else if err != nil {
		return err
	}
	return nil
}

// peek skips white space and returns the next byte, not consuming it.
func (s *tableScanner) peek() (byte, error) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, nil
			}
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

// byte consumes c, after white space.
func (s *tableScanner) byte(c byte) error {
	got, err := s.peek()
	if err != nil {
		return err
	}
	if got != c {
		return s.errorf("invalid character %q, want %q", got, c)
	}
	s.pos++
	return nil
}

// next consumes a comma, saying false, or closer, saying true.
func (s *tableScanner) next(closer byte) (bool, error) {
	c, err := s.peek()
	if err != nil {
		return false, err
	}
	s.pos++
	switch c {
	case ',':
		return false, nil
	case closer:
		return true, nil
	}
	return false, s.errorf("invalid character %q after a value", c)
}

// value returns the next value, checked, valid until the scanner moves.
// A value is whole once something follows it in the buffer: in a
// document that is an object every value is followed by a comma, a
// colon or a closer.
func (s *tableScanner) value() ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, err
	}
	for {
		if end := rawjson.SkipValue(s.buf, s.pos); end < len(s.buf) {
			v := s.buf[s.pos:end]
			if err := rawjson.Check(v); err != nil {
				return nil, fmt.Errorf("at offset %d: %w", s.off+int64(s.pos), err)
			}
			s.pos = end
			return v, nil
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// end checks that only white space follows the document.
func (s *tableScanner) end() error {
	for {
		for ; s.pos < len(s.buf); s.pos++ {
			if c := s.buf[s.pos]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				return s.errorf("invalid character %q after top-level value", c)
			}
		}
		if s.eof {
			return nil
		}
		if err := s.fill(); err != nil {
			return err
		}
	}
}
