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
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Writer writes a bundle so that nobody ever sees half of it: entries go
// to a temporary file or folder beside the destination, Commit renames it
// into place, and Abort removes it. A failed or interrupted write leaves
// the destination as it was.
type Writer struct {
	dest   string
	format SourceFormat
	force  bool
	stdout io.Writer
	src    string      // the source's file or folder, "" for none
	mode   fs.FileMode // the output's permission bits

	tmp     string // the temporary file or folder
	file    *os.File
	buf     *bufio.Writer
	zw      *gzip.Writer
	tw      *tar.Writer
	root    *os.Root // folders only
	dirs    []dirTime
	done    bool
	copyBuf []byte // what copy carries each entry's content in
	// links are hard links whose target was not yet written (a forward
	// link), made at Commit.
	links   []pendingLink
	pending map[string]bool // the names in links
	// Skipped are the entries a folder cannot hold (a hard link to a
	// folder, to nothing, to itself; a name part over 255 bytes; a later
	// entry of the name of a folder with files in it), each with the
	// reason; an archive output holds every entry.
	Skipped []Problem
}

type pendingLink struct{ name, target string }

type dirTime struct {
	name  string
	mtime time.Time
}

// WriterOptions configure CreateWriter.
type WriterOptions struct {
	// Force replaces an existing destination that bundlectl wrote
	// (replaceable); without it CreateWriter refuses any.
	Force bool
	// Source is the bundle's file or folder, or "-" or a URL: the
	// destination may not be it, hold it or lie inside it, and gets its
	// permission bits (outputMode); "" for a bundle from no file.
	Source string
	// Stdout receives the archive when the destination is "-". It is
	// written only at Commit, so a failure sends nothing.
	Stdout io.Writer
	// Level is the gzip level of .tar.gz output; 0 means gzip.DefaultCompression.
	Level int
}

// CheckDest says, without writing anything, why CreateWriter would refuse
// dest (DestFormat, checkDest): a command checks before it reads its
// input, which may take minutes.
func CheckDest(dest string, opts WriterOptions) error {
	format, err := DestFormat(dest)
	if err != nil || dest == "-" {
		return err
	}
	return checkDest(dest, format, sourceFile(opts.Source), opts.Force)
}

// sourceFile is the file or folder a source names, "" for standard input
// and a URL.
func sourceFile(src string) string {
	if src == "-" || IsURL(src) {
		return ""
	}
	return src
}

// CreateWriter starts writing a bundle to dest (see DestFormat), after
// refusing a dest it must not write (CheckDest).
func CreateWriter(dest string, opts WriterOptions) (*Writer, error) {
	if err := CheckDest(dest, opts); err != nil {
		return nil, err
	}
	format, _ := DestFormat(dest)
	src := sourceFile(opts.Source)
	w := &Writer{dest: dest, format: format, force: opts.Force, stdout: opts.Stdout, src: src, mode: outputMode(src, format)}
	dir, base := filepath.Split(dest)
	if dest == "-" {
		dir, base = "", "bundlectl-stdout"
		if w.stdout == nil {
			w.stdout = os.Stdout
		}
	}
	if dir == "" && dest != "-" {
		dir = "."
	}
	var err error
	if w.format == FormatFolder {
		if w.tmp, err = os.MkdirTemp(dir, "."+base+".tmp-"); err != nil {
			return nil, fmt.Errorf("creating %s: %w", dest, err)
		}
		if w.root, err = os.OpenRoot(w.tmp); err != nil {
			os.RemoveAll(w.tmp)
			return nil, fmt.Errorf("creating %s: %w", dest, err)
		}
		return w, nil
	}
	if dest == "-" {
		// Standard output's copy is read back through the descriptor
		// alone: nameless, it is gone however the process ends, SIGKILL
		// included (where it keeps a name, Commit and Abort remove it).
		w.file, w.tmp, err = TempFile("." + base + ".tmp-")
	} else if w.file, err = os.CreateTemp(dir, "."+base+".tmp-"); err == nil {
		w.tmp = w.file.Name()
	}
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", dest, err)
	}
	w.buf = bufio.NewWriterSize(w.file, 1<<20)
	var out io.Writer = w.buf
	if w.format == FormatTarGz {
		level := opts.Level
		if level == 0 {
			level = gzip.DefaultCompression
		}
		if w.zw, err = gzip.NewWriterLevel(w.buf, level); err != nil {
			w.Abort()
			return nil, err
		}
		out = w.zw
	}
	w.tw = tar.NewWriter(out)
	return w, nil
}

// Dest is the destination the writer publishes to at Commit.
func (w *Writer) Dest() string { return w.dest }

// WriteEntry writes one entry: its header as given and, for a regular
// file, exactly hdr.Size bytes from body.
func (w *Writer) WriteEntry(hdr *tar.Header, body io.Reader) error {
	if w.done {
		return errors.New("bundle writer is closed")
	}
	if body == nil {
		body = strings.NewReader("")
	}
	if w.root != nil {
		return w.writeFile(hdr, body)
	}
	if err := w.tw.WriteHeader(keepSubsecond(hdr)); err != nil {
		return fmt.Errorf("writing %s: entry %q: %w", w.dest, hdr.Name, err)
	}
	if hdr.Typeflag == tar.TypeReg || hdr.Typeflag == tar.TypeRegA {
		n, err := w.copy(body, hdr.Size)
		if err == nil && n != hdr.Size {
			err = fmt.Errorf("content is %d bytes, its header says %d", n, hdr.Size)
		}
		if err != nil {
			return fmt.Errorf("writing %s: entry %q: %w", w.dest, hdr.Name, err)
		}
	}
	return nil
}

// copy copies size bytes of body into the archive through the writer's
// own buffer: io.Copy would take the tar writer's ReadFrom, which
// allocates one for every entry.
func (w *Writer) copy(body io.Reader, size int64) (int64, error) {
	if w.copyBuf == nil {
		w.copyBuf = make([]byte, 64<<10)
	}
	return io.CopyBuffer(struct{ io.Writer }{w.tw}, io.LimitReader(body, size), w.copyBuf)
}

// writeFile writes an entry into the temporary folder. os.Root confines
// every operation to it: no name or symlink can make the writer touch a
// file outside the bundle.
func (w *Writer) writeFile(hdr *tar.Header, body io.Reader) error {
	name, err := cleanName(hdr.Name)
	if err != nil || name == "" {
		if err == nil {
			return nil
		}
		return fmt.Errorf("writing %s: entry %q: %w", w.dest, hdr.Name, err)
	}
	fail := func(err error) error { return fmt.Errorf("writing %s: entry %q: %w", w.dest, name, err) }
	w.dropPending(name)
	for _, part := range strings.Split(name, "/") {
		if len(part) > maxNamePart {
			w.skip(name, fmt.Errorf("a name part of %d bytes is over the %d-byte limit of a file name; not written to the folder", len(part), maxNamePart))
			return nil
		}
	}
	if dir := path.Dir(name); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
	}
	perm := fs.FileMode(hdr.Mode).Perm()
	if hdr.Typeflag != tar.TypeDir {
		// A name the archive holds twice: as tar extracts it, the later
		// entry replaces the earlier (Bundle.Duplicates).
		if fi, err := w.root.Lstat(name); err == nil && !fi.IsDir() {
			if err := w.root.Remove(name); err != nil {
				return fail(err)
			}
		}
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := w.create(name, func() error { return w.root.MkdirAll(name, perm|0o700) }); err != nil {
			return fail(err)
		}
		// An earlier entry of the name may have made it: the last wins.
		if err := w.root.Chmod(name, perm|0o700); err != nil {
			return fail(err)
		}
		w.dirs = append(w.dirs, dirTime{name: name, mtime: hdr.ModTime})
		return nil
	case tar.TypeSymlink:
		if _, err := resolveLink(name, hdr); err != nil {
			return fail(err)
		}
		return wrapIf(w.create(name, func() error { return w.root.Symlink(hdr.Linkname, name) }), fail)
	case tar.TypeLink:
		target, err := resolveLink(name, hdr)
		if err != nil {
			return fail(err)
		}
		return wrapIf(w.link(name, target, false), fail)
	case tar.TypeReg, tar.TypeRegA:
	default:
		return nil // PAX and GNU meta entries are folded into headers by archive/tar
	}
	var f *os.File
	err = w.create(name, func() (err error) {
		f, err = w.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o600)
		return err
	})
	if err != nil || f == nil {
		return wrapIf(err, fail)
	}
	n, err := io.Copy(f, io.LimitReader(body, hdr.Size))
	if err == nil && n != hdr.Size {
		err = fmt.Errorf("content is %d bytes, its header says %d", n, hdr.Size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && perm|0o600 != perm {
		err = w.root.Chmod(name, perm)
	}
	if err == nil && !hdr.ModTime.IsZero() {
		err = w.root.Chtimes(name, hdr.ModTime, hdr.ModTime)
	}
	return wrapIf(err, fail)
}

// maxNamePart is the longest file name most file systems take (NAME_MAX).
const maxNamePart = 255

// link makes a hard link as tar extracts one, where a folder can hold it:
// a target not written yet is linked at Commit (last), and a link to a
// folder, to nothing or to itself is skipped and reported.
func (w *Writer) link(name, target string, last bool) error {
	fi, err := w.root.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !last:
		w.links = append(w.links, pendingLink{name: name, target: target})
		if w.pending == nil {
			w.pending = map[string]bool{}
		}
		w.pending[name] = true
		return nil
	case target == name:
		w.skip(name, errors.New("a hard link to itself; not written to the folder"))
		return nil
	case errors.Is(err, fs.ErrNotExist):
		w.skip(name, fmt.Errorf("a hard link to %s, which the archive does not hold; not written to the folder", target))
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		w.skip(name, fmt.Errorf("a hard link to %s, which is not a file (%s); not written to the folder", target, fi.Mode().Type()))
		return nil
	}
	return w.create(name, func() error { return w.root.Link(target, name) })
}

// create runs make, which creates name, and when an earlier entry of the
// same name is in the way, removes it and runs make again: as extracting
// does, the folder keeps the last copy of a name the archive holds more
// than once (Entry.Superseded), which is what readers of the archive
// output read. A folder with files in it cannot be removed, and extracting
// keeps it: the later entry is skipped and reported.
func (w *Writer) create(name string, make func() error) error {
	err := make()
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, lerr := w.root.Lstat(name)
	if lerr != nil {
		return err
	}
	if rerr := w.root.Remove(name); rerr != nil {
		if !fi.IsDir() {
			return rerr
		}
		w.skip(name, errors.New("an earlier entry of the same name is a folder with files in it; not written to the folder"))
		return nil
	}
	return make()
}

// dropPending forgets a link waiting for its target (linkForward) when a
// later entry takes its name: the later one is what extracting keeps.
func (w *Writer) dropPending(name string) {
	if !w.pending[name] {
		return
	}
	delete(w.pending, name)
	w.links = slices.DeleteFunc(w.links, func(l pendingLink) bool { return l.name == name })
}

// linkForward makes the links whose targets came later in the archive,
// in rounds, since a target may itself be such a link.
func (w *Writer) linkForward() error {
	for progress := true; progress; {
		progress = false
		rest := w.links[:0]
		for _, l := range w.links {
			if _, err := w.root.Lstat(l.target); err != nil {
				rest = append(rest, l)
				continue
			}
			if err := w.link(l.name, l.target, true); err != nil {
				return fmt.Errorf("writing %s: entry %q: %w", w.dest, l.name, err)
			}
			progress = true
		}
		w.links = rest
	}
	for _, l := range w.links {
		if err := w.link(l.name, l.target, true); err != nil {
			return fmt.Errorf("writing %s: entry %q: %w", w.dest, l.name, err)
		}
	}
	return nil
}

func (w *Writer) skip(name string, err error) {
	w.Skipped = append(w.Skipped, Problem{Path: name, Message: err.Error()})
}

func wrapIf(err error, wrap func(error) error) error {
	if err == nil {
		return nil
	}
	return wrap(err)
}

// Commit finishes the bundle and publishes it at the destination,
// replacing an existing one only when Force was given. A ctx cancelled
// before the rename (Ctrl-C while the output was being flushed) publishes
// nothing: the command was interrupted, so no output appears.
func (w *Writer) Commit(ctx context.Context) (err error) {
	if w.done {
		return errors.New("bundle writer is closed")
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if w.root != nil {
		if err := w.linkForward(); err != nil {
			return err
		}
		// Folder times last: writing into a folder changes its mtime.
		sort.SliceStable(w.dirs, func(i, j int) bool { return depth(w.dirs[i].name) > depth(w.dirs[j].name) })
		for _, d := range w.dirs {
			if !d.mtime.IsZero() {
				if err := w.root.Chtimes(d.name, d.mtime, d.mtime); err != nil {
					return fmt.Errorf("writing %s: %w", w.dest, err)
				}
			}
		}
		if err := w.root.Close(); err != nil {
			return err
		}
		w.root = nil
		if err := os.Chmod(w.tmp, w.mode); err != nil {
			return err
		}
		return w.publish(ctx)
	}
	if err := w.tw.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", w.dest, err)
	}
	if w.zw != nil {
		if err := w.zw.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", w.dest, err)
		}
	}
	if err := w.buf.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", w.dest, err)
	}
	if w.dest == "-" {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("standard output not written: %w", context.Cause(ctx))
		}
		if _, err := w.file.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(w.stdout, bufio.NewReaderSize(w.file, 1<<20)); err != nil {
			return fmt.Errorf("writing to standard output: %w", err)
		}
		w.file.Close()
		w.done = true
		if w.tmp == "" {
			return nil
		}
		return os.Remove(w.tmp)
	}
	if err := w.file.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", w.dest, err)
	}
	if err := w.file.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", w.dest, err)
	}
	w.file = nil
	if err := os.Chmod(w.tmp, w.mode); err != nil {
		return err
	}
	return w.publish(ctx)
}

// publish renames the finished temporary file or folder to the
// destination, checked again (checkDest), since the writing may have
// taken minutes. A destination being replaced is moved aside first and
// removed only once the new one is in place.
func (w *Writer) publish(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s not written: %w", w.dest, context.Cause(ctx))
	}
	if err := checkDest(w.dest, w.format, w.src, w.force); err != nil {
		return err
	}
	var old string
	if _, err := os.Lstat(w.dest); err == nil {
		old = w.tmp + ".old"
		if err := os.Rename(w.dest, old); err != nil {
			return fmt.Errorf("replacing %s: %w", w.dest, err)
		}
	}
	if err := os.Rename(w.tmp, w.dest); err != nil {
		if old != "" {
			os.Rename(old, w.dest)
		}
		return fmt.Errorf("publishing %s: %w", w.dest, err)
	}
	w.done = true
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Abort removes everything written. It is safe to call more than once and
// after Commit, which makes `defer w.Abort()` the right idiom.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.root != nil {
		w.root.Close()
	}
	if w.file != nil {
		w.file.Close()
	}
	if w.tmp == "" {
		return nil
	}
	return os.RemoveAll(w.tmp)
}

// countingWriter adds up in n the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// keepSubsecond is hdr written as PAX when its format is unknown but it
// has a time below the second: archive/tar rounds such a time to the
// second, and an entry is copied unchanged. A macOS tar's folders have
// PAX headers with their times to the nanosecond beside libarchive's own
// records, which archive/tar reads as of no format it names.
func keepSubsecond(hdr *tar.Header) *tar.Header {
	if hdr.Format != tar.FormatUnknown || hdr.ModTime.Nanosecond() == 0 {
		return hdr
	}
	pax := *hdr
	pax.Format = tar.FormatPAX
	return &pax
}
