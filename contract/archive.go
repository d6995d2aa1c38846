package contract

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// SourceFormat is how a bundle is stored on disk.
type SourceFormat int

const (
	FormatTarGz SourceFormat = iota
	FormatTar
	FormatFolder
)

func (f SourceFormat) String() string { return [...]string{"tar.gz", "tar", "folder"}[f] }

// Limits bound what a hostile bundle can make a reader do. A support bundle
// comes from a customer's cluster: every size is checked before it is
// trusted.
type Limits struct {
	// MaxEntrySize refuses any entry larger than this (a gzip bomb declares
	// or expands to a huge entry).
	MaxEntrySize int64
	// MaxTotalSize refuses bundles whose entries add up to more.
	MaxTotalSize int64
	// MaxDecodeSize is the largest file ReadAll loads into memory for
	// decoding; larger lists are copied but not decoded.
	MaxDecodeSize int64
}

// DefaultLimits are generous for real bundles (the largest real lists are
// tens of MB) and stop bombs long before memory or disk run out.
var DefaultLimits = Limits{MaxEntrySize: 4 << 30, MaxTotalSize: 64 << 30, MaxDecodeSize: 1 << 30}

// EntryError names the entry a problem was found in.
type EntryError struct {
	Bundle string // the archive or folder
	Entry  string // the entry's name inside it, "" for the bundle as a whole
	Err    error
}

func (e *EntryError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("%s: %v", e.Bundle, e.Err)
	}
	return fmt.Sprintf("%s: entry %q: %v", e.Bundle, e.Entry, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

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
	bundle *Bundle
}

// IsRegular says whether the entry has content.
func (e *Entry) IsRegular() bool {
	return e.Header.Typeflag == tar.TypeReg || e.Header.Typeflag == tar.TypeRegA
}

// Reader returns the entry's content; valid only inside the Walk callback.
func (e *Entry) Reader() io.Reader {
	if e.r == nil {
		return strings.NewReader("")
	}
	return e.r
}

// ReadAll loads the content for decoding, refusing entries over the decode
// limit with an error naming the entry.
func (e *Entry) ReadAll() ([]byte, error) {
	max := e.bundle.limits.MaxDecodeSize
	if e.Header.Size > max {
		return nil, e.bundle.errorf(e.Name, "%d bytes is over the %d-byte decode limit", e.Header.Size, max)
	}
	// One buffer of the size the header declares: io.ReadAll's doubling
	// would leave up to twice the file in garbage, which for one large
	// file is most of a command's peak.
	data := make([]byte, e.Header.Size)
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

// Bundle is an opened bundle: its layout is known from a first pass over
// the headers, and Walk streams the entries in a second pass. Memory does
// not grow with the bundle's size, only with its number of entries.
type Bundle struct {
	// Path is the source as named, a URL with its secrets redacted
	// (SourceName): what messages and reports call the bundle.
	Path   string
	Format SourceFormat
	// Root is the bundle root's name inside the archive ("" at the top).
	Root string
	// Entries and Size count every entry and its content bytes;
	// LargestEntry is the size of the largest.
	Entries      int
	Size         int64
	LargestEntry int64
	// Names holds the Rel of every entry under the root.
	Names map[string]bool
	// HasClusterResources says whether the root has a cluster-resources/
	// folder: a bundle of host collectors, analysis or a preflight's
	// results only has none, and nothing to render or serve
	// (NoClusterResources).
	HasClusterResources bool
	// Duplicates lists names that occur more than once; Walk delivers every
	// occurrence (a reader that extracts keeps the last).
	Duplicates []string
	// Small files read during the first pass because everything else needs
	// them before the stream starts.
	VersionFile, ClusterVersion, DiscoveryJSON []byte
	// CRDList is cluster-resources/custom-resource-definitions.json, read
	// in the first pass because the tables of custom resources need it and
	// troubleshoot writes it after them.
	CRDList []byte
	// NewestMtime is the newest modification time of a file under
	// cluster-resources/; EarliestFileTime and NewestFileTime those of
	// every file under the root. Archiver files (IsArchiverFile) are
	// left out of all three.
	NewestMtime                      time.Time
	EarliestFileTime, NewestFileTime time.Time
	// NewestObjectTime is the newest time the printers or the apiserver
	// stamped on an object of the root's JSON lists (see objecttimes.go),
	// NewestObjectFile the list it is in; zero and "" when none.
	NewestObjectTime time.Time
	NewestObjectFile string
	// Warnings are what the archive holds that is not part of the bundle
	// and is ignored: data after the end-of-archive marker or after the
	// gzip stream. Readers report them; nothing in them is lost silently.
	Warnings []Problem

	limits Limits
	// spool holds an archive read from stdin or a URL (see spoolFrom);
	// spoolName is its name only where it could not be removed at once.
	spool     *os.File
	spoolSize int64
	spoolName string
	// notArchiveHint says more of a download that is not an archive.
	notArchiveHint string
	// scanning is true during the first pass, which alone notes Warnings.
	scanning bool
	// keepStream asks the first pass over a .tar.gz to keep the tar
	// stream it inflates for the later passes (OpenOptions.KeepStream);
	// kept is that stream once the first pass has read it all.
	keepStream bool
	kept       *keptStream
}

// Open opens a .tar.gz, .tgz or .tar archive (recognised by content, not
// name), an extracted folder, or "-" for an archive on standard input
// (spooled to a temporary file so it can be read twice), and checks every
// entry before anything is trusted.
func Open(name string, limits Limits) (*Bundle, error) {
	return OpenReader(name, nil, limits)
}

// OpenReader is Open with "-" read from stdin instead of os.Stdin.
func OpenReader(name string, stdin io.Reader, limits Limits) (*Bundle, error) {
	return OpenContext(context.Background(), name, OpenOptions{Stdin: stdin, Limits: limits})
}

// OpenOptions configure OpenContext.
type OpenOptions struct {
	// Stdin is read for "-"; nil is os.Stdin.
	Stdin io.Reader
	// HTTP says how a bundle named by an https:// URL is fetched.
	HTTP   HTTPOptions
	Limits Limits
	// KeepStream keeps what the first pass inflates of a .tar.gz, so
	// that the passes after it (Walk) do not inflate the archive again:
	// for a caller that walks the bundle at least once (see keptstream.go).
	KeepStream bool
}

// OpenContext is Open for any source: a file, a folder, "-", or an
// http(s):// URL, downloaded once into a spool (see HTTPOptions and
// Bundle.fetch); ctx ends a download.
func OpenContext(ctx context.Context, name string, o OpenOptions) (*Bundle, error) {
	limits := o.Limits
	if limits == (Limits{}) {
		limits = DefaultLimits
	}
	b := &Bundle{Path: name, limits: limits, Names: map[string]bool{}, keepStream: o.KeepStream}
	switch {
	case name == "-":
		stdin := o.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		if err := b.spoolFrom(stdin); err != nil {
			return nil, fmt.Errorf("spooling standard input: %w", err)
		}
	case IsURL(name):
		b.Path = SourceName(name)
		if err := b.fetch(ctx, name, o.HTTP); err != nil {
			return nil, err
		}
	default:
		fi, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("opening bundle: %w", err)
		}
		if fi.IsDir() {
			b.Format = FormatFolder
		}
	}
	if b.Format != FormatFolder {
		f, err := b.detectFormat()
		if err != nil {
			b.Close()
			return nil, &EntryError{Bundle: b.Path, Err: err}
		}
		b.Format = f
	}
	if err := b.scan(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Limits are the limits the bundle was opened with.
func (b *Bundle) Limits() Limits { return b.limits }

// Close releases the spool of a bundle read from stdin or a URL, and
// the stream the first pass kept.
func (b *Bundle) Close() error {
	err := b.kept.close()
	b.kept = nil
	if b.spool == nil {
		return err
	}
	err = errors.Join(err, b.spool.Close())
	if b.spoolName != "" {
		err = errors.Join(err, os.Remove(b.spoolName))
	}
	return err
}

// open starts one pass over the archive's bytes.
func (b *Bundle) open() (io.ReadCloser, error) {
	if b.spool != nil {
		return io.NopCloser(io.NewSectionReader(b.spool, 0, b.spoolSize)), nil
	}
	return os.Open(b.Path)
}

// spoolFrom copies an archive that can be read only once (standard
// input, a download) into a private temporary file, because every
// command reads the archive more than once (see Bundle). The file is
// created 0600 and removed at once, before a byte is written: only the
// open descriptor reaches it, so it is gone when the process ends,
// however it ends (an error, Ctrl-C, even SIGKILL), and nobody else can
// open it meanwhile. Where an open file cannot be removed (Windows),
// Close removes it.
func (b *Bundle) spoolFrom(r io.Reader) error {
	f, err := os.CreateTemp("", "bundlectl-spool-*")
	if err != nil {
		return err
	}
	if os.Remove(f.Name()) != nil {
		b.spoolName = f.Name()
	}
	b.spool = f
	n, err := io.Copy(f, io.LimitReader(r, b.limits.MaxTotalSize+1))
	b.spoolSize = n
	if err == nil && n > b.limits.MaxTotalSize {
		err = fmt.Errorf("over the %d-byte limit of a bundle", b.limits.MaxTotalSize)
	}
	if err != nil {
		b.Close()
		b.spool = nil
		return err
	}
	return nil
}

func (b *Bundle) detectFormat() (SourceFormat, error) {
	f, err := b.open()
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case n >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return FormatTarGz, nil
	case n >= 262 && string(head[257:262]) == "ustar":
		return FormatTar, nil
	case n == 0:
		return 0, errors.New("empty file, not a bundle archive")
	}
	return 0, errors.New("not a tar or gzip-compressed tar archive" + b.notArchiveHint)
}

func (b *Bundle) errorf(entry, format string, args ...any) error {
	return &EntryError{Bundle: b.Path, Entry: entry, Err: fmt.Errorf(format, args...)}
}

func (b *Bundle) wrap(entry string, err error) error {
	var ee *EntryError
	if errors.As(err, &ee) {
		return err
	}
	return &EntryError{Bundle: b.Path, Entry: entry, Err: err}
}

// rawEntry is what both passes see of an entry before classification.
type rawEntry struct {
	hdr  *tar.Header
	name string
	open func() (io.ReadCloser, error) // folders only
	r    io.Reader                     // archives only
}

// each iterates the raw entries of the source in order.
func (b *Bundle) each(fn func(re rawEntry) error) error {
	if b.Format == FormatFolder {
		return b.eachFile(fn)
	}
	return b.eachTar(fn)
}

func (b *Bundle) eachTar(fn func(re rawEntry) error) (err error) {
	r, zs, done, err := b.tarStream()
	if err != nil {
		return err
	}
	defer func() { done(err) }()
	tail := &tailReader{r: r}
	tr := tar.NewReader(tail)
	last := ""
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			if !tail.endsWithMarker() {
				return b.truncated(last, io.ErrUnexpectedEOF)
			}
			// Read on to the end: the gzip checksum is only verified
			// there, and what follows the end-of-archive marker is
			// reported, never silently dropped.
			after, err := afterMarker(r)
			if err != nil {
				return b.truncated(last, err)
			}
			if b.scanning {
				b.noteTrailing(after, zs)
			}
			return nil
		}
		if err != nil {
			return b.truncated(last, err)
		}
		name, err := cleanName(hdr.Name)
		if err != nil {
			return b.errorf(shortName(hdr.Name), "%v", err)
		}
		last = name
		hdr = b.regularFolder(name, hdr)
		if err := fn(rawEntry{hdr: hdr, name: name, r: &tarContent{tr: tr, b: b, name: name}}); err != nil {
			return err
		}
	}
}

// tarStream starts a pass over the archive's tar stream: the stream the
// first pass kept, else the archive, inflated when it is a .tar.gz (zs is
// then its gzip reader). done ends the pass with its error; after a first
// pass read to its end, it keeps the stream that pass read.
func (b *Bundle) tarStream() (r io.Reader, zs *gzipStream, done func(error), err error) {
	if b.kept != nil {
		return b.kept.reader(), nil, func(error) {}, nil
	}
	f, err := b.open()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("opening bundle: %w", err)
	}
	br := bufio.NewReaderSize(f, 1<<20)
	r = br
	if b.Format != FormatTarGz {
		return r, nil, func(error) { f.Close() }, nil
	}
	if zs, err = newGzipStream(br); err != nil {
		f.Close()
		return nil, nil, nil, b.errorf("", "corrupt gzip stream: %v", err)
	}
	if !b.scanning || !b.keepStream {
		return zs, zs, func(error) { f.Close() }, nil
	}
	keeper := newStreamKeeper()
	return io.TeeReader(zs, keeper), zs, func(err error) {
		f.Close()
		if err != nil {
			keeper.discard()
			return
		}
		b.kept = keeper.finish()
	}, nil
}

// regularFolder reads a regular entry whose name ends in "/" as GNU tar
// extracts it: a folder, its content skipped (Go's tar writer cannot even
// encode such a name). The skipped bytes are a warning.
func (b *Bundle) regularFolder(name string, hdr *tar.Header) *tar.Header {
	if (hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA) || !strings.HasSuffix(hdr.Name, "/") {
		return hdr
	}
	if b.scanning {
		b.warn(name, fmt.Errorf("a regular entry whose name ends in /: read as a folder, as tar extracts it, and its %d bytes skipped", hdr.Size))
	}
	dir := *hdr
	dir.Typeflag, dir.Size = tar.TypeDir, 0
	return &dir
}

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
}

func newGzipStream(br *bufio.Reader) (*gzipStream, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gzipStream{br: br, zr: zr}, nil
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF || n > 0 {
			return n, err
		}
		more, err := g.nextMember()
		if err != nil {
			return 0, err
		}
		if !more {
			return 0, io.EOF
		}
	}
}

// nextMember starts the member that follows the one just ended, if any;
// at the end it skips zero padding and counts whatever else is left.
func (g *gzipStream) nextMember() (bool, error) {
	head, _ := g.br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		if err := g.zr.Reset(g.br); err != nil {
			return false, err
		}
		g.zr.Multistream(false)
		return true, nil
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
	block := make([]byte, 512)
	for {
		n, err := io.ReadFull(r, block)
		switch {
		case t.data > 0:
			t.data += int64(n)
		case bytes.ContainsFunc(block[:n], func(c rune) bool { return c != 0 }):
			t.data = int64(n)
			t.secondArchive = n == len(block) && string(block[257:262]) == "ustar"
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return t, nil
		}
		if err != nil {
			return t, err
		}
	}
}

// noteTrailing records, once, what the archive holds after the bundle.
func (b *Bundle) noteTrailing(t trailing, zs *gzipStream) {
	switch {
	case t.secondArchive:
		b.warn("", fmt.Errorf("a second tar archive (%d bytes) follows the end-of-archive marker; only the first is read, as tar does without --ignore-zeros", t.data))
	case t.data > 0:
		b.warn("", fmt.Errorf("%d bytes of data after the end-of-archive marker are ignored", t.data))
	}
	if zs != nil && zs.garbage > 0 {
		b.warn("", fmt.Errorf("%d bytes after the gzip stream are neither gzip nor zero padding; ignored", zs.garbage))
	}
}

func (b *Bundle) warn(entry string, err error) {
	if entry == "" {
		entry = b.Path
	}
	b.Warnings = append(b.Warnings, Problem{Path: entry, Message: err.Error()})
}

// tailReader remembers how much the tar reader consumed and its last two
// blocks. archive/tar answers io.EOF for an archive cut inside an entry's
// padding or at an entry boundary; only the end-of-archive marker (two zero
// blocks) proves that nothing was lost.
type tailReader struct {
	r    io.Reader
	n    int64
	tail [1024]byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.n += int64(n)
		if n >= len(t.tail) {
			copy(t.tail[:], p[n-len(t.tail):n])
		} else {
			copy(t.tail[:], t.tail[n:])
			copy(t.tail[len(t.tail)-n:], p[:n])
		}
	}
	return n, err
}

func (t *tailReader) endsWithMarker() bool {
	if t.n < int64(len(t.tail)) || t.n%512 != 0 {
		return false
	}
	for _, c := range t.tail {
		if c != 0 {
			return false
		}
	}
	return true
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
	what := "corrupt archive"
	if errors.Is(err, io.ErrUnexpectedEOF) {
		what = "archive is truncated"
	} else if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		what = "corrupt gzip stream"
	}
	if entry == "" {
		return b.errorf("", "%s: %v", what, err)
	}
	return b.errorf(entry, "%s in or after this entry: %v", what, err)
}

func (b *Bundle) eachFile(fn func(re rawEntry) error) error {
	root := b.Path
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return b.wrap(p, err)
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return b.wrap(p, err)
		}
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return b.wrap(rel, err)
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return b.wrap(rel, err)
			}
		}
		hdr, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return b.errorf(rel, "%v", err)
		}
		hdr.Name = rel
		if fi.IsDir() {
			hdr.Name += "/"
		}
		// Folders carry no owner names worth copying; keep headers stable.
		hdr.Uname, hdr.Gname = "", ""
		if hdr.ModTime.Nanosecond() != 0 {
			// Only PAX keeps a file time below the second; other tar
			// formats would round it when the entry is written.
			hdr.Format = tar.FormatPAX
		}
		re := rawEntry{hdr: hdr, name: rel}
		if fi.Mode().IsRegular() {
			re.open = func() (io.ReadCloser, error) { return os.Open(p) }
		}
		return fn(re)
	})
}

// cleanName refuses names that could write or read outside the bundle.
// shortName is a name fit for an error message: its first 200 bytes.
func shortName(name string) string {
	if len(name) > 200 {
		return strings.ToValidUTF8(name[:200], "") + "..."
	}
	return name
}

// maxNameLen caps entry names (a PAX record may hold a megabyte of one,
// and every name is held in memory): Linux's PATH_MAX, which no extracted
// bundle can exceed anyway.
const maxNameLen = 4096

func cleanName(name string) (string, error) {
	if len(name) > maxNameLen {
		return "", fmt.Errorf("name of %d bytes is over the %d-byte limit of a path (PATH_MAX)", len(name), maxNameLen)
	}
	if !utf8.ValidString(name) {
		return "", errors.New("name is not valid UTF-8")
	}
	if strings.ContainsRune(name, 0) {
		return "", errors.New("name contains a NUL byte")
	}
	if strings.HasPrefix(name, "/") || filepath.IsAbs(name) || (len(name) > 1 && name[1] == ':') {
		return "", errors.New("absolute path")
	}
	clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", errors.New("path escapes the bundle with ..")
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", errors.New("path contains ..")
		}
	}
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

// checkHeader refuses entry types and sizes a bundle never has.
func (b *Bundle) checkHeader(name string, hdr *tar.Header) error {
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA, tar.TypeDir, tar.TypeSymlink, tar.TypeLink,
		tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
	default:
		return b.errorf(name, "entry type %q is not allowed in a bundle (only files, folders and links)", string(hdr.Typeflag))
	}
	if hdr.Size < 0 || hdr.Size > b.limits.MaxEntrySize {
		return b.errorf(name, "entry of %d bytes is over the %d-byte limit (a decompression bomb?)", hdr.Size, b.limits.MaxEntrySize)
	}
	if hdr.Typeflag == tar.TypeSymlink || hdr.Typeflag == tar.TypeLink {
		if len(hdr.Linkname) > maxNameLen {
			return b.errorf(name, "link target of %d bytes is over the %d-byte limit of a path (PATH_MAX)", len(hdr.Linkname), maxNameLen)
		}
		if _, err := resolveLink(name, hdr); err != nil {
			return b.errorf(name, "%v", err)
		}
	}
	return nil
}

// resolveLink resolves a link target to a name inside the archive. Symlink
// targets are relative to the link's folder; hard link targets are archive
// names. Targets that leave the archive are refused.
func resolveLink(name string, hdr *tar.Header) (string, error) {
	target := strings.ReplaceAll(hdr.Linkname, "\\", "/")
	if target == "" {
		return "", errors.New("link has an empty target")
	}
	if strings.HasPrefix(target, "/") || filepath.IsAbs(target) {
		return "", fmt.Errorf("link target %q is absolute", hdr.Linkname)
	}
	var full string
	if hdr.Typeflag == tar.TypeSymlink {
		full = path.Join(path.Dir(name), target)
	} else {
		full = path.Clean(target)
	}
	if full == ".." || strings.HasPrefix(full, "../") {
		return "", fmt.Errorf("link target %q leaves the bundle", hdr.Linkname)
	}
	return full, nil
}

// checkLinkPaths refuses what checkHeader cannot see one entry at a time:
// a path that goes through a link. Each link is checked where its name
// says it is; behind another link it is somewhere else, and a target
// that stays inside lexically ("up/../x") can leave the bundle for real
// when "up" is a link. Real bundles hold links only as files (the YAML
// twin of a list), so no entry is under a link and no target passes
// through one.
func (b *Bundle) checkLinkPaths(names []string, links map[string]*tar.Header) error {
	if len(links) == 0 {
		return nil
	}
	for _, n := range names {
		for dir := path.Dir(n); dir != "."; dir = path.Dir(dir) {
			if links[dir] != nil {
				return b.errorf(n, "its folder %q is a link (links in a bundle are files, never folders)", dir)
			}
		}
	}
	for _, n := range names {
		hdr := links[n]
		if hdr == nil {
			continue
		}
		var cur []string
		if hdr.Typeflag == tar.TypeSymlink && path.Dir(n) != "." {
			cur = strings.Split(path.Dir(n), "/")
		}
		parts := strings.Split(strings.ReplaceAll(hdr.Linkname, "\\", "/"), "/")
		for i, p := range parts {
			switch p {
			case "", ".":
				continue
			case "..":
				if len(cur) > 0 {
					cur = cur[:len(cur)-1]
				}
				continue
			}
			cur = append(cur, p)
			via := strings.Join(cur, "/")
			if links[via] == nil || via == n {
				continue
			}
			for _, rest := range parts[i+1:] {
				if rest != "" && rest != "." {
					return b.errorf(n, "link target %q goes through the link %q", hdr.Linkname, via)
				}
			}
		}
	}
	return nil
}

// scan is the first pass: it checks every header, finds the root, and
// keeps the few small files that the second pass needs up front.
func (b *Bundle) scan() error {
	b.scanning = true
	defer func() { b.scanning = false }()
	var names []string
	seen := map[string]bool{}
	versionDirs := map[string]bool{}
	crDirs := map[string]bool{}
	var total int64
	keep := map[string][]byte{}
	var kept int64               // bytes in keep
	deferred := map[string]int{} // early files over the budget: the ordinal of the last copy
	ordinal := -1                // of the entry in the stream
	mtimes := map[string]time.Time{}
	objectTimes := map[string]objectTime{} // by root candidate
	var times timeScanner
	links := map[string]*tar.Header{}
	err := b.each(func(re rawEntry) error {
		if re.name == "" {
			return nil
		}
		if err := b.checkHeader(re.name, re.hdr); err != nil {
			return err
		}
		ordinal++
		b.Entries++
		total += re.hdr.Size
		b.LargestEntry = max(b.LargestEntry, re.hdr.Size)
		if total > b.limits.MaxTotalSize {
			return b.errorf(re.name, "bundle content exceeds %d bytes", b.limits.MaxTotalSize)
		}
		if seen[re.name] {
			b.Duplicates = append(b.Duplicates, re.name)
		}
		seen[re.name] = true
		names = append(names, re.name)
		if re.hdr.Typeflag == tar.TypeSymlink || re.hdr.Typeflag == tar.TypeLink {
			links[re.name] = re.hdr
		}
		if IsArchiverFile(re.name) {
			// Copied, never read: it tells nothing of the root or the time.
			return b.drain(re)
		}
		dir, base := path.Split(re.name)
		dir = strings.TrimSuffix(dir, "/")
		if base == VersionFilePath {
			versionDirs[dir] = true
		}
		regular := re.hdr.Typeflag == tar.TypeReg || re.hdr.Typeflag == tar.TypeRegA
		var objects *listTimes
		parts := strings.Split(re.name, "/")
		for i, p := range parts {
			if p == ClusterResourcesDir && (i < len(parts)-1 || re.hdr.Typeflag == tar.TypeDir) {
				root := strings.Join(parts[:i], "/")
				crDirs[root] = true
				if regular {
					objects = newListTimes(root, strings.Join(parts[i:], "/"), objectTimes, &times)
				}
				break
			}
		}
		if regular {
			mtimes[re.name] = re.hdr.ModTime
			if b.keepEarly(re.name, re.hdr.Size, kept, ordinal, deferred) {
				data, err := readRaw(re)
				if err != nil {
					return b.wrap(re.name, err)
				}
				kept += int64(len(data)) - int64(len(keep[re.name]))
				keep[re.name] = data
				delete(deferred, re.name) // this later copy is the one read
				if objects != nil {
					objects.readBytes(data)
				}
			} else if objects != nil {
				if err := objects.readEntry(re); err != nil {
					return b.wrap(re.name, err)
				}
			} else {
				return b.drain(re)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := b.checkLinkPaths(names, links); err != nil {
		return err
	}
	b.Size = total
	b.Root = chooseRoot(versionDirs, crDirs)
	prefix := ""
	if b.Root != "" {
		prefix = b.Root + "/"
	}
	for _, n := range names {
		if rel, ok := strings.CutPrefix(n, prefix); ok || prefix == "" {
			if prefix == "" {
				rel = n
			}
			b.Names[rel] = true
			if strings.HasPrefix(rel, ClusterResourcesDir+"/") && !IsArchiverFile(rel) {
				b.HasClusterResources = true
			}
			if t, ok := mtimes[n]; ok {
				b.noteFileTime(rel, t)
			}
		}
	}
	newest := objectTimes[b.Root]
	b.NewestObjectTime, b.NewestObjectFile = newest.t, newest.rel
	keep = map[string][]byte{prefix + VersionFilePath: keep[prefix+VersionFilePath], prefix + ClusterVersionPath: keep[prefix+ClusterVersionPath],
		prefix + DiscoveryPath(): keep[prefix+DiscoveryPath()], prefix + CRDListPath: keep[prefix+CRDListPath]}
	if err := b.readDeferred(keep, deferred); err != nil {
		return err
	}
	b.VersionFile = keep[prefix+VersionFilePath]
	b.ClusterVersion = keep[prefix+ClusterVersionPath]
	b.DiscoveryJSON = keep[prefix+DiscoveryPath()]
	b.CRDList = keep[prefix+CRDListPath]
	return nil
}

// drain reads an archive entry that the first pass does not keep, so
// that a truncated entry is found now, not mid-upgrade.
func (b *Bundle) drain(re rawEntry) error {
	if re.r == nil {
		return nil
	}
	if _, err := io.Copy(io.Discard, re.r); err != nil {
		return b.wrap(re.name, err)
	}
	return nil
}

// earlyBudget bounds the bytes of early files the first pass holds: the
// root is known only at its end, so every folder's copies are kept while
// they fit, and a copy of the root's that did not fit is read again in a
// pass of its own (readDeferred). Real bundles have one root and fit many
// times over; decoys in other folders cost only their own bytes up to
// the budget.
const earlyBudget = 64 << 20

// readDeferred reads again, in a pass that stops at the last of them, the
// root's early files that did not fit the budget: only they are held.
func (b *Bundle) readDeferred(keep map[string][]byte, deferred map[string]int) error {
	last := -1
	for name := range keep {
		if at, ok := deferred[name]; ok {
			last = max(last, at)
		}
	}
	if last < 0 {
		return nil
	}
	ordinal := -1
	err := b.each(func(re rawEntry) error {
		if re.name == "" {
			return nil
		}
		ordinal++
		if _, ok := deferred[re.name]; ok && (re.hdr.Typeflag == tar.TypeReg || re.hdr.Typeflag == tar.TypeRegA) {
			if _, root := keep[re.name]; root {
				data, err := readRaw(re)
				if err != nil {
					return b.wrap(re.name, err)
				}
				keep[re.name] = data
			}
		}
		if ordinal == last {
			return errStopPass
		}
		return nil
	})
	if err == errStopPass {
		err = nil
	}
	return err
}

var errStopPass = errors.New("stop the pass")

// earlyLimit is the size up to which an entry is read in the first pass,
// because the stream needs it before it starts, and 0 for the others. The
// root is known only at the end of the pass, so every folder's copy is a
// candidate: the small files get a cap far above any real one (a few
// hundred bytes; discovery.json some hundred KB), and together the
// candidates stay within one decode limit (see keepEarly).
func (b *Bundle) earlyLimit(name string) int64 {
	switch {
	case strings.HasSuffix(name, CRDListPath):
		return b.limits.MaxDecodeSize
	case strings.HasSuffix(name, DiscoveryPath()):
		return min(64<<20, b.limits.MaxDecodeSize)
	case strings.HasSuffix(name, "/"+VersionFilePath) || name == VersionFilePath || strings.HasSuffix(name, ClusterVersionPath):
		return min(1<<20, b.limits.MaxDecodeSize)
	}
	return 0
}

// keepEarly says whether the first pass reads this entry into memory, and
// warns when it is one of the early files but over its cap: it is still
// copied, only not read as the bundle's version, discovery or CRDs. One
// that would take the first pass over earlyBudget is deferred: noted,
// and read again if it turns out to be the root's.
func (b *Bundle) keepEarly(name string, size, kept int64, ordinal int, deferred map[string]int) bool {
	limit := b.earlyLimit(name)
	switch {
	case limit == 0:
		return false
	case size > limit:
		b.warn(name, fmt.Errorf("%d bytes is over the %d-byte limit of this file; not read, copied all the same", size, limit))
		return false
	case kept+size > min(earlyBudget, b.limits.MaxDecodeSize):
		deferred[name] = ordinal
		return false
	}
	return true
}

// readRaw reads an early file whole, in one buffer of its declared size.
func readRaw(re rawEntry) ([]byte, error) {
	r := re.r
	if re.open != nil {
		f, err := re.open()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data := make([]byte, re.hdr.Size)
	n, err := io.ReadFull(r, data)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil // a folder's file that shrank since it was listed
	}
	return data[:n], err
}

// chooseRoot picks the bundle root as troubleshoot and sbctl do: the
// shallowest folder holding version.yaml next to cluster-resources, else
// the shallowest folder holding cluster-resources, else the shallowest
// holding version.yaml, else the top.
func chooseRoot(versionDirs, crDirs map[string]bool) string {
	var both, crs, vs []string
	for d := range versionDirs {
		vs = append(vs, d)
		if crDirs[d] {
			both = append(both, d)
		}
	}
	for d := range crDirs {
		crs = append(crs, d)
	}
	for _, set := range [][]string{both, crs, vs} {
		if len(set) > 0 {
			sort.Slice(set, func(i, j int) bool {
				di, dj := depth(set[i]), depth(set[j])
				if di != dj {
					return di < dj
				}
				return set[i] < set[j]
			})
			return set[0]
		}
	}
	return ""
}

func depth(p string) int {
	if p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// Walk streams every entry in order. The entry and its reader are valid
// only during the callback. Errors name the entry they concern.
func (b *Bundle) Walk(fn func(e *Entry) error) error {
	prefix := ""
	if b.Root != "" {
		prefix = b.Root + "/"
	}
	later := map[string]int{} // copies still to come of each duplicated name
	for _, d := range b.Duplicates {
		later[d]++
	}
	return b.each(func(re rawEntry) error {
		if re.name == "" {
			return nil
		}
		if err := b.checkHeader(re.name, re.hdr); err != nil {
			return err
		}
		e := &Entry{Header: re.hdr, Name: re.name, bundle: b}
		if n := later[re.name]; n > 0 {
			e.Superseded = true
			later[re.name] = n - 1
		}
		if rel, ok := strings.CutPrefix(re.name, prefix); ok && rel != "" {
			e.Rel, e.InRoot = rel, true
		}
		if e.InRoot && re.hdr.Typeflag != tar.TypeDir {
			e.Class = Classify(e.Rel)
		}
		if re.hdr.Typeflag == tar.TypeSymlink || re.hdr.Typeflag == tar.TypeLink {
			target, _ := resolveLink(re.name, re.hdr)
			if rel, ok := strings.CutPrefix(target, prefix); ok {
				e.LinkRel = rel
			}
		}
		var closer io.Closer
		if re.open != nil {
			f, err := re.open()
			if err != nil {
				return b.wrap(re.name, err)
			}
			e.r, closer = io.LimitReader(f, re.hdr.Size), f
		} else if re.r != nil {
			e.r = re.r
		}
		err := fn(e)
		if closer != nil {
			closer.Close()
		}
		return err
	})
}
