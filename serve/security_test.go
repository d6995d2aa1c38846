package serve

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

// endpoints lists a path of every kind the server answers for the small
// bundle: roots, discovery, OpenAPI, every resource of every group
// version as a collection, in a namespace, as an object and a watch, and
// every subresource; and paths no API serves.
func endpoints(t *testing.T, x *index.Index) []string {
	t.Helper()
	paths := []string{"/", "/api", "/apis", "/version", "/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1",
		"/metrics", "/debug/pprof/", "/logs/", "/nope", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		"/apis/authentication.k8s.io/v1/selfsubjectreviews", "/api/v1/proxy/namespaces/default/pods/web-1"}
	for gv, resources := range x.Discovery.Resources {
		prefix := "/apis/" + gv
		if gv == "v1" {
			prefix = "/api/v1"
		}
		paths = append(paths, prefix)
		for _, r := range resources {
			res, sub, _ := strings.Cut(r.Name, "/")
			scope := prefix
			if r.Namespaced {
				scope += "/namespaces/default"
			}
			if sub != "" {
				paths = append(paths, scope+"/"+res+"/x/"+sub)
				continue
			}
			paths = append(paths, prefix+"/"+res, scope+"/"+res, scope+"/"+res+"/x", prefix+"/watch/"+res, scope+"/"+res+"?watch=1")
		}
	}
	sort.Strings(paths)
	return paths
}

var allMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// Without the token, or with a wrong one, every request gets 401 but the
// health checks, whatever the path and method.
func TestEveryEndpointNeedsTheToken(t *testing.T) {
	x := load(t, smallBundle(t))
	srv := newHandlerServer(t, x)
	paths := endpoints(t, x)
	for _, path := range paths {
		for _, method := range allMethods {
			for _, auth := range []string{"", "Bearer wrong", "Bearer " + testToken[:len(testToken)-1], "Basic " + testToken, testToken} {
				req, err := http.NewRequest(method, srv.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s %s with %q: %d, want 401", method, path, auth, resp.StatusCode)
				}
			}
		}
	}
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/readyz/ping", "/healthz/"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, srv.URL+path, nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s without a token: %d", method, path, resp.StatusCode)
			}
		}
	}
	if len(paths) < 50 {
		t.Errorf("only %d paths tried", len(paths))
	}
}

// Every write to a path the server serves is refused with 405 (404 where
// kube-apiserver has no route for it); none succeeds anywhere. The self-reviews are the only POSTs answered (they
// write nothing), and exec, attach, port-forward and proxy are refused as
// connections (400).
func TestWritesAreRefused(t *testing.T) {
	x := load(t, smallBundle(t))
	srv := newHandlerServer(t, x)
	writes := []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	refused := 0
	for _, path := range endpoints(t, x) {
		for _, method := range writes {
			r := do(t, srv, method, path, "Content-Type: application/json")
			switch {
			case strings.HasSuffix(strings.Split(path, "?")[0], "reviews") && method == http.MethodPost:
				if r.code != http.StatusBadRequest && r.code != http.StatusCreated {
					t.Errorf("%s %s: %d", method, path, r.code)
				}
			case r.code >= 200 && r.code < 300:
				t.Errorf("%s %s succeeded: %d %s", method, path, r.code, r.body)
			case r.code >= 500:
				t.Errorf("%s %s: %d %s", method, path, r.code, r.body)
			case isServed(x, path) && !isConnect(path):
				// 405 as read-only; 404 where kube-apiserver has no route
				// for the method (a review with a name).
				if r.code != http.StatusMethodNotAllowed && r.code != http.StatusNotFound {
					t.Errorf("%s %s: %d, want 405: %s", method, path, r.code, r.body)
				}
				if r.code == http.StatusMethodNotAllowed {
					refused++
				}
			}
		}
	}
	if refused < 100 {
		t.Errorf("only %d writes to served paths tried", refused)
	}
}

// isServed says whether a path of endpoints names a resource the bundle
// serves (not a watch, which is a GET-only path).
func isServed(x *index.Index, path string) bool {
	path, _, _ = strings.Cut(path, "?")
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(parts) < 3 || parts[0] != "api" && parts[0] != "apis" {
		return false
	}
	gv, rest := parts[1], parts[2:]
	if parts[0] == "apis" {
		if len(parts) < 4 {
			return false
		}
		gv, rest = parts[1]+"/"+parts[2], parts[3:]
	}
	if len(rest) >= 2 && rest[0] == "namespaces" && len(rest) > 2 {
		rest = rest[2:]
	}
	if len(rest) == 0 || rest[0] == "watch" || rest[0] == "proxy" {
		return false
	}
	name := rest[0]
	if len(rest) == 3 {
		name += "/" + rest[2]
	}
	for _, r := range x.Discovery.Resources[gv] {
		if r.Name == name {
			return true
		}
	}
	return false
}

func isConnect(path string) bool {
	for _, sub := range []string{"/exec", "/attach", "/portforward", "/proxy"} {
		if strings.HasSuffix(path, sub) {
			return true
		}
	}
	return false
}

// No request reads a file outside the loaded bundle: names, namespaces
// and containers that climb out of a folder, encoded or not, reach
// nothing, and nothing the server sends holds the file beside the bundle
// or /etc/passwd.
func TestNoRequestReadsOutsideTheBundle(t *testing.T) {
	dir := t.TempDir()
	bundle := smallBundleCopy(t, dir)
	const secret = "THE-SECRET-BESIDE-THE-BUNDLE"
	for _, p := range []string{filepath.Join(dir, "secret"), filepath.Join(dir, "secret.log"), filepath.Join(bundle, "..", "app.log")} {
		if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := newHandlerServer(t, load(t, bundle))
	logs := "/api/v1/namespaces/default/pods/web-1/log"
	for _, path := range []string{
		logs + "?container=../../../../../../secret",
		logs + "?container=..%2F..%2F..%2F..%2F..%2F..%2Fsecret",
		logs + "?container=/etc/passwd",
		logs + "?container=../../../../../../../../../../etc/passwd",
		"/api/v1/namespaces/../../../../../../pods/web-1/log?container=app",
		"/api/v1/namespaces/default/pods/..%2F..%2F..%2Fsecret/log",
		"/api/v1/namespaces/%2e%2e/pods/%2e%2e/log?container=secret",
		"/api/v1/namespaces/default/pods/web-1/log/../../../../../../secret",
		"/api/v1/namespaces/default/pods/web-1/proxy/../../../../secret",
		"/openapi/v3/../../../../secret",
		"/openapi/v3/..%2F..%2F..%2Fsecret",
		"/apis/../../../../etc/passwd",
		"//etc/passwd",
		"/api/v1/namespaces/default/configmaps/../../../../../secret",
		"/api/v1/namespaces/default/pods/..",
		"/api/v1/namespaces/default/pods/.",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			r := do(t, srv, method, path)
			if strings.Contains(r.body, secret) || strings.Contains(r.body, "root:x:0:0") {
				t.Errorf("%s %s read a file outside the bundle: %d %s", method, path, r.code, r.body)
			}
			if r.code >= 500 {
				t.Errorf("%s %s: %d %s", method, path, r.code, r.body)
			}
		}
	}
}

// smallBundleCopy writes the small bundle under dir.
func smallBundleCopy(t *testing.T, dir string) string {
	t.Helper()
	dest := filepath.Join(dir, filepath.Base(smallBundle(t)))
	err := filepath.WalkDir(smallBundle(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(smallBundle(t), p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dest, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dest, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dest
}

// TestServerNeverMapsAURLToAPath reads the package's source: only the
// functions that load a bundle and write the kubeconfig touch the file
// system, and no request opens a file (logs are read from the index's
// spool, opened at load). No handler can be tricked into opening a path
// built from a URL.
func TestServerNeverMapsAURLToAPath(t *testing.T) {
	allowed := map[string][]string{
		"writeKubeconfig":    {"filepath.Join", "os.WriteFile"},
		"openKubeconfigFile": {"filepath.Abs", "filepath.EvalSymlinks", "os.OpenRoot"},
		"isUsers":            {"filepath.Base", "filepath.Dir", "os.Stat"},
		"newRunDir":          {"os.MkdirTemp"},
		"sweepRunDirs":       {"os.ReadDir", "filepath.Join", "os.RemoveAll"},
		"processTag":         {"os.ReadFile"}, // /proc/<pid>/stat
		"contextNames":       {"filepath.Base", "filepath.Clean"},
		"Run":                {"os.RemoveAll"}, // the run's folder
	}
	fileAPIs := map[string]bool{}
	for _, f := range []string{"Open", "OpenFile", "OpenInRoot", "OpenRoot", "ReadFile", "ReadDir", "Stat", "Lstat", "Readlink",
		"DirFS", "Create", "CreateTemp", "MkdirTemp", "WriteFile", "Remove", "RemoveAll", "Link", "Symlink", "Chdir"} {
		fileAPIs["os."+f] = true
	}
	for _, f := range []string{"ServeFile", "ServeFileFS", "FileServer", "FileServerFS", "Dir", "FS"} {
		fileAPIs["http."+f] = true
	}
	for _, f := range []string{"Join", "Abs", "Clean", "Dir", "Base", "Rel", "EvalSymlinks", "Walk", "WalkDir", "Glob"} {
		fileAPIs["filepath."+f] = true
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				call := pkg.Name + "." + sel.Sel.Name
				if fileAPIs[call] && !contains(allowed[fn.Name.Name], call) {
					t.Errorf("%s: %s uses %s", fset.Position(sel.Pos()), fn.Name.Name, call)
				}
				return true
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// While a bundle is served, everything serve writes to the temporary
// folder is private to the user (folders 0700, files 0600), holds no
// private key (the CA's and the server's keys live in memory only), and
// is gone when serve stops.
func TestRunWritesOnlyPrivateFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	archive := servetest.Small().WriteTarGz(t, t.TempDir(), "bundle.tgz")
	kubeconfig, _, stop := startRun(t, Options{Bundles: []string{archive}})
	if !strings.HasPrefix(kubeconfig, tmp) {
		t.Fatalf("kubeconfig %s is not in TMPDIR", kubeconfig)
	}
	n := 0
	err := filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == tmp {
			return err
		}
		n++
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", p, fi.Mode().Perm(), want)
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Contains(data, []byte("PRIVATE KEY")) || bytes.Contains(data, []byte("client-key-data")) {
				t.Errorf("%s holds a private key", p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 { // the kubeconfig's folder and file; the logs' spool has no name
		t.Errorf("only %d files in TMPDIR", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR: %v", entries)
	}
}
