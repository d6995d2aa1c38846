package contract

import "os"

// TempFile creates a temporary file in the default temporary folder for
// what only this process reads back: a spool, a copy kept for later, the
// archive held for standard output. Where the system allows (Linux's
// O_TMPFILE) the file has no name from its start, so no end of the
// process, SIGKILL included, can leave it behind; elsewhere it is made
// with pattern (os.CreateTemp) and removed at once. Where even that fails
// (Windows cannot remove an open file) name is its path, for the caller
// to remove once it is closed; otherwise name is "".
func TempFile(pattern string) (f *os.File, name string, err error) {
	if f, err = openNameless(os.TempDir()); err == nil {
		return f, "", nil
	}
	if f, err = os.CreateTemp("", pattern); err != nil {
		return nil, "", err
	}
	if os.Remove(f.Name()) != nil {
		name = f.Name()
	}
	return f, name, nil
}
