//go:build unix

package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// hostileMaxRSS is the memory bound every command keeps on every hostile
// bundle, gigabyte entries included: nothing is decoded above the decode
// limit, and what is over it is streamed.
const hostileMaxRSS = 256 << 20

// A case of one large object (Hostile.BigList) is bounded by a constant
// plus a multiple of the object, per command: inspect holds the file
// once; upgrade holds the file and the object the printers decode, 2x
// (serve too, which upgrades a legacy bundle on load, then holds the
// file once to serve it, however many lists run at once).
const hostileBaseRSS = 128 << 20

var hostileRatio = map[string]float64{"inspect": 1.25, "upgrade": 2.25, "serve": 2.25}

// hostileItemCost is what each command may hold per object of a list of
// many small items (Hostile.Items) besides the multiple of its bytes:
// inspect keeps no item; upgrade an item's slice, type and key; serve its
// Object, key and field selector values, and the cells of its table's
// row (docs/safety.md states these bounds).
var hostileItemCost = map[string]int64{"inspect": 0, "upgrade": 100, "serve": 1000}

// hostileBound is the bound of cmd on h.
func hostileBound(cmd string, h contracttest.Hostile) int64 {
	if h.BigList == "" && h.Ratios == nil {
		return hostileMaxRSS
	}
	ratio := hostileRatio[cmd]
	if r, ok := h.Ratios[cmd]; ok {
		ratio = r
	}
	return hostileBaseRSS + int64(ratio*float64(h.Big)) + hostileItemCost[cmd]*int64(h.Items)
}

// hostileLong runs the cases of issues #18 and #30 at the sizes they
// measured (make hostile-long): one 400 MB object, 300 MB early-read
// decoys, 600 PAX records of 1 MB, a 200 MB CRD list, lists of a million
// minimal items, 500,000 empty entries; one case at a time, each
// command's peak logged.
var hostileLong = testenv.Long()

// TestHostileBundles runs inspect, upgrade and serve, each as the real
// command in a child process, on every bundle of the hostile corpus. A
// refused bundle is an error naming the bundle and its entry, with no
// output, no kubeconfig and nothing in the temporary folder; a failsafe
// case is a problem or warning naming the entry, with the upgraded bundle
// holding every raw entry unchanged and serve serving the rest. No
// command panics, writes outside its output, or grows past
// hostileMaxRSS.
func TestHostileBundles(t *testing.T) {
	root := t.TempDir()
	corpusDir := filepath.Join(root, "corpus")
	opts := contracttest.HostileOptions{}
	if hostileLong {
		opts = contracttest.HostileOptions{BigObjectSize: 400 << 20, EarlySize: 300 << 20, PAXEntries: 600, CRDListSize: 200 << 20,
			Items: 1_000_000, Entries: 500_000}
	}
	corpus, err := contracttest.WriteHostileCorpus(corpusDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	corpusBefore := dirNames(t, corpusDir)
	var mu sync.Mutex
	peaks := map[string]int64{}
	record := func(cmd string, r childResult) {
		mu.Lock()
		defer mu.Unlock()
		peaks[cmd] = max(peaks[cmd], r.peakRSS)
	}
	t.Run("corpus", func(t *testing.T) {
		for _, h := range corpus {
			if hostileLong && h.Big == 0 {
				continue
			}
			t.Run(h.Name, func(t *testing.T) {
				if !hostileLong {
					t.Parallel()
				}
				work := filepath.Join(root, "work-"+h.Name)
				tmp := filepath.Join(root, "tmp-"+h.Name)
				for _, d := range []string{work, tmp} {
					if err := os.Mkdir(d, 0o700); err != nil {
						t.Fatal(err)
					}
				}
				env := []string{"TMPDIR=" + tmp, "HOME=" + work}
				// The words an error or warning must hold.
				named := []string{h.Want}
				if h.Entry != "" {
					named = append(named, fmt.Sprintf("%q", h.Entry))
				}
				if h.Failsafe {
					named = []string{h.Rel, h.Want}
				}
				checkRSS := func(cmd string, r childResult) {
					t.Helper()
					record(cmd, r)
					if bound := hostileBound(cmd, h); r.peakRSS > bound {
						t.Errorf("%s: peak RSS %d MB, over the %d MB bound", cmd, r.peakRSS>>20, bound>>20)
					}
					if h.Big > 0 {
						t.Logf("%s: peak RSS %d MB (bound %d MB; case of %.0f MB)", cmd, r.peakRSS>>20, hostileBound(cmd, h)>>20, float64(h.Big)/(1<<20))
					}
				}
				checkEmpty := func(what, dir string, except ...string) {
					t.Helper()
					for _, n := range dirNames(t, dir) {
						if !slices.Contains(except, n) {
							t.Errorf("%s left %s in %s", what, n, dir)
						}
					}
				}

				// inspect
				r := runBundlectl(t, work, env, "inspect", h.Path)
				checkRSS("inspect", r)
				if h.Accepted {
					if r.code != 0 || !hasLine(r.stdout, "Problems: 0") {
						t.Errorf("inspect: exit %d, want 0 and no problem:\n%s\n%s", r.code, r.stdout, r.stderr)
					}
				} else if h.Failsafe {
					if r.code != 0 || !hasLine(r.stdout, named...) {
						t.Errorf("inspect: exit %d, no problem line with %q:\n%s\n%s", r.code, named, r.stdout, r.stderr)
					}
				} else if r.code != 1 || !hasLine(r.stderr, append(named, "bundlectl: ", h.Path)...) {
					t.Errorf("inspect: exit %d, want 1 and an error with %q:\n%s", r.code, named, r.stderr)
				}
				checkEmpty("inspect", work)
				checkEmpty("inspect", tmp)

				// upgrade
				newPath := filepath.Join(work, "new.tar.gz")
				r = runBundlectl(t, work, env, "upgrade", h.Path, newPath)
				checkRSS("upgrade", r)
				if h.Accepted {
					if r.code != 0 || !hasLine(r.stdout, "Problems: none") {
						t.Errorf("upgrade: exit %d, want 0 and no problem:\n%s\n%s", r.code, r.stdout, r.stderr)
					}
					checkEmpty("upgrade", work, "new.tar.gz")
					os.Remove(newPath)
				} else if h.Failsafe {
					if r.code != 0 || !hasLine(r.stdout, named...) {
						t.Errorf("upgrade: exit %d, no problem line with %q:\n%s\n%s", r.code, named, r.stdout, r.stderr)
					} else {
						old, upgraded := entrySums(t, h.Path), entrySums(t, newPath)
						for _, e := range old {
							if i := slices.Index(upgraded, e); i < 0 {
								t.Errorf("upgrade: %s is not in the upgraded bundle unchanged", e)
							} else {
								upgraded = slices.Delete(upgraded, i, i+1)
							}
						}
					}
					checkEmpty("upgrade", work, "new.tar.gz")
					os.Remove(newPath)
				} else {
					if r.code != 1 || !hasLine(r.stderr, append(named, "bundlectl: ", h.Path)...) {
						t.Errorf("upgrade: exit %d, want 1 and an error with %q:\n%s", r.code, named, r.stderr)
					}
					checkEmpty("upgrade", work)
				}
				checkEmpty("upgrade", tmp)

				// serve
				kubeconfig := filepath.Join(work, "kubeconfig")
				s := startServe(t, work, env, kubeconfig, h.Path)
				if h.Accepted {
					if s.exited != nil {
						t.Fatalf("serve: exit %d:\n%s", s.exited.code, s.exited.stderr)
					}
					checkTableDecodes(t, kubeconfig, h.TablePath)
					if h.BigList != "" {
						checkConcurrentLists(t, kubeconfig, h.BigList, h.Big)
					}
					r = s.stop(t)
					if r.code != 0 || strings.Contains(r.stderr, "warning") {
						t.Errorf("serve: exit %d, or a warning:\n%s", r.code, r.stderr)
					}
				} else if h.Failsafe {
					if s.exited != nil {
						t.Fatalf("serve: exit %d:\n%s", s.exited.code, s.exited.stderr)
					}
					if code := getFrom(t, kubeconfig, "/api/v1/namespaces/default/pods/"+contracttest.HostileGoodPod); code != http.StatusOK {
						t.Errorf("serve: the good pod: %d", code)
					}
					r = s.stop(t)
					if r.code != 0 || !hasLine(r.stderr, append(named, "warning: ")...) {
						t.Errorf("serve: exit %d, no warning with %q:\n%s", r.code, named, r.stderr)
					}
				} else {
					if s.exited == nil {
						s.stop(t)
						t.Fatal("serve served a bundle it should refuse")
					}
					r = *s.exited
					if r.code != 1 || !hasLine(r.stderr, append(named, "bundlectl: ", h.Path)...) {
						t.Errorf("serve: exit %d, want 1 and an error with %q:\n%s", r.code, named, r.stderr)
					}
				}
				checkRSS("serve", r)
				checkEmpty("serve", work)
				checkEmpty("serve", tmp)
			})
		}
	})
	for _, h := range corpus {
		for _, p := range h.Escapes {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("%s: %s was written", h.Name, p)
			}
		}
	}
	if after := dirNames(t, corpusDir); !slices.Equal(after, corpusBefore) {
		t.Errorf("the corpus folder changed: %v, was %v", after, corpusBefore)
	}
	t.Logf("peak RSS over the corpus (bound %d MB): inspect %d MB, upgrade %d MB, serve %d MB",
		hostileMaxRSS>>20, peaks["inspect"]>>20, peaks["upgrade"]>>20, peaks["serve"]>>20)
}

// hasLine says whether one line of out holds every word.
func hasLine(out string, words ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		all := true
		for _, w := range words {
			if !strings.Contains(line, w) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// servingChild is `bundlectl serve` running in a child process.
type servingChild struct {
	done           chan struct{}
	cmd            interface{ Signal(os.Signal) error }
	result         childResult
	exited         *childResult // set when serve ended before it served
	stdout, stderr *bytes.Buffer
}

// startServe starts serve and waits until it writes the kubeconfig or
// ends.
func startServe(t *testing.T, dir string, env []string, kubeconfig string, bundles ...string) *servingChild {
	t.Helper()
	args := append([]string{"serve", "--write-kubeconfig", kubeconfig}, bundles...)
	cmd := bundlectlCmd(t, dir, env, args...)
	s := &servingChild{done: make(chan struct{}), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.cmd = cmd.Process
	go func() {
		cmd.Wait()
		s.result = childResult{code: cmd.ProcessState.ExitCode(), stdout: s.stdout.String(), stderr: s.stderr.String(), peakRSS: peakRSS(cmd)}
		close(s.done)
	}()
	// A guard against a hang, not a speed target: the CRD-list cases
	// upgrade on load for a minute or two on a busy machine.
	deadline := time.After(6 * time.Minute)
	for {
		select {
		case <-s.done:
			r := s.result
			checkNoPanic(t, r, args)
			s.exited = &r
			return s
		case <-deadline:
			cmd.Process.Kill()
			<-s.done
			t.Fatalf("serve did not start:\n%s", s.result.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := os.Stat(kubeconfig); err == nil {
			return s
		}
	}
}

// stop interrupts serve as Ctrl-C does and waits for it to end.
func (s *servingChild) stop(t *testing.T) childResult {
	t.Helper()
	s.cmd.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		s.cmd.Signal(syscall.SIGKILL)
		<-s.done
		t.Error("serve did not stop on SIGINT")
	}
	checkNoPanic(t, s.result, []string{"serve"})
	return s.result
}

// checkConcurrentLists asks for the list at path four times at once,
// compressed as client-go asks and indented as curl asks, and checks
// that each answer is whole (at least 99% of size: where size is a whole
// list, the served one writes its items without apiVersion and kind, as
// the server does): a list of a large object must not cost serve a copy
// per request.
func checkConcurrentLists(t *testing.T, kubeconfig, path string, size int64) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i, query := range []string{"", "?pretty=true", "", "?pretty=true"} {
		wg.Go(func() {
			resp, err := client.Get(cfg.Host + path + query)
			if err != nil {
				t.Errorf("list %d: %v", i, err)
				return
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if err != nil || resp.StatusCode != http.StatusOK || n < size-size/100 {
				t.Errorf("list %d %s%s: %d, %d bytes, %v", i, path, query, resp.StatusCode, n, err)
			}
		})
	}
	wg.Wait()
}

// getFrom sends a GET through a kubeconfig and returns the status code.
// checkTableDecodes asks serve for the Table at path as kubectl does and
// decodes it as kubectl does: every row's object into a map (the
// unstructured decoding that fails on a number no float64 holds) and
// into PartialObjectMetadata.
func checkTableDecodes(t *testing.T, kubeconfig, path string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, cfg.Host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil || resp.StatusCode != http.StatusOK || len(table.Rows) == 0 {
		t.Fatalf("serve: the Table of %s: %d %v\n%s", path, resp.StatusCode, err, body)
	}
	for i, row := range table.Rows {
		var m map[string]any
		var p metav1.PartialObjectMetadata
		if err := json.Unmarshal(row.Object.Raw, &m); err != nil {
			t.Errorf("serve: row %d of %s: %v", i, path, err)
		} else if err := json.Unmarshal(row.Object.Raw, &p); err != nil || p.Name == "" {
			t.Errorf("serve: row %d of %s: %v %s", i, path, err, row.Object.Raw)
		}
	}
}

func getFrom(t *testing.T, kubeconfig, path string) int {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(cfg.Host + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
