package diff

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
)

// The comparison's passes hand each other records: the first two passes
// each side's objects, to be matched by identity; the matching the
// changes, to be met in each side's order of lists in the detail passes;
// those the rows, fields and highlights, to be met in the report's
// order. There are as many as there are objects and differences, so they
// are sorted as a database sorts what does not fit in memory: a sorter
// keeps records until its share of a budget is spent, writes them sorted
// to the spill as a run, and merges its runs when read.
//
// A record is keyed: its key (uvarint length, then bytes) and then what
// it carries. Records sort by key, bytewise; those of one key stay in
// the order they were added.

// keyed starts a record with key k.
func keyed(k []byte) record { return record{}.bytes(k) }

// keyOf is the key of a keyed record.
func keyOf(rec []byte) []byte {
	n, size := binary.Uvarint(rec)
	if size <= 0 || n == 0 || uint64(len(rec)-size) < n-1 {
		return nil
	}
	return rec[size : size+int(n-1)]
}

// payload reads what a keyed record carries, after its key.
func payload(rec []byte) *reader {
	r := &reader{b: rec}
	if n := r.uint(); n > 0 {
		r.take(n - 1)
	}
	return r
}

// sorters share one budget of memory among the sorters of a comparison
// that are still being added to: past it, the largest writes a run.
type sorters struct {
	spill  *spill
	budget int
	open   []*sorter
	total  int
	// buffers is told how much the runs being merged add (less when
	// negative), for the heap's limit.
	buffers func(n int64)
}

// sorter sorts the records added to it; read them with merge.
type sorter struct {
	all  *sorters
	recs [][]byte
	size int
	runs []run
	done bool
}

// run is where a sorted run is in the spill.
type run struct{ off, n int64 }

// recordCost is what a record held in memory costs besides its bytes.
const recordCost = 24

func (all *sorters) new() *sorter {
	s := &sorter{all: all}
	all.open = append(all.open, s)
	return s
}

// add adds a copy of rec (trimmed to its length: a record's builder
// leaves spare capacity).
func (s *sorter) add(rec record) {
	s.recs = append(s.recs, append([]byte(nil), rec...))
	s.size += len(rec) + recordCost
	s.all.total += len(rec) + recordCost
	for s.all.total > s.all.budget {
		largest := s.all.open[0]
		for _, o := range s.all.open {
			if o.size > largest.size {
				largest = o
			}
		}
		if largest.size == 0 {
			return
		}
		largest.writeRun()
	}
}

// writeRun writes the records held, sorted, to the spill as a run.
func (s *sorter) writeRun() {
	s.sort()
	sp := s.all.spill
	start := sp.size
	var n [binary.MaxVarintLen64]byte
	for _, rec := range s.recs {
		sp.put(n[:binary.PutUvarint(n[:], uint64(len(rec)))])
		sp.put(rec)
	}
	s.runs = append(s.runs, run{start, sp.size - start})
	s.all.total -= s.size
	s.recs, s.size = nil, 0
}

func (s *sorter) sort() {
	sort.SliceStable(s.recs, func(i, j int) bool { return bytes.Compare(keyOf(s.recs[i]), keyOf(s.recs[j])) < 0 })
}

// merge ends the adding and returns the records in order. Records still
// held, up to a quarter of the budget, are merged from memory (outside
// the budget, which the sorters still filled share; two merges at most
// are read at once); more go to the spill as one more run first.
func (s *sorter) merge() (*merged, error) {
	if !s.done {
		s.done = true
		for i, o := range s.all.open {
			if o == s {
				s.all.open = append(s.all.open[:i], s.all.open[i+1:]...)
				break
			}
		}
		if s.size > 0 && (len(s.runs) > 0 || s.size > s.all.budget/4) {
			s.writeRun()
		}
		s.sort()
		s.all.total -= s.size
	}
	sp := s.all.spill
	if len(s.runs) > 0 {
		if err := sp.flush(); err != nil {
			return nil, err
		}
	}
	buffers := int64(len(s.runs)) * runBuffer
	s.all.buffers(buffers)
	m := &merged{release: func() {
		s.recs, s.size = nil, 0
		s.all.buffers(-buffers)
	}}
	for i, r := range s.runs {
		c := &cursor{order: i, r: bufio.NewReaderSize(io.NewSectionReader(sp.f, r.off, r.n), runBuffer)}
		if err := m.push(c); err != nil {
			return nil, sp.fail(err)
		}
	}
	if err := m.push(&cursor{order: len(s.runs), held: s.recs}); err != nil {
		return nil, err
	}
	return m, nil
}

// each merges the records and calls fn with each, in order; a record is
// valid only during the call.
func (s *sorter) each(fn func(rec []byte) error) error {
	m, err := s.merge()
	if err != nil {
		return err
	}
	defer m.close()
	for {
		rec, err := m.peek()
		if err != nil {
			return s.all.spill.fail(err)
		}
		if rec == nil {
			return nil
		}
		if err := fn(rec); err != nil {
			return err
		}
		m.pop()
	}
}

// runBuffer is the buffer of each run read back.
const runBuffer = 16 << 10

// merged reads the records of a sorter in order: peek the next, pop it
// once used. A record peeked is valid until the next peek.
type merged struct {
	cursors []*cursor
	// popped is the cursor whose record was popped: it moves on at the
	// next peek.
	popped  *cursor
	release func()
}

// cursor is one run of a merge: in the spill (r) or in memory (held).
type cursor struct {
	order int
	r     *bufio.Reader
	held  [][]byte
	rec   []byte
}

// next reads the cursor's next record; false at the run's end.
func (c *cursor) next() (bool, error) {
	if c.r == nil {
		if len(c.held) == 0 {
			return false, nil
		}
		c.rec, c.held = c.held[0], c.held[1:]
		return true, nil
	}
	n, err := binary.ReadUvarint(c.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if uint64(cap(c.rec)) < n {
		c.rec = make([]byte, n)
	}
	c.rec = c.rec[:n]
	if _, err := io.ReadFull(c.r, c.rec); err != nil {
		return false, fmt.Errorf("a run ends early: %w", err)
	}
	return true, nil
}

func (m *merged) push(c *cursor) error {
	ok, err := c.next()
	if ok {
		heap.Push(m, c)
	}
	return err
}

// peek returns the next record, nil at the end.
func (m *merged) peek() ([]byte, error) {
	if c := m.popped; c != nil {
		m.popped = nil
		ok, err := c.next()
		if err != nil {
			return nil, err
		}
		if ok {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
	}
	if len(m.cursors) == 0 {
		return nil, nil
	}
	return m.cursors[0].rec, nil
}

// pop passes the record peeked.
func (m *merged) pop() { m.popped = m.cursors[0] }

// close lets go of the records held in memory.
func (m *merged) close() {
	if m.release != nil {
		m.release()
		m.release = nil
	}
	m.cursors = nil
}

// heap.Interface, by key, then by run (the order records were added).
func (m *merged) Len() int { return len(m.cursors) }
func (m *merged) Less(i, j int) bool {
	if c := bytes.Compare(keyOf(m.cursors[i].rec), keyOf(m.cursors[j].rec)); c != 0 {
		return c < 0
	}
	return m.cursors[i].order < m.cursors[j].order
}
func (m *merged) Swap(i, j int) { m.cursors[i], m.cursors[j] = m.cursors[j], m.cursors[i] }
func (m *merged) Push(x any)    { m.cursors = append(m.cursors, x.(*cursor)) }
func (m *merged) Pop() any {
	c := m.cursors[len(m.cursors)-1]
	m.cursors = m.cursors[:len(m.cursors)-1]
	return c
}
