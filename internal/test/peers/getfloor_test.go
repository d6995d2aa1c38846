package peers

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// The flags of BenchmarkGetFloor (after -args).
var (
	getFloorN      = flag.Int("getfloor.n", 2000, "GETs per side")
	getFloorDir    = flag.String("getfloor.dir", "", "keep the generated and upgraded bundles in this folder between runs")
	getFloorPeer   = flag.Bool("getfloor.peer", false, "put kube-apiserver, holding the namespaces and pods of the GETs, in the rotation, as in Run")
	getFloorLists  = flag.Bool("getfloor.lists", false, "first ask each server for the lists Run measures")
	getFloorThrash = flag.Int("getfloor.thrash", 0, "MB of memory written between two GETs, as kube-apiserver's own GET does between them in Run")
	getFloorBase   = flag.String("getfloor.base", "", "another bundlectl binary, served and measured in the same rotation, to compare two builds")
	getFloorQuery  = flag.String("getfloor.query", "", "a query added to each GET (resourceVersion=0 takes the router's path instead of the object routes'; includeObject=Object a body of 4 to 64 KB)")
)

// BenchmarkGetFloor measures table-get-s alone: `bundlectl serve` of the
// benchmark's upgraded bundle against its floor, the same GETs from the
// same clients, alternately, as Run measures them (make bench-get; its
// flags are the getfloor.* flags above). It logs each side's percentiles,
// CPU and page faults per GET, and the ratios of the medians to the
// floor's. One iteration is the whole run: -benchtime 1x.
func BenchmarkGetFloor(b *testing.B) {
	for range b.N {
		getFloor(b)
	}
}

func getFloor(t *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	n := *getFloorN
	o := Options{Bundlectl: testenv.Bundlectl(t), Floor: floorCommand, Log: os.Stderr}
	o.defaults()
	r := &runner{o: o, rep: &Report{}, dir: *getFloorDir}
	if r.dir == "" {
		r.dir = t.TempDir()
	}
	upgraded := filepath.Join(r.dir, "upgraded.tar.gz")
	if _, err := os.Stat(upgraded); err != nil {
		legacy := filepath.Join(r.dir, "legacy.tar.gz")
		if _, err := contracttest.WriteBundleFile(legacy, *o.Spec); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.CommandContext(ctx, o.Bundlectl, "upgrade", "--force", legacy, upgraded).CombinedOutput(); err != nil {
			t.Fatalf("bundlectl upgrade: %v\n%s", err, out)
		}
	}
	os.Remove(filepath.Join(r.dir, "serve.kubeconfig"))
	os.RemoveAll(filepath.Join(r.dir, "floor"))
	stopServe, err := r.startServe(ctx, upgraded)
	if err != nil {
		t.Fatal(err)
	}
	defer stopServe()
	gets, err := r.getPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if q := *getFloorQuery; q != "" {
		for i := range gets {
			gets[i] += "?" + q
		}
	}
	requests := []floorRequest{{"/api/v1/pods", "application/json", benchUserAgent}, {"/api/v1/pods", kubectlAccept, benchUserAgent}}
	for _, p := range gets {
		requests = append(requests, floorRequest{p, kubectlAccept, benchUserAgent})
	}
	floor, stopFloor, err := r.startFloor(ctx, requests)
	if err != nil {
		t.Fatal(err)
	}
	defer stopFloor()
	sides := []*side{r.served, floor}
	if *getFloorPeer {
		// kube-apiserver between bundlectl and the floor, as in Run.
		peer := startGetPeer(ctx, t, r, gets)
		sides = []*side{r.served, peer, floor}
	}
	if base := *getFloorBase; base != "" {
		// Another build of bundlectl, measured in the same rotation.
		rb := &runner{o: o, rep: r.rep, dir: filepath.Join(r.dir, "base")}
		rb.o.Bundlectl = base
		os.RemoveAll(rb.dir)
		if err := os.MkdirAll(rb.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stopBase, err := rb.startServe(ctx, upgraded)
		if err != nil {
			t.Fatal(err)
		}
		defer stopBase()
		rb.served.name = "base"
		sides = append(sides, rb.served)
	}
	if *getFloorLists {
		for _, accept := range []string{kubectlAccept, "application/json"} {
			if _, _, _, err := r.alternate(sides, 3, func(s *side, _ int) (float64, error) {
				return timed(func() error { _, err := s.get(ctx, s.client, "/api/v1/pods", accept); return err })
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var thrash []byte
	if mb := *getFloorThrash; mb > 0 {
		thrash = make([]byte, mb<<20)
	}
	faults := make([]int, len(sides))
	for k, s := range sides {
		faults[k] = minorFaults(s.pid)
	}
	samples, cpu, _, err := r.alternate(sides, n, func(s *side, i int) (float64, error) {
		for j := 0; j < len(thrash); j += 64 {
			thrash[j]++
		}
		return timed(func() error { _, err := s.get(ctx, s.client, gets[i%len(gets)], kubectlAccept); return err })
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, s := range sides {
		xs := slices.Clone(samples[k])
		slices.Sort(xs)
		q := func(p float64) float64 { return xs[int(p*float64(len(xs)-1))] * 1e3 }
		rss, _ := procStatus(s.pid, "VmRSS")
		t.Logf("%-9s GET ms: p10 %.3f median %.3f p90 %.3f; server CPU %.1f µs and %.1f page faults per GET; RSS %.0f MB", s.name, q(0.1), q(0.5), q(0.9), cpu[k]/float64(n)*1e6, float64(minorFaults(s.pid)-faults[k])/float64(n), rss)
		fmt.Fprintf(os.Stderr, "%s median %.4f ms\n", s.name, q(0.5))
	}
	f := slices.Index(sides, floor)
	for k := range sides {
		if k != f {
			t.Logf("%s: ratio of the medians to the floor's: %.3f, of the CPU: %.3f", sides[k].name, median(samples[k])/median(samples[f]), cpu[k]/cpu[f])
		}
	}
}

// startGetPeer starts kube-apiserver with the namespaces and the pods of
// gets from the benchmark's bundle: what its GETs between ours need.
func startGetPeer(ctx context.Context, t testing.TB, r *runner, gets []string) *side {
	t.Helper()
	objects, err := readObjects(filepath.Join(r.dir, "legacy.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range gets {
		path, _, _ := strings.Cut(p, "?")
		want[path] = true
	}
	var pods []json.RawMessage
	for _, raw := range objects["Pod"] {
		var m struct {
			Metadata struct{ Name, Namespace string } `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if want["/api/v1/namespaces/"+m.Metadata.Namespace+"/pods/"+m.Metadata.Name] {
			pods = append(pods, raw)
		}
	}
	r.o.BinDir = localtest.RequireBinaries(t)
	stop, err := r.startPeer(ctx, "get-floor")
	if stop != nil {
		t.Cleanup(func() { _ = stop() })
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadObjects(ctx, r.peer.cfg, map[string][]json.RawMessage{"Namespace": objects["Namespace"], "Pod": pods}, 4); err != nil {
		t.Fatal(err)
	}
	return r.peer
}

// minorFaults is the number of minor page faults a process has taken.
func minorFaults(pid int) int {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 8 {
		return 0
	}
	// minflt is field 10 of stat.
	n, _ := strconv.Atoi(fields[7])
	return n
}
