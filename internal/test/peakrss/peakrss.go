// Package peakrss measures a command's peak resident set size as its own:
// through a small launcher (./launcher), because a Go program's children
// inherit its high-water mark (see the launcher's doc). The benchmarks of
// the upgrade's memory use it.
package peakrss

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Launcher is the import path of the launcher, which callers build
// (testenv.Build).
const Launcher = "github.com/bundlectl/bundlectl/internal/test/peakrss/launcher"

// Run runs name with args under launcher and returns their combined
// output and the command's peak RSS in bytes.
func Run(ctx context.Context, launcher, name string, args ...string) (peak int64, out []byte, err error) {
	f, err := os.CreateTemp("", "peakrss-*")
	if err != nil {
		return 0, nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	out, err = exec.CommandContext(ctx, launcher, append([]string{f.Name(), name}, args...)...).CombinedOutput()
	if err != nil {
		return 0, out, fmt.Errorf("%s: %w", name, err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return 0, out, err
	}
	peak, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return peak, out, err
}
