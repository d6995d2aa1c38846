package contract

import (
	"path"
	"strings"
)

// IsArchiverFile says whether an entry name is metadata that an archiver or
// a desktop added beside the bundle's files, not part of the bundle: the
// AppleDouble "._name" file that macOS's tar and zip write beside every
// file and folder (extended attributes and resource forks, binary), the
// "__MACOSX/" folder of a zip made on macOS, and Finder's ".DS_Store".
// A support engineer who extracts a bundle on a Mac and archives it again
// adds one beside every entry, with the time of that re-archive. Such
// entries are copied like any other but never parsed, never taken as
// logs, and never tell when the bundle was collected.
func IsArchiverFile(name string) bool {
	base := path.Base(name)
	if strings.HasPrefix(base, "._") || base == ".DS_Store" {
		return true
	}
	for _, part := range strings.Split(name, "/") {
		if part == "__MACOSX" {
			return true
		}
	}
	return false
}
