package localapiserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildScript is the recipe that builds kube-apiserver and etcd;
// scripts/build-local-apiserver.sh is a symlink to this file. It reads
// releases.txt beside it.
//
//go:embed build-local-apiserver.sh
var buildScript []byte

// BuildScript returns the build recipe this package runs when the
// binaries are missing, for callers that want to show or save it.
func BuildScript() []byte { return append([]byte(nil), buildScript...) }

// ErrNotBuilt means the cache holds no kube-apiserver or etcd and the
// provider was told not to build them.
var ErrNotBuilt = errors.New("kube-apiserver and etcd are not built")

// DefaultCacheDir is the cache the build script uses too:
// $BUNDLECTL_CACHE, else $HOME/.cache/bundlectl.
func DefaultCacheDir() string {
	if d := os.Getenv("BUNDLECTL_CACHE"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "bundlectl")
	}
	return filepath.Join(os.TempDir(), "bundlectl-cache")
}

// BinDir is where the binaries of a release ("v1.31.14") live under a
// cache folder: one folder per release.
func BinDir(cacheDir, version string) string {
	return filepath.Join(cacheDir, "local-apiserver", version)
}

// BuildCommand is the shell command that builds the binaries of a release
// into binDir from a bundlectl checkout.
func BuildCommand(binDir, version string) string {
	return "scripts/build-local-apiserver.sh --kube-version " + shellQuote(version) + " " + shellQuote(binDir)
}

// Binaries are the paths of the two programs the provider starts.
type Binaries struct {
	Dir           string
	KubeAPIServer string
	Etcd          string
}

// FindBinaries looks for kube-apiserver and etcd of a release in binDir.
// Their version is not checked here (running them costs time); Create
// checks the server's /version instead.
func FindBinaries(binDir, version string) (Binaries, error) {
	b := Binaries{
		Dir:           binDir,
		KubeAPIServer: filepath.Join(binDir, "kube-apiserver"),
		Etcd:          filepath.Join(binDir, "etcd"),
	}
	var missing []string
	for _, p := range []string{b.KubeAPIServer, b.Etcd} {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			missing = append(missing, filepath.Base(p))
		}
	}
	if len(missing) > 0 {
		return b, fmt.Errorf("%w: %v of Kubernetes %s missing in %s; build them with `%s` (from a bundlectl checkout; takes several minutes)",
			ErrNotBuilt, missing, version, binDir, BuildCommand(binDir, version))
	}
	return b, nil
}

// Build runs the embedded build script to build kube-apiserver of a
// release ("v1.31.14") and etcd into binDir, writing its output to out
// (nil discards it). It takes several minutes the first time and needs
// bash and the go command. The script locks the folder, so concurrent
// builds wait for each other. Cancelling ctx stops the whole build (its
// process group).
func Build(ctx context.Context, binDir, version string, out io.Writer) error {
	if !supported {
		return errUnsupported
	}
	if out == nil {
		out = io.Discard
	}
	for _, tool := range []string{"bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("building kube-apiserver into %s needs %s in PATH: %w", binDir, tool, err)
		}
	}
	dir, err := os.MkdirTemp("", "bundlectl-build-local-apiserver-")
	if err != nil {
		return fmt.Errorf("building kube-apiserver: %w", err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "build-local-apiserver.sh")
	for name, data := range map[string][]byte{script: buildScript, filepath.Join(dir, "releases.txt"): releasesTxt} {
		if err := os.WriteFile(name, data, 0o600); err != nil {
			return fmt.Errorf("building kube-apiserver: writing the script: %w", err)
		}
	}
	p, err := startProcess("build-local-apiserver", "bash", []string{script, "--kube-version", version, binDir}, out)
	if err != nil {
		return fmt.Errorf("building kube-apiserver: %w", err)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.stop(10 * time.Second)
		return fmt.Errorf("building kube-apiserver into %s: %w", binDir, ctx.Err())
	}
	if p.err != nil {
		return fmt.Errorf("building kube-apiserver into %s with the embedded %s: %w (the script's output says why)",
			binDir, "build-local-apiserver.sh", p.err)
	}
	return nil
}

func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/.-_+=:,", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
