package contract

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/s2"
)

// A list (or any file a reader reads) may be stored as a link: tar
// writes a hard link for the second of two hard-linked files (two
// namespaces' identical empty lists), and an extracted bundle may hold
// symlinks. Extracting gives the file the link names, so every reader
// reads that file's content at the link's path. A hard link's target
// comes before it in the archive and a symlink's anywhere, so the
// content is not at hand when the stream reaches the link: once the
// first pass has found such links, a pass of its own keeps each target's
// content (s2-compressed, in a nameless temporary file like the kept
// stream's) until the stream reaches the link. Real bundles hold links
// only where nothing is read through them (log links, the YAML twin of
// a JSON list), and never pay for that pass.

// scanned is what the first pass keeps of each entry, by its ordinal in
// the stream, to resolve links once it has seen them all.
type scanned struct {
	name   string
	typ    byte
	size   int64
	target string // a link's target, resolved to an archive name
	// before is, for a hard link, the ordinal of the last entry of its
	// target's name before it (tar links to what is extracted so far),
	// -1 when there is none.
	before int
	// mtime is a regular file's modification time (zero for the rest):
	// kept here rather than in a map by name, which cost a bundle of
	// many small entries a quarter more memory.
	mtime time.Time
}

// linkedContent is the content of the file a link names.
type linkedContent struct {
	size int64
	open func() (io.ReadCloser, error)
}

// linkStore holds the content of the files that links name, for the
// passes after the first.
type linkStore struct {
	byLink map[int]*linkedContent // by the link's ordinal
	file   *os.File
	name   string // the file's name where it could not be removed (see spoolFrom)
}

func (s *linkStore) close() error {
	if s == nil || s.file == nil {
		return nil
	}
	err := s.file.Close()
	if s.name != "" {
		err = errors.Join(err, os.Remove(s.name))
	}
	return err
}

// readThroughLink says whether readers read an entry of this class at
// rel: a link of it is then read as the file it names. Pod logs are
// mapped to their targets by MapPodLogs; a YAML list with a JSON twin is
// not read (IsListOfRecord).
func (b *Bundle) readThroughLink(rel string) bool {
	c := Classify(rel)
	switch c.Class {
	case ClassResourceList:
		return !(c.Format == FormatYAML && b.Names[strings.TrimSuffix(rel, ".yaml")+".json"])
	case ClassTable, ClassDiscovery, ClassSelectableFields, ClassLegacyGroups, ClassLegacyResources,
		ClassClusterVersion, ClassVersionFile, ClassOpenAPIV3, ClassOpenAPIV2, ClassRankedRows:
		return true
	}
	return rel == AnalysisPath
}

// resolveLinks finds the file each link read through names, keeps the
// content of those files, and reports a link that names no file. last
// is the ordinal of the last entry of each name: the one extracting keeps.
func (b *Bundle) resolveLinks(ents []scanned, last map[string]int, prefix string) error {
	targets := map[int]int{} // link ordinal → file ordinal
	for i, e := range ents {
		if (e.typ != tar.TypeSymlink && e.typ != tar.TypeLink) || last[e.name] != i {
			continue
		}
		rel, ok := strings.CutPrefix(e.name, prefix)
		if !ok && prefix != "" || !b.readThroughLink(rel) {
			continue
		}
		j, err := linkTarget(ents, last, i)
		if err != nil {
			b.warn(e.name, fmt.Errorf("%w; not read", err))
			continue
		}
		targets[i] = j
	}
	if len(targets) == 0 {
		return nil
	}
	b.links = &linkStore{byLink: map[int]*linkedContent{}}
	if b.Format == FormatFolder {
		for i, j := range targets {
			p := filepath.Join(b.dir, filepath.FromSlash(ents[j].name))
			b.links.byLink[i] = &linkedContent{size: ents[j].size, open: func() (io.ReadCloser, error) { return os.Open(p) }}
		}
		return nil
	}
	return b.keepTargets(targets)
}

// maxLinkDepth is how many links in a row are followed, as Linux's
// ELOOP limit of 40.
const maxLinkDepth = 40

// linkTarget follows the link at ordinal i to the regular file it names.
func linkTarget(ents []scanned, last map[string]int, i int) (int, error) {
	for range maxLinkDepth {
		e := ents[i]
		j, ok := last[e.target]
		if e.typ == tar.TypeLink {
			j, ok = e.before, e.before >= 0
		}
		switch {
		case !ok:
			return 0, fmt.Errorf("a link to %q, which the bundle does not hold", e.target)
		case ents[j].typ == tar.TypeReg || ents[j].typ == tar.TypeRegA:
			return j, nil
		case ents[j].typ != tar.TypeSymlink && ents[j].typ != tar.TypeLink:
			return 0, fmt.Errorf("a link to %q, which is not a file", e.target)
		}
		i = j
	}
	return 0, fmt.Errorf("more than %d links in a row (a loop?)", maxLinkDepth)
}

// keepTargets reads the files links name in one pass, up to the last of
// them, each into an s2 stream of its own in the store's file.
func (b *Bundle) keepTargets(targets map[int]int) error {
	f, name, err := TempFile("bundlectl-links-*.s2")
	if err != nil {
		return fmt.Errorf("%s: keeping the files its links name: %w", b.Path, err)
	}
	b.links.file, b.links.name = f, name
	want := map[int]bool{}
	lastWanted := -1
	for _, j := range targets {
		want[j] = true
		lastWanted = max(lastWanted, j)
	}
	kept := map[int]*linkedContent{}
	var written int64
	ordinal := -1
	err = b.each(func(re rawEntry) error {
		if re.name == "" {
			return nil
		}
		ordinal++
		if want[ordinal] {
			start := written
			zw := s2.NewWriter(&countingWriter{w: f, n: &written}, s2.WriterBlockSize(keptBlockSize))
			n, err := io.Copy(zw, re.r)
			if err == nil {
				err = zw.Close()
			}
			if err != nil {
				return b.wrap(re.name, err)
			}
			end := written
			kept[ordinal] = &linkedContent{size: n, open: func() (io.ReadCloser, error) {
				zr := s2.NewReader(io.NewSectionReader(f, start, end-start), s2.ReaderMaxBlockSize(keptBlockSize))
				return io.NopCloser(zr), nil
			}}
		}
		if ordinal == lastWanted {
			return errStopPass
		}
		return nil
	})
	if err != nil && err != errStopPass {
		return err
	}
	for i, j := range targets {
		if kept[j] != nil {
			b.links.byLink[i] = kept[j]
		}
	}
	return nil
}
