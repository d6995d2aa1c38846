package transform

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/bundlectl/bundlectl/contract"
)

// spoolAbove is the size of a raw list above which what the upgrade makes
// of it (its table, the lists it is converted to) is written to a
// temporary file instead of being held in memory until the writer takes
// it: a table is about half the size of its list, a converted list up to
// several times.
const spoolAbove = 4 << 20

// entryBody holds an entry the upgrade made (a rendered table, a converted
// list) until the writer takes it.
type entryBody struct {
	buf  bytes.Buffer
	file *os.File
	name string // the spool file's name while it has one
	bw   *bufio.Writer
	size int64
}

// newEntryBody spools to a file that is removed from its folder as soon
// as it is created, where the system allows it: only the open file holds
// it, so an upgrade killed at any point (SIGKILL included) leaves no
// table in the temporary folder.
func newEntryBody(listSize int) (*entryBody, error) {
	t := &entryBody{}
	if listSize > spoolAbove {
		f, name, err := contract.TempFile("bundlectl-table-*.json")
		if err != nil {
			return nil, err
		}
		t.file, t.name, t.bw = f, name, bufio.NewWriterSize(f, 256<<10)
	} else {
		// A table is a sixth to a half of its list: sized for the
		// common case, it grows once at most instead of from nothing.
		t.buf.Grow(listSize / 4)
	}
	return t, nil
}

// bodyOf holds data.
func bodyOf(data []byte) *entryBody {
	t := &entryBody{size: int64(len(data))}
	t.buf = *bytes.NewBuffer(data)
	return t
}

func (t *entryBody) Write(p []byte) (int, error) {
	var n int
	var err error
	if t.file != nil {
		n, err = t.bw.Write(p)
	} else {
		n, err = t.buf.Write(p)
	}
	t.size += int64(n)
	return n, err
}

// reader returns the table from its start.
func (t *entryBody) reader() (io.Reader, error) {
	if t.file == nil {
		return &t.buf, nil
	}
	if err := t.bw.Flush(); err != nil {
		return nil, err
	}
	if _, err := t.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// The writer reads it in its own buffer (contract.Writer.WriteEntry).
	return t.file, nil
}

// discard frees the table; it is safe on a nil body.
func (t *entryBody) discard() {
	if t != nil && t.file != nil {
		t.file.Close()
		if t.name != "" {
			os.Remove(t.name)
		}
	}
}
