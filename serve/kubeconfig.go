package serve

import (
	"crypto/rand"
	"encoding/hex"
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
// file (holding the token) is removed when the server stops. It goes to
// the run's private folder (runDir), or to a path the caller chose
// (scripts that run serve in the background wait for it there), which
// must not exist.

// kubeContext is one served bundle as a kubeconfig context.
type kubeContext struct {
	name   string
	server string
	caPEM  []byte // nil for --insecure-http
	token  string
}

// encodeKubeconfig is the kubeconfig of contexts; the first is the
// current one.
func encodeKubeconfig(contexts []kubeContext) ([]byte, error) {
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
		return nil, fmt.Errorf("encoding the kubeconfig: %w", err)
	}
	return data, nil
}

// kubeconfigFile is the file --write-kubeconfig names. Its folder is
// resolved and opened once, when serve starts, and the file is created
// in it, and removed from it, through that open folder: a symbolic link
// in the path that is changed meanwhile moves neither the file nor its
// removal elsewhere (into ~/.kube). The name itself is never followed:
// it must not exist, as a file or a link.
type kubeconfigFile struct {
	path string // absolute, for the export line
	arg  string // as given, for messages
	dir  *os.Root
	name string
	// written is the file as created; only that file is removed.
	written fs.FileInfo
}

// openKubeconfigFile refuses, before anything is loaded, a path serve
// must not write: a folder, the user's own kubeconfig (through any link),
// or a name that exists.
func openKubeconfigFile(path string) (*kubeconfigFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	folder, name := filepath.Split(abs)
	if name == "" || name == "." || name == ".." {
		return nil, fmt.Errorf("--write-kubeconfig %s: names a folder, not a file", path)
	}
	refuseUsers := fmt.Errorf("refusing to write %s: serve never touches the user's kubeconfig", path)
	home, err := filepath.Abs(clientcmd.RecommendedHomeFile)
	if err == nil && abs == home {
		return nil, refuseUsers
	}
	resolved, err := filepath.EvalSymlinks(folder)
	if err != nil {
		return nil, fmt.Errorf("--write-kubeconfig %s: %w", path, err)
	}
	dir, err := os.OpenRoot(resolved)
	if err != nil {
		return nil, fmt.Errorf("--write-kubeconfig %s: %w", path, err)
	}
	k := &kubeconfigFile{path: abs, arg: path, dir: dir, name: name}
	if k.isUsers(home) {
		dir.Close()
		return nil, refuseUsers
	}
	if _, err := dir.Lstat(name); err == nil {
		dir.Close()
		return nil, fmt.Errorf("%s already exists: serve writes a new kubeconfig and never replaces a file", path)
	}
	return k, nil
}

// isUsers says whether the file would be the user's kubeconfig home,
// whatever links lead there: the opened folder is home's folder.
func (k *kubeconfigFile) isUsers(home string) bool {
	if k.name != filepath.Base(home) {
		return false
	}
	here, err := k.dir.Stat(".")
	if err != nil {
		return true // unknown: refused
	}
	there, err := os.Stat(filepath.Dir(home))
	return err == nil && os.SameFile(here, there)
}

// write creates the file with mode 0600. It appears whole (written
// beside it, then linked), so a script waiting for it never reads half a
// kubeconfig.
func (k *kubeconfigFile) write(data []byte) error {
	if err := k.create(data); err != nil {
		return fmt.Errorf("writing the kubeconfig %s: %w", k.arg, err)
	}
	fi, err := k.dir.Lstat(k.name)
	if err != nil {
		return fmt.Errorf("writing the kubeconfig %s: %w", k.arg, err)
	}
	k.written = fi
	return nil
}

func (k *kubeconfigFile) create(data []byte) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := ".bundlectl-kubeconfig-" + hex.EncodeToString(rnd[:])
	if err := writeNew(k.dir, tmp, data); err != nil {
		return err
	}
	defer k.dir.Remove(tmp)
	err := k.dir.Link(tmp, k.name)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: create the file exclusively.
	return writeNew(k.dir, k.name, data)
}

// writeNew creates name in dir, 0600, failing if it exists (O_EXCL: not
// even through a link), and removes it again when it cannot be written.
func writeNew(dir *os.Root, name string, data []byte) error {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dir.Remove(name)
	}
	return err
}

// remove removes the file if it is still the one written, and releases
// the folder.
func (k *kubeconfigFile) remove() {
	if k.written != nil {
		if fi, err := k.dir.Lstat(k.name); err == nil && os.SameFile(fi, k.written) {
			k.dir.Remove(k.name)
		}
	}
	k.dir.Close()
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
