package contract

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
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
	// and is ignored (data after the end-of-archive marker or after the
	// gzip stream, bundle roots beside the root, a volume label), or is
	// read otherwise than stored (a GNU sparse file, a link that names no
	// file). Readers report them; nothing in them is lost silently.
	Warnings []Problem

	limits Limits
	// dir is the folder a folder bundle is read from: Path with its
	// symlinks resolved, so that a folder named through a symlink reads
	// as the folder it names.
	dir string
	// links holds the content of the files that links read through name
	// (see linked.go).
	links *linkStore
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
			var na *notArchiveError
			if errors.As(err, &na) {
				return nil, &EntryError{Bundle: b.Path, Err: err}
			}
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
			if b.dir, err = filepath.EvalSymlinks(name); err != nil {
				return nil, fmt.Errorf("opening bundle: %w", err)
			}
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

// sourceBase is what the bundle's file or folder is called (SourceBase);
// for a folder named through a symlink, the folder it names.
func (b *Bundle) sourceBase() string {
	if b.Format == FormatFolder {
		return filepath.Base(b.dir)
	}
	return SourceBase(b.Path)
}

// Limits are the limits the bundle was opened with.
func (b *Bundle) Limits() Limits { return b.limits }

// Close releases the spool of a bundle read from stdin or a URL, and
// the stream the first pass kept.
func (b *Bundle) Close() error {
	err := errors.Join(b.kept.close(), b.links.close())
	b.kept, b.links = nil, nil
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
// Close removes it. What is no archive is refused from its first bytes
// (sniffFormat), not after gigabytes of it have been spooled.
func (b *Bundle) spoolFrom(r io.Reader) error {
	f, name, err := TempFile("bundlectl-spool-*")
	if err != nil {
		return err
	}
	b.spool, b.spoolName = f, name
	lr := io.LimitReader(r, b.limits.MaxTotalSize+1)
	w := &countingWriter{w: f, n: &b.spoolSize}
	if b.Format, err = sniffFormat(io.TeeReader(lr, w)); err == nil {
		_, err = io.Copy(w, lr)
	}
	if err == nil && b.spoolSize > b.limits.MaxTotalSize {
		err = fmt.Errorf("over the %d-byte limit of a bundle", b.limits.MaxTotalSize)
	}
	if err != nil {
		b.Close()
		b.spool = nil
		var na *notArchiveError
		if errors.As(err, &na) {
			na.hint = b.notArchiveHint
		}
		return err
	}
	return nil
}

// detectFormat tells the archive's format from its first bytes.
func (b *Bundle) detectFormat() (SourceFormat, error) {
	f, err := b.open()
	if err != nil {
		return 0, err
	}
	defer f.Close()
	format, err := sniffFormat(f)
	var na *notArchiveError
	if errors.As(err, &na) {
		na.hint = b.notArchiveHint
	}
	return format, err
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
	br, zs, done, err := b.tarStream()
	if err != nil {
		return err
	}
	defer func() { done(err) }()
	pos := &countingReader{r: br}
	tr := tar.NewReader(pos)
	last := ""
	var content io.Reader
	for {
		// What a callback left of an entry is read here rather than by
		// Next, so that the stream is at the entry's end for atEnd, and
		// an entry cut short is named.
		if content != nil {
			if _, err := io.Copy(io.Discard, content); err != nil {
				return err
			}
		}
		if end, err := b.atEnd(br, pos.n, last); end {
			if err == nil {
				b.noteGarbage(zs)
			}
			return err
		}
		hdr, err := tr.Next()
		if err != nil {
			return b.truncated(last, err)
		}
		content = &tarContent{tr: tr, b: b, name: shortName(hdr.Name)}
		if hdr.Typeflag == typeVolumeLabel {
			if b.scanning {
				b.warn("", fmt.Errorf("the archive's volume label %q is not a file; skipped, as tar extracts nothing for it", shortName(hdr.Name)))
			}
			continue
		}
		name, err := cleanName(hdr.Name)
		if err != nil {
			return b.errorf(shortName(hdr.Name), "%v", err)
		}
		last = name
		content = &tarContent{tr: tr, b: b, name: name}
		hdr = b.sparseAsRegular(name, b.regularFolder(name, hdr))
		if err := fn(rawEntry{hdr: hdr, name: name, r: content}); err != nil {
			return err
		}
	}
}

// typeVolumeLabel is GNU tar's volume label entry (tar -V), which names
// the archive and is no file.
const typeVolumeLabel = 'V'

// tarStream starts a pass over the archive's tar stream: the stream the
// first pass kept, else the archive, inflated when it is a .tar.gz (zs is
// then its gzip reader). done ends the pass with its error; after a first
// pass read to its end, it keeps the stream that pass read.
func (b *Bundle) tarStream() (br *bufio.Reader, zs *gzipStream, done func(error), err error) {
	if b.kept != nil {
		return bufio.NewReaderSize(b.kept.reader(), 64<<10), nil, func(error) {}, nil
	}
	f, err := b.open()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("opening bundle: %w", err)
	}
	br = bufio.NewReaderSize(f, 1<<20)
	if b.Format != FormatTarGz {
		return br, nil, func(error) { f.Close() }, nil
	}
	if zs, err = newGzipStream(br); err != nil {
		f.Close()
		return nil, nil, nil, b.errorf("", "corrupt gzip stream: %v", err)
	}
	if !b.scanning || !b.keepStream {
		return bufio.NewReaderSize(zs, 64<<10), zs, func(error) { f.Close() }, nil
	}
	keeper := newStreamKeeper()
	return bufio.NewReaderSize(io.TeeReader(zs, keeper), 64<<10), zs, func(err error) {
		f.Close()
		if err != nil {
			keeper.discard()
			return
		}
		b.kept = keeper.finish()
	}, nil
}

// sparseAsRegular reads a GNU sparse file (type S) as GNU tar extracts
// it: a regular file of its whole size, the holes zeros. archive/tar
// gives that content; the header is made a regular file's, the one form
// the content can be written in again, and the first pass says so.
// (PAX sparse files archive/tar already gives as regular files.)
func (b *Bundle) sparseAsRegular(name string, hdr *tar.Header) *tar.Header {
	if hdr.Typeflag != tar.TypeGNUSparse {
		return hdr
	}
	if b.scanning {
		b.warn(name, fmt.Errorf("a GNU sparse file: read as the %d bytes tar extracts (its holes as zeros), and copied as a regular file of them", hdr.Size))
	}
	reg := *hdr
	reg.Typeflag = tar.TypeReg
	return &reg
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

// eachFile iterates a folder's files as the entries of an archive of it.
// Its names are held to what an archive's are (cleanName): a name that
// is not UTF-8 is refused here, naming the file, as in an archive,
// rather than read here and refused in the archive an upgrade writes.
func (b *Bundle) eachFile(fn func(re rawEntry) error) error {
	root := b.dir
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
		if _, err := cleanName(rel); err != nil {
			return b.errorf(shortName(rel), "%v", err)
		}
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
	ordinal := -1
	return b.each(func(re rawEntry) error {
		if re.name == "" {
			return nil
		}
		if err := b.checkHeader(re.name, re.hdr); err != nil {
			return err
		}
		ordinal++
		e := &Entry{Header: re.hdr, Name: re.name, bundle: b}
		if b.links != nil {
			e.link = b.links.byLink[ordinal]
		}
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
		if e.link != nil {
			e.r = nil // the link's own (empty) content: Reader gives the file's
		}
		err := fn(e)
		if closer != nil {
			closer.Close()
		}
		if e.closer != nil {
			e.closer.Close()
		}
		return err
	})
}
