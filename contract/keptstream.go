package contract

import (
	"io"
	"os"

	"github.com/klauspost/compress/s2"
)

// The first pass over a .tar.gz inflates the whole archive, and every
// later pass inflated it again: for an upgrade, a tenth of its work, on
// the pass that keeps both cores busy. With OpenOptions.KeepStream the
// first pass keeps what it inflated, compressed with s2 on the core it
// leaves idle (an s2 stream reads back several times faster than gzip),
// in a temporary file that later passes read instead of the archive.
// Keeping it is an optimisation and nothing else: when the file cannot be
// written (no temporary folder, a full disk), later passes read the
// archive as before.

// keptBlockSize bounds the memory of the s2 writer and reader: a few
// blocks each, instead of 1 MB blocks.
const keptBlockSize = 256 << 10

// keptStream is the first pass's tar stream, s2-compressed in a file
// that is removed from its folder as soon as it is created, where the
// system allows it: only the open file holds it.
type keptStream struct {
	file *os.File
	name string // the file's name while it has one (see spoolFrom)
	size int64
}

// reader starts a pass over the kept tar stream.
func (k *keptStream) reader() io.Reader {
	return s2.NewReader(io.NewSectionReader(k.file, 0, k.size), s2.ReaderMaxBlockSize(keptBlockSize))
}

func (k *keptStream) close() error {
	if k == nil {
		return nil
	}
	err := k.file.Close()
	if k.name != "" {
		if rerr := os.Remove(k.name); err == nil {
			err = rerr
		}
	}
	return err
}

// streamKeeper writes the first pass's tar stream as it is read (an
// io.TeeReader's writer). It never fails the pass: after an error it
// stops writing, and finish keeps nothing.
type streamKeeper struct {
	kept    *keptStream
	written int64
	zw      *s2.Writer
	err     error
}

func newStreamKeeper() *streamKeeper {
	f, name, err := TempFile("bundlectl-stream-*.s2")
	if err != nil {
		return &streamKeeper{err: err}
	}
	k := &keptStream{file: f, name: name}
	s := &streamKeeper{kept: k}
	s.zw = s2.NewWriter(&countingWriter{w: f, n: &s.written}, s2.WriterBlockSize(keptBlockSize))
	return s
}

func (s *streamKeeper) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.zw.Write(p)
	}
	return len(p), nil
}

// finish ends the stream and returns it, or nil when it could not be
// kept whole.
func (s *streamKeeper) finish() *keptStream {
	if s.err == nil {
		s.err = s.zw.Close()
	}
	if s.err != nil {
		s.discard()
		return nil
	}
	s.kept.size = s.written
	return s.kept
}

// discard drops the stream of a pass that failed.
func (s *streamKeeper) discard() {
	if s.zw != nil {
		s.zw.Close()
	}
	s.kept.close()
}
