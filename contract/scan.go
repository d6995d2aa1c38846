package contract

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// scan is the first pass: it checks every header, finds the root, and
// keeps the few small files that the second pass needs up front.
func (b *Bundle) scan() error {
	b.scanning = true
	defer func() { b.scanning = false }()
	var ents []scanned
	latest := map[string]int{} // the ordinal of the last entry of each name so far
	roots := rootCandidates{version: map[string]int{}, cr: map[string]int{}}
	var total int64
	keep := map[string][]byte{}
	var kept int64                         // bytes in keep
	deferred := map[string]int{}           // early files over the budget: the ordinal of the last copy
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
		ordinal := len(ents)
		b.Entries++
		total += re.hdr.Size
		b.LargestEntry = max(b.LargestEntry, re.hdr.Size)
		if total > b.limits.MaxTotalSize {
			return b.errorf(re.name, "bundle content exceeds %d bytes", b.limits.MaxTotalSize)
		}
		if _, ok := latest[re.name]; ok {
			b.Duplicates = append(b.Duplicates, re.name)
		}
		if strings.Contains(re.name, "\\") {
			b.warn(re.name, errors.New("a name with a backslash: one file of that name, not a path, as tar extracts it"))
		}
		e := scanned{name: re.name, typ: re.hdr.Typeflag, size: re.hdr.Size, before: -1}
		if e.typ == tar.TypeSymlink || e.typ == tar.TypeLink {
			links[re.name] = re.hdr
			e.target, _ = resolveLink(re.name, re.hdr)
			if at, ok := latest[e.target]; ok && e.typ == tar.TypeLink {
				e.before = at
			}
		}
		ents = append(ents, e)
		latest[re.name] = ordinal
		if IsArchiverFile(re.name) {
			// Copied, never read: it tells nothing of the root or the time.
			return b.drain(re)
		}
		roots.note(re.name, re.hdr.Typeflag, ordinal)
		regular := re.hdr.Typeflag == tar.TypeReg || re.hdr.Typeflag == tar.TypeRegA
		var objects *listTimes
		if root, rest, ok := underClusterResources(re.name, re.hdr.Typeflag); ok && regular {
			objects = newListTimes(root, rest, objectTimes, &times)
		}
		if regular {
			ents[ordinal].mtime = re.hdr.ModTime
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
	// The passes after this one (readDeferred, keepTargets) read entries
	// again: they note no warning twice, and keep no stream.
	b.scanning = false
	if err != nil {
		return err
	}
	if err := b.checkLinkPaths(ents, links); err != nil {
		return err
	}
	b.Size = total
	b.Root = b.chooseRoot(roots)
	prefix := ""
	if b.Root != "" {
		prefix = b.Root + "/"
	}
	for _, e := range ents {
		n := e.name
		if rel, ok := strings.CutPrefix(n, prefix); ok || prefix == "" {
			if prefix == "" {
				rel = n
			}
			b.Names[rel] = true
			if strings.HasPrefix(rel, ClusterResourcesDir+"/") && !IsArchiverFile(rel) {
				b.HasClusterResources = true
			}
			if !e.mtime.IsZero() {
				b.noteFileTime(rel, e.mtime)
			}
		}
	}
	newest := objectTimes[b.Root]
	b.NewestObjectTime, b.NewestObjectFile = newest.t, newest.rel
	if err := b.resolveLinks(ents, latest, prefix); err != nil {
		return err
	}
	return b.keepEarlyFiles(keep, deferred, latest, prefix)
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

// keepEarlyFiles sets the root's early files: the copies the first pass
// read, those it deferred read again, and those stored as links read
// through them.
func (b *Bundle) keepEarlyFiles(read map[string][]byte, deferred map[string]int, last map[string]int, prefix string) error {
	keep := map[string][]byte{}
	for _, rel := range []string{VersionFilePath, ClusterVersionPath, DiscoveryPath(), CRDListPath} {
		keep[prefix+rel] = read[prefix+rel]
	}
	if err := b.readDeferred(keep, deferred); err != nil {
		return err
	}
	for name := range keep {
		at, ok := last[name]
		if !ok || b.links == nil || b.links.byLink[at] == nil {
			continue
		}
		lc := b.links.byLink[at]
		if limit := b.earlyLimit(name); lc.size > limit {
			b.warn(name, fmt.Errorf("the file this link names is %d bytes, over the %d-byte limit of this file; not read, copied all the same", lc.size, limit))
			continue
		}
		data, err := readLinked(lc)
		if err != nil {
			return b.wrap(name, err)
		}
		keep[name] = data
	}
	b.VersionFile = keep[prefix+VersionFilePath]
	b.ClusterVersion = keep[prefix+ClusterVersionPath]
	b.DiscoveryJSON = keep[prefix+DiscoveryPath()]
	b.CRDList = keep[prefix+CRDListPath]
	return nil
}

// readLinked reads the content of the file a link names.
func readLinked(lc *linkedContent) ([]byte, error) {
	rc, err := lc.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data := make([]byte, lc.size)
	n, err := io.ReadFull(rc, data)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil // a folder's file that shrank since it was listed
	}
	return data[:n], err
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

// rootCandidates are the folders that may be a bundle root, each with
// the ordinal of its first entry that makes it one: those holding
// version.yaml, and those holding cluster-resources.
type rootCandidates struct{ version, cr map[string]int }

func (r rootCandidates) note(name string, typ byte, ordinal int) {
	first := func(m map[string]int, dir string) {
		if _, ok := m[dir]; !ok {
			m[dir] = ordinal
		}
	}
	if dir, base := path.Split(name); base == VersionFilePath {
		first(r.version, strings.TrimSuffix(dir, "/"))
	}
	if root, _, ok := underClusterResources(name, typ); ok {
		first(r.cr, root)
	}
}

// underClusterResources splits a name at its first cluster-resources
// folder: the folder holding it (a root candidate), and the path from it.
func underClusterResources(name string, typ byte) (root, rest string, ok bool) {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		if p == ClusterResourcesDir && (i < len(parts)-1 || typ == tar.TypeDir) {
			return strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/"), true
		}
	}
	return "", "", false
}

// maxOtherRoots is how many other bundle roots a warning names.
const maxOtherRoots = 10

// chooseRoot picks the bundle root: the shallowest folder holding
// version.yaml next to cluster-resources, else the shallowest folder
// holding cluster-resources, else the shallowest holding version.yaml,
// else the top; of folders as deep, the first in the archive, as
// troubleshoot's reader descends into the first. Every other root that
// is not inside the chosen one (where collectors copy files) is another
// bundle the archive holds, which is not read: a warning names it.
func (b *Bundle) chooseRoot(r rootCandidates) string {
	var both, crs, vs []string
	for d := range r.version {
		vs = append(vs, d)
		if _, ok := r.cr[d]; ok {
			both = append(both, d)
		}
	}
	for d := range r.cr {
		crs = append(crs, d)
	}
	first := func(d string) int {
		at, ok := r.version[d]
		if c, cok := r.cr[d]; cok && (!ok || c < at) {
			at = c
		}
		return at
	}
	root := ""
	for _, set := range [][]string{both, crs, vs} {
		if len(set) > 0 {
			root = slices.MinFunc(set, func(a, c string) int {
				if da, dc := depth(a), depth(c); da != dc {
					return da - dc
				}
				return first(a) - first(c)
			})
			break
		}
	}
	under := func(d, root string) bool { return root == "" || strings.HasPrefix(d+"/", root+"/") }
	all := append(crs, vs...)
	slices.SortFunc(all, func(a, c string) int { return depth(a) - depth(c) })
	var others []string
	for _, d := range all {
		if d != root && !under(d, root) && !slices.ContainsFunc(others, func(o string) bool { return under(d, o) }) {
			others = append(others, d)
		}
	}
	slices.SortFunc(others, func(a, c string) int { return first(a) - first(c) })
	read := "the top of the archive"
	if root != "" {
		read = fmt.Sprintf("%q", root)
	}
	for i, d := range others {
		if i == maxOtherRoots {
			b.warn("", fmt.Errorf("%d more bundle roots are not read", len(others)-i))
			break
		}
		b.warn(d, fmt.Errorf("another bundle root, not read: one bundle is read, %s, the shallowest and first in the archive, as troubleshoot reads one", read))
	}
	return root
}

func depth(p string) int {
	if p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}
