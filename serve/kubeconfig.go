package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The kubeconfig is the run's own file, never ~/.kube/config: a support
// bundle must not become a context of the user's real clusters, and the
// file (holding the token) is removed when the server stops.

// kubeContext is one served bundle as a kubeconfig context.
type kubeContext struct {
	name   string
	server string
	caPEM  []byte // nil for --insecure-http
	token  string
}

// writeKubeconfig writes contexts to a new private folder and returns the
// file's path; the first context is the current one.
func writeKubeconfig(contexts []kubeContext) (string, error) {
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
		return "", fmt.Errorf("encoding the kubeconfig: %w", err)
	}
	dir, err := os.MkdirTemp("", "bundlectl-serve-*")
	if err != nil {
		return "", fmt.Errorf("writing the kubeconfig: %w", err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return path, nil
}

// removeKubeconfig removes the kubeconfig and its folder.
func removeKubeconfig(path string) error {
	return os.RemoveAll(filepath.Dir(path))
}

var unsafeContextChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// contextNames names each bundle after its file or folder, without the
// archive extension, made unique.
func contextNames(paths []string) []string {
	seen := map[string]int{}
	out := make([]string, len(paths))
	for i, p := range paths {
		name := filepath.Base(filepath.Clean(p))
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
