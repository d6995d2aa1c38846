package contract

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// notArchiveError says that a source is not a bundle archive, from its
// first bytes.
type notArchiveError struct {
	msg  string
	hint string // more about a download (an HTML page)
}

func (e *notArchiveError) Error() string { return e.msg + e.hint }

// sniffFormat tells a bundle archive by its first bytes, reading no more
// than it needs (a few KB), so that a stream which is no archive is
// refused before it is spooled: a gzip stream whose first block inflates
// to a tar header, or a tar archive whose first block is a header. A tar
// header is known by its checksum, which every tar format has: v7
// archives carry no "ustar" magic. Errors reading r are returned as they
// are; the others are a *notArchiveError.
func sniffFormat(r io.Reader) (SourceFormat, error) {
	rr := &readErr{r: r}
	br := bufio.NewReaderSize(rr, 4096)
	head, _ := br.Peek(blockSize)
	if rr.err != nil {
		return 0, rr.err
	}
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zs, err := newGzipStream(br)
		var block [blockSize]byte
		n := 0
		if err == nil {
			n, err = io.ReadFull(zs, block[:])
		}
		switch {
		case rr.err != nil:
			return 0, rr.err
		case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
			return FormatTarGz, nil // short: the first pass says what is missing
		case err != nil:
			return 0, &notArchiveError{msg: "not a gzip-compressed tar archive: corrupt gzip stream: " + err.Error()}
		}
		return FormatTarGz, tarStart(block[:n], "not a gzip-compressed tar archive: what the gzip stream holds is no tar archive")
	}
	switch {
	case len(head) == 0:
		return 0, &notArchiveError{msg: "empty file, not a bundle archive"}
	case len(head) < blockSize && len(head) >= 262 && string(head[257:262]) == "ustar":
		return FormatTar, nil // cut short: the first pass says so
	}
	return FormatTar, tarStart(head, "not a tar or gzip-compressed tar archive")
}

// tarStart checks the first block of a tar stream; what says what the
// bytes are when they are no tar archive.
func tarStart(block []byte, what string) error {
	switch {
	case len(block) == blockSize && isZero(block):
		return &notArchiveError{msg: "an empty tar archive (it begins with the end-of-archive marker): no bundle in it"}
	case !isTarHeader(block):
		return &notArchiveError{msg: what}
	}
	return nil
}

// isTarHeader says whether a 512-byte block is a tar header: its
// checksum field holds the sum of its bytes (the field counted as
// spaces), unsigned as POSIX says or signed as old Sun tar wrote it.
func isTarHeader(block []byte) bool {
	if len(block) != blockSize {
		return false
	}
	field := strings.Trim(string(block[148:156]), " \x00")
	want, err := strconv.ParseInt(field, 8, 64)
	if err != nil {
		return false
	}
	var unsigned, signed int64
	for i, c := range block {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

// readErr keeps the error of the reader under a decoder, to tell a
// failing source from bytes that are no archive.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}
