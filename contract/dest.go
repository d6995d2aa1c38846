package contract

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DestFormat says how a destination is written, by its name, whatever its
// case: "-" and names ending in .tar.gz or .tgz are gzip-compressed tar
// archives, .tar a plain tar, and any other name a folder, except a name
// that ends like an archive bundlectl does not write (.tar.zst, .zip),
// which is an error rather than a folder of that name.
func DestFormat(dest string) (SourceFormat, error) {
	lower := strings.ToLower(dest)
	switch {
	case dest == "-", strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		return FormatTarGz, nil
	case strings.HasSuffix(lower, ".tar"):
		return FormatTar, nil
	}
	ext := filepath.Ext(lower)
	if filepath.Ext(strings.TrimSuffix(lower, ext)) == ".tar" || otherArchives[ext] {
		return 0, fmt.Errorf("%s: bundlectl writes .tar.gz, .tgz and .tar archives, and folders; it cannot write a %s archive", dest, ext)
	}
	return FormatFolder, nil
}

// otherArchives are the extensions of archives and compressed files that
// bundlectl does not write (a .tar.<ext> is one too).
var otherArchives = map[string]bool{
	".zip": true, ".gz": true, ".bz2": true, ".xz": true, ".zst": true, ".lz4": true, ".lz": true, ".lzma": true,
	".7z": true, ".rar": true, ".tbz": true, ".tbz2": true, ".txz": true, ".tzst": true, ".tlz": true,
}

// checkDest refuses a destination the writer must not write or replace:
// one that is the source, holds it or lies inside it, found by the device
// and inode of each folder above them (symlinks, "..", bind mounts and
// case-insensitive names all lead to the same ones), and an existing one
// that --force may not replace (replaceable). src is "" when the bundle
// is read from no file (standard input, a URL, a cluster).
func checkDest(dest string, format SourceFormat, src string, force bool) error {
	if src != "" {
		if err := checkOverlap(dest, src); err != nil {
			return err
		}
	}
	if _, err := os.Lstat(dest); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("checking %s: %w", dest, err)
	}
	err := replaceable(dest, format)
	switch {
	case force && err != nil:
		return fmt.Errorf("refusing to replace %s: %w", dest, err)
	case !force && err != nil:
		return fmt.Errorf("%s already exists, and --force would not replace it: %w", dest, err)
	case !force:
		return fmt.Errorf("%s already exists; pass --force to replace it", dest)
	}
	return nil
}

// checkOverlap refuses a destination that is src, lies inside it, or
// (being a folder --force would remove) holds it.
func checkOverlap(dest, src string) error {
	si, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing to protect; opening it says so
	} else if err != nil {
		return fmt.Errorf("checking %s: %w", src, err)
	}
	refuse := func(how string) error {
		return fmt.Errorf("refusing to write %s: it %s the bundle it is made from (%s)", dest, how, src)
	}
	if di, err := os.Stat(dest); err == nil {
		if os.SameFile(si, di) {
			return refuse("is")
		}
		srcUp, err := ancestors(src)
		if err != nil {
			return err
		}
		if di.IsDir() && holds(srcUp, di) {
			return refuse("holds")
		}
	}
	destUp, err := folderChain(parentOf(dest))
	if err != nil {
		return fmt.Errorf("checking %s: %w", dest, err)
	}
	if holds(destUp, si) {
		return refuse("lies inside")
	}
	return nil
}

// ancestors are the file p names and every folder above it, both above
// the name as given and above the file it leads to through symlinks.
func ancestors(p string) ([]fs.FileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", p, err)
	}
	up, err := folderChain(parentOf(p))
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", p, err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", p, err)
	}
	realUp, err := folderChain(parentOf(real))
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", p, err)
	}
	return append(append([]fs.FileInfo{fi}, up...), realUp...), nil
}

// folderChain is dir and every folder above it up to the file system's
// root. Each is reached by appending "..", which the kernel resolves on
// the folder itself rather than on the name, as filepath.Dir would.
func folderChain(dir string) ([]fs.FileInfo, error) {
	var chain []fs.FileInfo
	for p := dir; ; p += string(filepath.Separator) + ".." {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if n := len(chain); n > 0 && os.SameFile(chain[n-1], fi) {
			return chain, nil // the root is its own parent
		}
		if len(chain) >= maxFolderDepth {
			return nil, fmt.Errorf("%s: more than %d folders deep", dir, maxFolderDepth)
		}
		chain = append(chain, fi)
	}
}

// maxFolderDepth bounds folderChain: a path of that many ".." is already
// longer than most systems' PATH_MAX.
const maxFolderDepth = 2048

// parentOf is the folder that holds p, as a name the kernel resolves
// (filepath.Split, which does not clean "link/.." away).
func parentOf(p string) string {
	sep := string(filepath.Separator)
	trimmed := strings.TrimRight(p, sep)
	if trimmed == "" && p != "" {
		return sep
	}
	dir, _ := filepath.Split(trimmed)
	if dir == "" {
		return "."
	}
	return dir
}

func holds(chain []fs.FileInfo, fi fs.FileInfo) bool {
	for _, c := range chain {
		if os.SameFile(c, fi) {
			return true
		}
	}
	return false
}

// replaceable says why --force may not replace dest, or nil when it may:
// it must be what bundlectl writes there, so that a mistyped NEW cannot
// remove anything else. An archive destination must be a regular file
// that starts as a gzip or tar archive does; a folder destination a folder
// holding a bundle of the contract (a cluster-resources/_meta/discovery.json
// that reads as one), at its top or in its only entry, the bundle's root
// folder. Symlinks are never replaced.
func replaceable(dest string, format SourceFormat) error {
	fi, err := os.Lstat(dest)
	if err != nil {
		return err
	}
	if format != FormatFolder {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("it is not a file (%s); --force replaces only an archive", fileKind(fi))
		}
		return checkArchiveFile(dest)
	}
	if !fi.IsDir() {
		return fmt.Errorf("it is not a folder (%s); --force replaces only a folder bundlectl wrote", fileKind(fi))
	}
	err = isBundleFolder(dest)
	if entries, rerr := os.ReadDir(dest); err != nil && rerr == nil && len(entries) == 1 && entries[0].IsDir() {
		err = isBundleFolder(filepath.Join(dest, entries[0].Name()))
	}
	if err != nil {
		return fmt.Errorf("it is not a bundle bundlectl wrote (%w); --force replaces only a folder holding a bundle's %s, at its top or in its only folder, and nothing else", err, DiscoveryPath())
	}
	return nil
}

// isBundleFolder says whether root holds a discovery.json of the contract.
func isBundleFolder(root string) error {
	data, err := readSmall(filepath.Join(root, filepath.FromSlash(DiscoveryPath())))
	if err != nil {
		return err
	}
	_, err = ParseDiscovery(data)
	return err
}

// checkArchiveFile says whether a file starts as a gzip stream or a tar
// archive (its "ustar" magic).
func checkArchiveFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if n >= 2 && head[0] == 0x1f && head[1] == 0x8b || n >= 262 && string(head[257:262]) == "ustar" {
		return nil
	}
	return errors.New("it is not a gzip or tar archive; --force replaces only an archive")
}

// readSmall reads a regular file of at most 16 MB, not following a
// symlink at its name.
func readSmall(name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 16<<20))
}

func fileKind(fi fs.FileInfo) string {
	switch t := fi.Mode().Type(); {
	case t == 0:
		return "a file"
	case t&fs.ModeDir != 0:
		return "a folder"
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "a special file"
}

// outputMode is the permission of the output: the bits of the source,
// so that an output is never readable by more people than its input, or
// owner-only when it has no file (standard input, a URL, a cluster). A
// folder gets x where the input has r, and always the owner's rwx, so
// that it can be read, and replaced or removed later.
func outputMode(src string, format SourceFormat) fs.FileMode {
	mode := fs.FileMode(0o600)
	if src != "" {
		if fi, err := os.Stat(src); err == nil {
			mode = fi.Mode().Perm() &^ 0o111
		}
	}
	if format == FormatFolder {
		mode |= (mode&0o444)>>2 | 0o700
	}
	return mode
}
