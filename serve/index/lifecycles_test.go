package index

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/semver"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"

	"github.com/bundlectl/bundlectl/internal/test/gomod"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// apiReleases are the releases of the API modules the lifecycles are read
// from, the newest patch of each minor before the pin (go.mod's, added by
// lifecycleReleases). A new pin needs its predecessor added here.
var apiReleases = []string{
	"v0.20.15", "v0.21.14", "v0.22.17", "v0.23.17", "v0.24.17", "v0.25.16",
	"v0.26.15", "v0.27.16", "v0.28.15", "v0.29.15", "v0.30.14", "v0.31.14",
	"v0.32.13", "v0.33.13", "v0.34.12", "v0.35.8", "v0.36.5",
}

// apiModules are the modules whose types kube-apiserver serves, each with
// the folder its API packages are in: the built-in types, and those of the
// apiextensions and aggregator servers it runs (CustomResourceDefinition,
// APIService), all released with the same version.
var apiModules = []struct{ path, under string }{
	{"k8s.io/api", "."},
	{"k8s.io/apiextensions-apiserver", "pkg/apis"},
	{"k8s.io/kube-aggregator", "pkg/apis"},
}

const lifecyclesFile = "lifecycles.json.gz"

func lifecycleReleases(t *testing.T) []string {
	t.Helper()
	pin, err := gomod.Require("../../go.mod", "k8s.io/api")
	if err != nil {
		t.Fatal(err)
	}
	return append(slices.Clone(apiReleases), pin)
}

// The data file is what the releases' own API types declare: regenerated
// from their source in the module cache (go mod download) and compared;
// -update rewrites it.
func TestLifecyclesData(t *testing.T) {
	releases := lifecycleReleases(t)
	perMinor := map[int][]lifecycle{}
	for i, release := range releases {
		minor := apiMinor(t, release)
		if minor != lifecycleFirst+i {
			t.Fatalf("k8s.io/api %s is not the release of 1.%d: apiReleases must hold one release of each minor from 1.%d to the pin's", release, lifecycleFirst+i, lifecycleFirst)
		}
		for _, m := range apiModules {
			dir, err := moduleDir(m.path, release)
			if err != nil {
				testenv.Missing(t, "%s %s is not in the module cache and cannot be downloaded: %v", m.path, release, err)
			}
			ls, err := readLifecycles(filepath.Join(dir, m.under))
			if err != nil {
				t.Fatalf("%s %s: %v", m.path, release, err)
			}
			perMinor[minor] = append(perMinor[minor], ls...)
		}
	}
	if last := apiMinor(t, releases[len(releases)-1]); last != lifecycleLast {
		t.Fatalf("the pin is 1.%d, lifecycleLast 1.%d", last, lifecycleLast)
	}
	want := collapseLifecycles(perMinor)
	if testenv.Update() {
		if err := os.WriteFile(lifecyclesFile, encodeLifecycles(t, want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := decodeLifecycles(lifecyclesData)
	if err != nil {
		t.Fatalf("%s: %v", lifecyclesFile, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s differs from the releases' k8s.io/api (go test ./serve/index -run TestLifecyclesData -update rewrites it) (-releases +file):\n%s", lifecyclesFile, diff)
	}
}

// The data of the pin's minor is what the compiled API types of the pin
// answer, kind for kind, so the parser is held to the methods themselves
// wherever the module cache is not at hand.
func TestLifecyclesMatchPinnedScheme(t *testing.T) {
	type deprecated interface{ APILifecycleDeprecated() (int, int) }
	type removed interface{ APILifecycleRemoved() (int, int) }
	type replaced interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{kscheme.AddToScheme, apiextensionsscheme.AddToScheme, aggregatorscheme.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	atPin := lifecyclesByMinor()[lifecycleLast]
	seen := 0
	for gvk := range scheme.AllKnownTypes() {
		obj, err := scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		want := lifecycle{GVK: gvk}
		if m, ok := obj.(deprecated); ok {
			want.Deprecated[0], want.Deprecated[1] = m.APILifecycleDeprecated()
		}
		if m, ok := obj.(removed); ok {
			want.Removed[0], want.Removed[1] = m.APILifecycleRemoved()
		}
		if m, ok := obj.(replaced); ok {
			want.Replacement = m.APILifecycleReplacement()
		}
		l, inData := atPin[gvk]
		if want == (lifecycle{GVK: gvk}) {
			if inData {
				t.Errorf("%s: no lifecycle in the pin, %+v in the data", gvk, l)
			}
			continue
		}
		seen++
		l.First, l.Last = 0, 0
		if l != want {
			t.Errorf("%s: data %+v, the pin's methods %+v", gvk, l, want)
		}
	}
	for gvk := range atPin {
		if scheme.IsVersionRegistered(gvk.GroupVersion()) && !scheme.Recognizes(gvk) {
			t.Errorf("%s is in the data of 1.%d, not in the pin's scheme", gvk, lifecycleLast)
		}
	}
	if seen < 50 {
		t.Errorf("only %d kinds of the pin's scheme have lifecycle methods", seen)
	}
}

func apiMinor(t *testing.T, release string) int {
	t.Helper()
	mm := strings.Split(strings.TrimPrefix(semver.MajorMinor(release), "v"), ".")
	minor, err := strconv.Atoi(mm[len(mm)-1])
	if len(mm) != 2 || mm[0] != "0" || err != nil {
		t.Fatalf("k8s.io/api %q is not a v0.N.P release", release)
	}
	return minor
}

// moduleDir is where the go command keeps module@version, downloading it
// from the module proxy first if need be.
func moduleDir(module, version string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module+"@"+version).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%w: %s %s", err, ee.Stderr, out)
		}
		return "", err
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, version, m.Error)
	}
	return m.Dir, nil
}

// readLifecycles reads the lifecycle methods of every type of the
// tree of API packages at dir: generated (zz_generated.prerelease-lifecycle.go)
// or written by hand (core/v1's lifecycle.go), each package's group the one
// its register.go's GroupName names and its version its directory's.
func readLifecycles(dir string) ([]lifecycle, error) {
	files := map[string][]string{} // package directory -> its files declaring lifecycle methods
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(src, []byte(") APILifecycle")) {
			return err
		}
		pkg := filepath.Dir(path)
		if files[pkg] == nil {
			dirs = append(dirs, pkg)
		}
		files[pkg] = append(files[pkg], path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []lifecycle
	for _, pkg := range dirs {
		group, err := groupName(filepath.Join(pkg, "register.go"))
		if err != nil {
			return nil, err
		}
		ls, err := readLifecycleFiles(files[pkg], schema.GroupVersion{Group: group, Version: filepath.Base(pkg)})
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

func groupName(path string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return "", err
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if name.Name == "GroupName" && i < len(vs.Values) {
					if s, ok := stringLit(vs.Values[i]); ok {
						return s, nil
					}
				}
			}
		}
	}
	return "", fmt.Errorf("%s: no const GroupName = \"...\"", path)
}

// readLifecycleFiles reads the lifecycle methods of one package's files:
// methods of *Kind, each a single return of int literals or of a
// schema.GroupVersionKind literal. Anything else is an error naming the
// place, not a guess.
func readLifecycleFiles(paths []string, gv schema.GroupVersion) ([]lifecycle, error) {
	fset := token.NewFileSet()
	var decls []ast.Decl
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		decls = append(decls, f.Decls...)
	}
	byKind := map[string]*lifecycle{}
	var kinds []string
	for _, decl := range decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || !strings.HasPrefix(fd.Name.Name, "APILifecycle") {
			continue
		}
		bad := func(what string) error {
			return fmt.Errorf("%s: %s: %s", fset.Position(fd.Pos()), fd.Name.Name, what)
		}
		star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
		if !ok {
			return nil, bad("receiver is not a pointer to a type")
		}
		kind := star.X.(*ast.Ident).Name
		l := byKind[kind]
		if l == nil {
			l = &lifecycle{GVK: gv.WithKind(kind)}
			byKind[kind] = l
			kinds = append(kinds, kind)
		}
		if len(fd.Body.List) != 1 {
			return nil, bad("not a single return")
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok {
			return nil, bad("not a single return")
		}
		switch fd.Name.Name {
		case "APILifecycleIntroduced":
			// Not asked by the apiserver's deprecation rules.
		case "APILifecycleDeprecated", "APILifecycleRemoved":
			v, ok := majorMinor(ret)
			if !ok {
				return nil, bad("not return <int>, <int>")
			}
			if fd.Name.Name == "APILifecycleDeprecated" {
				l.Deprecated = v
			} else {
				l.Removed = v
			}
		case "APILifecycleReplacement":
			if l.Replacement, ok = gvkLit(ret); !ok {
				return nil, bad("not return schema.GroupVersionKind{Group: \"...\", Version: \"...\", Kind: \"...\"}")
			}
		default:
			return nil, bad("an unknown lifecycle method")
		}
	}
	var out []lifecycle
	for _, k := range kinds {
		// A kind only introduced (GA kinds name their release) has
		// nothing the apiserver asks.
		if l := *byKind[k]; l != (lifecycle{GVK: l.GVK}) {
			out = append(out, l)
		}
	}
	return out, nil
}

func majorMinor(ret *ast.ReturnStmt) ([2]int, bool) {
	var v [2]int
	if len(ret.Results) != 2 {
		return v, false
	}
	for i, r := range ret.Results {
		lit, ok := r.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return v, false
		}
		n, err := strconv.Atoi(lit.Value)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func gvkLit(ret *ast.ReturnStmt) (schema.GroupVersionKind, bool) {
	var gvk schema.GroupVersionKind
	if len(ret.Results) != 1 {
		return gvk, false
	}
	cl, ok := ret.Results[0].(*ast.CompositeLit)
	if !ok {
		return gvk, false
	}
	if sel, ok := cl.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "GroupVersionKind" {
		return gvk, false
	}
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return gvk, false
		}
		key, ok := kv.Key.(*ast.Ident)
		s, isString := stringLit(kv.Value)
		if !ok || !isString {
			return gvk, false
		}
		switch key.Name {
		case "Group":
			gvk.Group = s
		case "Version":
			gvk.Version = s
		case "Kind":
			gvk.Kind = s
		default:
			return gvk, false
		}
	}
	return gvk, true
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// collapseLifecycles turns each minor's lifecycles into spans of
// consecutive minors with the same lifecycle, sorted by kind and minor.
func collapseLifecycles(perMinor map[int][]lifecycle) []lifecycle {
	var out []lifecycle
	open := map[schema.GroupVersionKind]int{} // kind -> index in out of its span reaching the previous minor
	for minor := lifecycleFirst; minor <= lifecycleLast; minor++ {
		for _, l := range perMinor[minor] {
			if i, ok := open[l.GVK]; ok && out[i].Last == minor-1 && out[i].Deprecated == l.Deprecated && out[i].Removed == l.Removed && out[i].Replacement == l.Replacement {
				out[i].Last = minor
				continue
			}
			l.First, l.Last = minor, minor
			open[l.GVK] = len(out)
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b lifecycle) int {
		if c := strings.Compare(a.GVK.Group+"/"+a.GVK.Version+"/"+a.GVK.Kind, b.GVK.Group+"/"+b.GVK.Version+"/"+b.GVK.Kind); c != 0 {
			return c
		}
		return a.First - b.First
	})
	return out
}

// encodeLifecycles writes the data file: one lifecycle a line, gzipped.
func encodeLifecycles(t *testing.T, ls []lifecycle) []byte {
	var raw bytes.Buffer
	raw.WriteString("[\n")
	for i, l := range ls {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		raw.Write(b)
		if i < len(ls)-1 {
			raw.WriteByte(',')
		}
		raw.WriteByte('\n')
	}
	raw.WriteString("]\n")
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
