package contract

import (
	"archive/tar"
	"io"
	"strings"
)

// Entry is one file, symlink or folder of a bundle, in stream order.
type Entry struct {
	// Header is the entry's header exactly as read (for folders, built
	// from the file's mode, size and mtime); writers copy it unchanged.
	Header *tar.Header
	// Name is the cleaned name inside the archive ("./" and trailing "/" removed).
	Name string
	// Rel is the path relative to the bundle root; InRoot says whether the
	// entry is under the root at all.
	Rel    string
	InRoot bool
	// Class is what the contract knows of the entry from its path; only
	// entries under the root are classified.
	Class Classification
	// LinkRel is the target of a symlink or hard link, resolved and
	// relative to the bundle root ("" when the target is outside the root).
	LinkRel string
	// Superseded says that a later entry has the same name (see
	// Bundle.Duplicates): a reader that keeps one copy, as extracting
	// does, keeps the last and skips this one.
	Superseded bool

	r      io.Reader
	link   *linkedContent // the content of the file a link names
	closer io.Closer      // of link's content, once opened
	bundle *Bundle
}

// IsRegular says whether the entry is a regular file: one whose content
// is in the archive at this entry, which writers copy.
func (e *Entry) IsRegular() bool {
	return e.Header.Typeflag == tar.TypeReg || e.Header.Typeflag == tar.TypeRegA
}

// HasContent says whether Reader gives the entry's content: a regular
// file's, or that of the file a link names, as extracting the bundle
// gives it at the link's path (a list stored as a link reads as the file
// it names; see linked.go).
func (e *Entry) HasContent() bool { return e.IsRegular() || e.link != nil }

// Size is the number of bytes Reader gives (see HasContent).
func (e *Entry) Size() int64 {
	switch {
	case e.IsRegular():
		return e.Header.Size
	case e.link != nil:
		return e.link.size
	}
	return 0
}

// Reader returns the entry's content (see HasContent); valid only inside
// the Walk callback.
func (e *Entry) Reader() io.Reader {
	if e.link != nil && e.r == nil {
		rc, err := e.link.open()
		if err != nil {
			return errReader{e.bundle.wrap(e.Name, err)}
		}
		e.r, e.closer = io.LimitReader(rc, e.link.size), rc
	}
	if e.r == nil {
		return strings.NewReader("")
	}
	return e.r
}

// errReader fails every read.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// ReadAll loads the content for decoding, refusing entries over the decode
// limit with an error naming the entry.
func (e *Entry) ReadAll() ([]byte, error) {
	if err := e.checkDecodeSize(); err != nil {
		return nil, err
	}
	size := e.Size()
	// One buffer of the size the header declares: io.ReadAll's doubling
	// would leave up to twice the file in garbage, which for one large
	// file is most of a command's peak.
	data := make([]byte, size)
	n, err := io.ReadFull(e.Reader(), data)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		// A folder's file shrank since it was listed (an archive's
		// reader names a truncated entry with an EntryError).
		err = nil
	}
	if err != nil {
		return nil, e.bundle.wrap(e.Name, err)
	}
	return data[:n], nil
}

// Open returns the content for decoding as it is read, for a reader that
// keeps less than the whole file; it refuses entries over the decode
// limit as ReadAll does, and its errors name the entry (see LocalError).
// Valid only inside the Walk callback.
func (e *Entry) Open() (io.Reader, error) {
	if err := e.checkDecodeSize(); err != nil {
		return nil, err
	}
	return entryReader{e}, nil
}

func (e *Entry) checkDecodeSize() error {
	if max, size := e.bundle.limits.MaxDecodeSize, e.Size(); size > max {
		return e.bundle.errorf(e.Name, "%d bytes is over the %d-byte decode limit", size, max)
	}
	return nil
}

// entryReader reads an entry's content, its errors naming the entry.
type entryReader struct{ e *Entry }

func (r entryReader) Read(p []byte) (int, error) {
	n, err := r.e.Reader().Read(p)
	if err != nil && err != io.EOF {
		err = r.e.bundle.wrap(r.e.Name, err)
	}
	return n, err
}

// DecodeList reads a raw list entry and decodes it (ReadAll, then the
// package's DecodeList); an error names the entry.
func (e *Entry) DecodeList() (*List, error) {
	data, err := e.ReadAll()
	if err != nil {
		return nil, err
	}
	l, err := DecodeList(data, e.Class.Format)
	if err != nil {
		return nil, e.bundle.wrap(e.Name, err)
	}
	return l, nil
}
