package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/bundlectl/bundlectl/contract"
)

// The kubeconfig is the run's own file, never ~/.kube/config: a support
// bundle must not become a context of the user's real clusters, and the
// file (holding the token) is removed when the server stops. It goes to a
// new private folder, or to a path the caller chose (scripts that run
// serve in the background wait for it there), which must not exist.

// kubeContext is one served bundle as a kubeconfig context.
type kubeContext struct {
	name   string
	server string
	caPEM  []byte // nil for --insecure-http
	token  string
}

// writeKubeconfig writes contexts to path, or to a new private folder when
// path is "", and returns the file's path and the function that removes
// what it wrote. The first context is the current one.
func writeKubeconfig(contexts []kubeContext, path string) (string, func(), error) {
	cfg := clientcmdapi.NewConfig()
	for _, c := range contexts {
		cluster := clientcmdapi.NewCluster()
		cluster.Server = c.server
		cluster.CertificateAuthorityData = c.caPEM
		cfg.Clusters[c.name] = cluster
		user := clientcmdapi.NewAuthInfo()
		user.Token = c.token
		cfg.AuthInfos[c.name] = user
		kc := clientcmdapi.NewContext()
		kc.Cluster, kc.AuthInfo, kc.Namespace = c.name, c.name, "default"
		cfg.Contexts[c.name] = kc
	}
	if len(contexts) > 0 {
		cfg.CurrentContext = contexts[0].name
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return "", nil, fmt.Errorf("encoding the kubeconfig: %w", err)
	}
	if path != "" {
		if err := createExclusive(path, data); err != nil {
			return "", nil, fmt.Errorf("writing the kubeconfig: %w", err)
		}
		return path, func() { os.Remove(path) }, nil
	}
	dir, err := os.MkdirTemp("", "bundlectl-serve-*")
	if err != nil {
		return "", nil, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	path = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return path, func() { os.RemoveAll(dir) }, nil
}

// checkKubeconfigPath refuses, before anything is loaded, a path serve
// must not write: the user's own kubeconfig, or any file that exists.
func checkKubeconfigPath(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if home, err := filepath.Abs(clientcmd.RecommendedHomeFile); err == nil && abs == home {
		return fmt.Errorf("refusing to write %s: serve never touches the user's kubeconfig", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists: serve writes a new kubeconfig and never replaces a file", path)
	}
	return nil
}

// createExclusive writes data to path with mode 0600, failing if path
// exists. The file appears whole (written beside it, then linked), so a
// script waiting for it never reads half a kubeconfig.
func createExclusive(path string, data []byte) error {
	if err := checkKubeconfigPath(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bundlectl-kubeconfig-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	err = os.Link(tmp.Name(), path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: create the file exclusively.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

var unsafeContextChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// contextNames names each bundle after its file or folder, without the
// archive extension, made unique.
func contextNames(paths []string) []string {
	seen := map[string]int{}
	out := make([]string, len(paths))
	for i, p := range paths {
		name := contract.SourceBase(p)
		for _, ext := range []string{".tar.gz", ".tgz", ".tar"} {
			name = strings.TrimSuffix(name, ext)
		}
		name = strings.Trim(unsafeContextChars.ReplaceAllString(name, "-"), "-")
		if name == "" || name == "." {
			name = "bundle"
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		out[i] = name
	}
	return out
}
