package contract

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// How an archive ends, read as GNU tar reads it. Between entries the
// stream holds the last entry's padding to a 512-byte block, then either
// a header or the end-of-archive marker (two zero blocks); GNU tar also
// takes an archive that stops short of the marker (a lone zero block:
// "A lone zero block at N"; no zero block at all, or a block after the
// padding cut short: silently). archive/tar refuses the first and cannot
// tell the others from an archive cut inside an entry, so each pass
// looks ahead itself at every entry boundary. An archive cut inside an
// entry or its padding is truncated, as GNU tar says ("Unexpected EOF").

// atEnd looks at what follows the entry that ends at offset pos of the
// tar stream, and says whether the archive ends there; when it does, err
// is nil for an end tar accepts (noted as a warning by the first pass)
// and what made the pass fail otherwise.
func (b *Bundle) atEnd(br *bufio.Reader, pos int64, last string) (bool, error) {
	pad := int((blockSize - pos%blockSize) % blockSize)
	p, err := br.Peek(pad + 2*blockSize)
	if err != nil && err != io.EOF {
		return true, b.truncated(last, err)
	}
	blocks := p[min(pad, len(p)):]
	switch {
	case len(blocks) >= blockSize && !isZero(blocks[:blockSize]):
		return false, nil // a header
	case len(blocks) == 2*blockSize && isZero(blocks[blockSize:]):
		br.Discard(pad + 2*blockSize)
		return true, b.readAfterEnd(br, last, "")
	case len(blocks) >= blockSize:
		br.Discard(pad + blockSize)
		return true, b.readAfterEnd(br, last, "the archive ends at a lone zero block instead of the two zero blocks of an end-of-archive marker; read as tar reads it")
	}
	if len(p) < pad {
		return true, b.truncated(last, io.ErrUnexpectedEOF) // in the padding: so does tar
	}
	if b.scanning {
		msg := "the archive ends without an end-of-archive marker"
		if last != "" {
			msg += fmt.Sprintf(" after %q", last)
		}
		if len(blocks) > 0 {
			msg += ", in a last block cut short"
		}
		b.warn("", errors.New(msg+"; read as tar reads it (an archive cut at an entry boundary looks the same)"))
	}
	return true, nil
}

const blockSize = 512

func isZero(p []byte) bool { return !bytes.ContainsFunc(p, func(c rune) bool { return c != 0 }) }

// readAfterEnd reads the tar stream after its end to the end of the file:
// the gzip checksum is only verified there, and what follows the end is
// reported, never silently dropped. lone is the warning of an end that
// is one zero block short, "" for a whole marker.
func (b *Bundle) readAfterEnd(r io.Reader, last, lone string) error {
	after, err := afterMarker(r)
	if err != nil {
		return b.truncated(last, err)
	}
	if !b.scanning {
		return nil
	}
	if lone != "" {
		b.warn("", errors.New(lone))
	}
	switch {
	case after.secondArchive:
		b.warn("", fmt.Errorf("a second tar archive (%d bytes) follows the end-of-archive marker; only the first is read, as tar does without --ignore-zeros", after.data))
	case after.data > 0:
		b.warn("", fmt.Errorf("%d bytes of data after the end-of-archive marker are ignored", after.data))
	}
	return nil
}

// trailing is what an archive holds after its end-of-archive marker.
type trailing struct {
	// data counts the non-zero bytes of the tar stream after the marker
	// (zero blocks are tar's own padding).
	data int64
	// secondArchive: those bytes start with a tar header, as when two
	// archives are concatenated; tar reads only the first without -i.
	secondArchive bool
}

// afterMarker reads the tar stream after the end-of-archive marker to its end.
func afterMarker(r io.Reader) (trailing, error) {
	var t trailing
	block := make([]byte, blockSize)
	for {
		n, err := io.ReadFull(r, block)
		switch {
		case t.data > 0:
			t.data += int64(n)
		case !isZero(block[:n]):
			t.data = int64(n)
			t.secondArchive = n == len(block) && isTarHeader(block)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
	}
}

// noteGarbage records, once, bytes after the gzip stream.
func (b *Bundle) noteGarbage(zs *gzipStream) {
	if b.scanning && zs != nil && zs.garbage > 0 {
		b.warn("", fmt.Errorf("%d bytes after the gzip stream are neither gzip nor zero padding; ignored", zs.garbage))
	}
}

func (b *Bundle) warn(entry string, err error) {
	if entry == "" {
		entry = b.Path
	}
	b.Warnings = append(b.Warnings, Problem{Path: entry, Message: err.Error()})
}

// countingReader counts what the tar reader consumed: its offset in the
// tar stream, where padding to the next block is computed from.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// tarContent names the entry when its bytes turn out to be truncated or corrupt.
type tarContent struct {
	tr   *tar.Reader
	b    *Bundle
	name string
}

func (t *tarContent) Read(p []byte) (int, error) {
	n, err := t.tr.Read(p)
	if err != nil && err != io.EOF {
		return n, t.b.truncated(t.name, err)
	}
	return n, err
}

func (b *Bundle) truncated(entry string, err error) error {
	var ee *EntryError
	if errors.As(err, &ee) {
		return err
	}
	what := "corrupt archive"
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		what, err = "archive is truncated", io.ErrUnexpectedEOF
	} else if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		what = "corrupt gzip stream"
	}
	if entry == "" {
		return b.errorf("", "%s: %v", what, err)
	}
	return b.errorf(entry, "%s in or after this entry: %v", what, err)
}
