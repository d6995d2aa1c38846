package diff

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bundlectl/bundlectl/contract"
)

// spill is the comparison's temporary file: the sorters' runs, A's
// objects as compared on their way to B's pass, and the report's
// objects are written to it as the passes make them, and read back
// when needed, so that memory does not grow with the differences. It is
// removed as soon as it is created (as contract's spool of standard
// input is): only the open file reaches it, so it is gone when the
// process ends, however it ends. Where an open file cannot be removed,
// close removes it.
type spill struct {
	f    *os.File
	name string // the file's name while it has one
	w    *bufio.Writer
	// size is what was put; flushed, what of it the file holds.
	size, flushed int64
	// err is the first write's failure: the comparison fails with it.
	err error
}

// span is where put wrote one piece; the zero span is none.
type span struct {
	off int64
	n   int32
}

func newSpill() (*spill, error) {
	f, name, err := contract.TempFile("bundlectl-diff-*")
	if err != nil {
		return nil, fmt.Errorf("creating the comparison's temporary file: %w", err)
	}
	return &spill{f: f, name: name, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// put writes p and returns where; an empty p is the zero span. A failure
// is kept in s.err, which the passes check.
func (s *spill) put(p []byte) span {
	if len(p) == 0 || s.err != nil {
		return span{}
	}
	if len(p) > 1<<31-1 {
		s.err = errors.New("a piece of the comparison over 2 GB")
		return span{}
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = fmt.Errorf("writing the comparison's temporary file: %w", err)
		return span{}
	}
	sp := span{off: s.size, n: int32(len(p))}
	s.size += int64(len(p))
	return sp
}

// get reads back the piece at sp into buf's memory (grown as needed);
// nil for the zero span. A failure is kept in s.err too.
func (s *spill) get(sp span, buf []byte) ([]byte, error) {
	if sp.n == 0 {
		return nil, nil
	}
	if s.err != nil {
		return nil, s.err
	}
	if sp.off+int64(sp.n) > s.flushed {
		if err := s.flush(); err != nil {
			return nil, err
		}
	}
	if cap(buf) < int(sp.n) {
		buf = make([]byte, sp.n)
	}
	buf = buf[:sp.n]
	if _, err := s.f.ReadAt(buf, sp.off); err != nil {
		return nil, s.fail(err)
	}
	return buf, nil
}

// flush writes what was put to the file, so that it can be read back.
func (s *spill) flush() error {
	if s.err != nil {
		return s.err
	}
	if s.flushed < s.size {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("writing the comparison's temporary file: %w", err)
			return s.err
		}
		s.flushed = s.size
	}
	return nil
}

// fail keeps err, met reading the spill back, as s.err.
func (s *spill) fail(err error) error {
	if s.err == nil {
		s.err = fmt.Errorf("reading back the comparison's temporary file: %w", err)
	}
	return s.err
}

// close closes the file, and removes it where it still has a name.
func (s *spill) close() error {
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	return err
}

// record is the encoding of a piece of the spill: strings and byte
// slices each after its length, numbers as varints.
type record []byte

func (r record) uint(n uint64) record { return binary.AppendUvarint(r, n) }

func (r record) int(n int64) record { return binary.AppendVarint(r, n) }

func (r record) string(s string) record { return append(r.uint(uint64(len(s))), s...) }

// bytes writes b so that nil and empty read back as they were.
func (r record) bytes(b []byte) record {
	if b == nil {
		return r.uint(0)
	}
	return append(r.uint(uint64(len(b))+1), b...)
}

// reader reads a record back; a record that ends early (a spill read
// back wrong) sets err, and what follows reads as zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uint() uint64 {
	n, size := binary.Uvarint(r.b)
	if size <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[size:]
	return n
}

func (r *reader) int() int64 {
	n, size := binary.Varint(r.b)
	if size <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[size:]
	return n
}

// take returns the next n bytes, not copied.
func (r *reader) take(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) string() string { return string(r.take(r.uint())) }

func (r *reader) bytes() []byte {
	n := r.uint()
	if n == 0 || r.err != nil {
		return nil
	}
	return append([]byte{}, r.take(n-1)...)
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = io.ErrUnexpectedEOF
	}
	r.b = nil
}
