// Package gomod reads the module versions go.mod requires, for the tests
// that keep what the code names (the pinned Kubernetes release, kind's node
// images) in step with go.mod.
package gomod

import (
	"fmt"
	"os"

	"golang.org/x/mod/modfile"
)

// Require returns the version the go.mod file at path requires of module.
func Require(path, module string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		return "", err
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return r.Mod.Version, nil
		}
	}
	return "", fmt.Errorf("%s does not require %s", path, module)
}
