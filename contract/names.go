package contract

import (
	"archive/tar"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Entry names are what GNU tar extracts: "/" separates folders, and a
// backslash is a character of a name like any other
// ("cluster-resources\pods\x.json" is one file at the top of the bundle,
// not a path), so every reader sees the same file. A name that would
// leave the bundle on a system where the backslash separates folders is
// refused all the same.

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

// cleanName refuses names that could write or read outside the bundle,
// and names no output could hold: not UTF-8 (a PAX header, which the
// upgrade writes, holds only UTF-8) or with a NUL.
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
	if isAbsolute(name) {
		return "", errors.New("absolute path")
	}
	if climbs(name) {
		return "", errors.New("path contains ..")
	}
	if clean := path.Clean(name); clean != "." {
		return clean, nil
	}
	return "", nil
}

// isAbsolute says whether a name or link target is absolute here or on
// Windows (a leading backslash, a drive letter).
func isAbsolute(name string) bool {
	return strings.HasPrefix(name, "/") || strings.HasPrefix(name, "\\") || filepath.IsAbs(name) || (len(name) > 1 && name[1] == ':')
}

// climbs says whether a name holds a ".." part, with either separator.
func climbs(name string) bool {
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return true
		}
	}
	return false
}

// resolveLink resolves a link target to a name inside the archive. Symlink
// targets are relative to the link's folder; hard link targets are archive
// names. Targets that leave the archive are refused, also where only a
// backslash read as a separator would make them leave it.
func resolveLink(name string, hdr *tar.Header) (string, error) {
	target := hdr.Linkname
	if target == "" {
		return "", errors.New("link has an empty target")
	}
	if isAbsolute(target) {
		return "", fmt.Errorf("link target %q is absolute", hdr.Linkname)
	}
	dir := "."
	if hdr.Typeflag == tar.TypeSymlink {
		dir = path.Dir(name)
	}
	for _, t := range []string{target, strings.ReplaceAll(target, "\\", "/")} {
		if full := path.Join(dir, t); full == ".." || strings.HasPrefix(full, "../") {
			return "", fmt.Errorf("link target %q leaves the bundle", hdr.Linkname)
		}
	}
	return path.Join(dir, target), nil
}

// checkLinkPaths refuses what checkHeader cannot see one entry at a time:
// a path that goes through a link. Each link is checked where its name
// says it is; behind another link it is somewhere else, and a target
// that stays inside lexically ("up/../x") can leave the bundle for real
// when "up" is a link. Real bundles hold links only as files (the YAML
// twin of a list), so no entry is under a link and no target passes
// through one.
func (b *Bundle) checkLinkPaths(ents []scanned, links map[string]*tar.Header) error {
	if len(links) == 0 {
		return nil
	}
	for _, e := range ents {
		n := e.name
		for dir := path.Dir(n); dir != "."; dir = path.Dir(dir) {
			if links[dir] != nil {
				return b.errorf(n, "its folder %q is a link (links in a bundle are files, never folders)", dir)
			}
		}
	}
	for _, e := range ents {
		n := e.name
		hdr := links[n]
		if hdr == nil {
			continue
		}
		var cur []string
		if hdr.Typeflag == tar.TypeSymlink && path.Dir(n) != "." {
			cur = strings.Split(path.Dir(n), "/")
		}
		parts := strings.Split(hdr.Linkname, "/")
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
