package contract

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/gzip"
)

// gzipStream decompresses a gzip file as gzip -d does: members written
// one after another are one stream, and zero bytes after the last member
// (tape blocking, padded uploads) are padding, which gzip and GNU tar
// accept. Other bytes after the last member end the stream and are noted.
type gzipStream struct {
	br *bufio.Reader
	zr *gzip.Reader
	// garbage counts bytes after the last member that are neither a
	// member nor zero padding.
	garbage int64
	// ended says the stream was read to its end, every member's checksum
	// verified: a tar stream that stops short of its end-of-archive
	// marker then ends where its archive ends, and is not cut.
	ended bool
}

func newGzipStream(br *bufio.Reader) (*gzipStream, error) {
	g := &gzipStream{br: br, zr: new(gzip.Reader)}
	if err := g.startMember(); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if n > 0 && err == io.EOF {
			// A member ended: the next read starts the next one. (A
			// reader that stops at its first io.EOF, as bufio.Reader
			// does, must not see the end of a member as the end.)
			return n, nil
		}
		if err != io.EOF {
			return n, err
		}
		more, err := g.nextMember()
		if err != nil {
			return 0, err
		}
		if !more {
			g.ended = true
			return 0, io.EOF
		}
	}
}

// nextMember starts the member that follows the one just ended, if any;
// at the end it skips zero padding and counts whatever else is left.
func (g *gzipStream) nextMember() (bool, error) {
	head, _ := g.br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		return true, g.startMember()
	}
	for {
		c, err := g.br.ReadByte()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if c != 0 {
			n, err := io.Copy(io.Discard, g.br)
			g.garbage = n + 1
			return false, err
		}
	}
}

// startMember reads a member's header. klauspost's reader (like Go's)
// refuses a file name or comment of 512 bytes or more, which gzip
// writes and reads (gzip -N keeps any name); such a header is read here,
// and the inflater is given a plain one in its place. Every other member
// goes to the inflater as it is, read from the bufio.Reader it inflates
// fastest from.
func (g *gzipStream) startMember() error {
	if fitsInflater(g.br) {
		if err := g.zr.Reset(g.br); err != nil {
			return err
		}
	} else {
		if err := skipGzipHeader(g.br); err != nil {
			return err
		}
		if err := g.zr.Reset(&plainHeader{br: g.br}); err != nil {
			return err
		}
	}
	g.zr.Multistream(false)
	return nil
}

// gzip header flags (RFC 1952, 2.3.1).
const (
	gzipFlagHCRC    = 1 << 1
	gzipFlagExtra   = 1 << 2
	gzipFlagName    = 1 << 3
	gzipFlagComment = 1 << 4
)

// maxInflaterString is the longest file name or comment, its NUL
// included, that the gzip package reads.
const maxInflaterString = 512

// fitsInflater says whether the header at the start of br has no file
// name or comment too long for the gzip package; when in doubt (a header
// cut short), it says no, and skipGzipHeader says what is wrong.
func fitsInflater(br *bufio.Reader) bool {
	h, _ := br.Peek(10)
	if len(h) < 10 || h[3]&(gzipFlagName|gzipFlagComment) == 0 {
		return true
	}
	at := 10
	if h[3]&gzipFlagExtra != 0 {
		x, _ := br.Peek(at + 2)
		if len(x) < at+2 {
			return false
		}
		at += 2 + int(binary.LittleEndian.Uint16(x[at:]))
	}
	for _, f := range []byte{gzipFlagName, gzipFlagComment} {
		if h[3]&f == 0 {
			continue
		}
		s, _ := br.Peek(at + maxInflaterString)
		if len(s) <= at {
			return false
		}
		end := bytes.IndexByte(s[at:], 0)
		if end < 0 {
			return false
		}
		at += end + 1
	}
	return true
}

// skipGzipHeader reads a member header of any length, checking it as
// gzip does: its method, reserved flags and header checksum.
func skipGzipHeader(br *bufio.Reader) error {
	crc := crc32.NewIEEE()
	r := io.TeeReader(br, crc)
	var h [10]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return noEOF(err)
	}
	flags := h[3]
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || flags>>5 != 0 {
		return gzip.ErrHeader
	}
	if flags&gzipFlagExtra != 0 {
		var n [2]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return noEOF(err)
		}
		if _, err := io.CopyN(io.Discard, r, int64(binary.LittleEndian.Uint16(n[:]))); err != nil {
			return noEOF(err)
		}
	}
	for _, f := range []byte{gzipFlagName, gzipFlagComment} {
		if flags&f == 0 {
			continue
		}
		for {
			s, err := br.ReadSlice(0)
			crc.Write(s)
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				return noEOF(err)
			}
		}
	}
	if flags&gzipFlagHCRC != 0 {
		sum := uint16(crc.Sum32())
		var c [2]byte
		if _, err := io.ReadFull(br, c[:]); err != nil {
			return noEOF(err)
		}
		if binary.LittleEndian.Uint16(c[:]) != sum {
			return gzip.ErrHeader
		}
	}
	return nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// plainHeader is a member whose header skipGzipHeader has read: the
// inflater reads a header with no optional field, then the member's
// deflate data and trailer from br.
type plainHeader struct {
	at int
	br *bufio.Reader
}

// gzipPlainHeader is a member header with no optional field.
var gzipPlainHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

func (p *plainHeader) Read(b []byte) (int, error) {
	if p.at < len(gzipPlainHeader) {
		n := copy(b, gzipPlainHeader[p.at:])
		p.at += n
		return n, nil
	}
	return p.br.Read(b)
}

func (p *plainHeader) ReadByte() (byte, error) {
	if p.at < len(gzipPlainHeader) {
		p.at++
		return gzipPlainHeader[p.at-1], nil
	}
	return p.br.ReadByte()
}
