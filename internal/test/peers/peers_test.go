package peers

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"github.com/bundlectl/bundlectl/internal/test/peakrss"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestBenchPeers is `make bench-peers`: the whole benchmark, run only
// with testenv.Long. It prints one line per figure and writes
// BENCHMARKS.md where BENCHMARKS_MD says (the Makefile gives the repo
// root). BUNDLECTL_BIN is the bundlectl binary (built here when unset),
// testenv.PeersKubectlEnv the kubectl (default: the newest kubectl.1.N
// in the Cloud SDK's folder, else kubectl from PATH).
func TestBenchPeers(t *testing.T) {
	if !testenv.Long() {
		t.Skip("set " + testenv.LongEnv + "=1 (make bench-peers): generates 10k pods, loads them into kube-apiserver and measures for minutes")
	}
	binDir := localtest.RequireBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 14*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{
		Bundlectl: testenv.Bundlectl(t),
		PeakRSS:   testenv.Build(t, peakrss.Launcher),
		Kubectl:   kubectlBinary(t),
		BinDir:    binDir,
		Log:       os.Stderr,
		Floor:     floorCommand,
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(rep.Lines())
	if path := os.Getenv("BENCHMARKS_MD"); path != "" {
		if err := os.WriteFile(path, []byte(rep.Markdown()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Println("wrote", path)
	}
	for _, f := range rep.Figures {
		if met, ok := f.Met(); ok && !met {
			// Reported, not failed: the figures are the product.
			t.Logf("target missed: %s (%s)", f.Line(), f.Target.Text)
		}
	}
}

// TestPeersSmall runs the whole benchmark on the small bundle, once
// each, so that the harness keeps working between benchmark runs.
func TestPeersSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	binDir := localtest.RequireBinaries(t)
	kubectl := kubectlBinary(t)
	spec := contracttest.Small()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{
		Bundlectl: testenv.Bundlectl(t), PeakRSS: testenv.Build(t, peakrss.Launcher), Kubectl: kubectl, BinDir: binDir, Spec: &spec, Floor: floorCommand,
		Reps: 1, Gets: 2, Concurrent: 2, ConcurrentReps: 1, KubectlReps: 1, UpgradeReps: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rep.Figures {
		names = append(names, f.Name)
		if f.Bundlectl <= 0 || math.IsNaN(f.Bundlectl) || f.Peer != "" && (f.PeerValue <= 0 || math.IsNaN(f.PeerValue)) {
			t.Errorf("%s: no measurement", f.Line())
		}
	}
	withFloor := map[string]bool{"table-list-s": true, "table-list-kubectl-s": true, "json-list-s": true, "table-get-s": true,
		"table-list-2-concurrent-s": true, "table-list-2-concurrent-kubectl-s": true}
	for _, f := range rep.Figures {
		if withFloor[f.Name] != (f.Floor > 0) {
			t.Errorf("%s: floor %v, want one: %v", f.Name, f.Floor, withFloor[f.Name])
		}
	}
	want := []string{"upgrade-s", "upgrade-vs-gzip-cli-s", "upgrade-peak-rss-MB", "table-list-s", "table-list-kubectl-s", "table-list-chunked-s", "json-list-s",
		"table-get-s", "field-selected-s", "label-selected-s", "table-list-2-concurrent-s", "table-list-2-concurrent-kubectl-s", "kubectl-get-pods-A-s", "rss-MB"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("figures:\n got %v\nwant %v", names, want)
	}
	md := rep.Markdown()
	for _, s := range []string{"| `table-list-s`", "| floor |", "## The machine", "200 Pod", "prints the same NAMESPACE, NAME, READY and STATUS", "the same for kubectl's User-Agent (kubectl/v1."} {
		if !strings.Contains(md, s) {
			t.Errorf("BENCHMARKS.md lacks %q:\n%s", s, md)
		}
	}
}

// floorCommand runs the floor server in a process of its own: this test
// binary, as TestFloorChild.
func floorCommand(dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFloorChild$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_FLOOR_DIR="+dir)
	return cmd
}

// TestFloorChild is the floor server's process (floorCommand).
func TestFloorChild(t *testing.T) {
	dir := os.Getenv("BUNDLECTL_FLOOR_DIR")
	if dir == "" {
		t.Skip("the floor server's process of the benchmark")
	}
	if err := ServeFloor(dir, os.Stdin); err != nil {
		t.Fatal(err)
	}
}

func TestLine(t *testing.T) {
	for _, c := range []struct {
		f    Figure
		want string
	}{
		{Figure{Name: "table-list-s", Peer: "kube-apiserver", Bundlectl: 0.0412, PeerValue: 0.83}, "table-list-s bundlectl=0.0412 peer=0.83 ratio=20.15"},
		{Figure{Name: "rss-MB", Peer: "kube-apiserver", Bundlectl: 231.4, PeerValue: 4700}, "rss-MB bundlectl=231 peer=4700 ratio=20.31"},
		{Figure{Name: "upgrade-peak-rss-MB", Bundlectl: 101.2}, "upgrade-peak-rss-MB bundlectl=101 peer=- ratio=-"},
	} {
		if got := c.f.Line(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestMet(t *testing.T) {
	f := Figure{Peer: "p", Bundlectl: 1, PeerValue: 9.99, Target: Target{MinRatio: 10}}
	if met, ok := f.Met(); !ok || met {
		t.Errorf("ratio 9.99 against 10: met=%v ok=%v", met, ok)
	}
	f.PeerValue = 10
	if met, _ := f.Met(); !met {
		t.Error("ratio 10 against 10 is met")
	}
	f = Figure{Bundlectl: 2.6, Target: Target{MaxValue: 2.5}}
	if met, ok := f.Met(); !ok || met {
		t.Errorf("2.6 against at most 2.5: met=%v ok=%v", met, ok)
	}
	if _, ok := (Figure{Bundlectl: 1}).Met(); ok {
		t.Error("a figure without a target has nothing to meet")
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is NaN")
	}
}

func TestContinueOf(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5","continue":"abc"},"rows":[{"cells":[1]}]}`, "abc"},
		{`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}`, ""},
	} {
		got, err := continueOf([]byte(c.body))
		if err != nil || got != c.want {
			t.Errorf("continueOf(%s) = %q, %v; want %q", c.body, got, err, c.want)
		}
	}
	if _, err := continueOf([]byte(`[]`)); err == nil {
		t.Error("an array has no continue")
	}
}

// kubectlBinary is testenv.PeersKubectlEnv, else the kubectl the tests
// run.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(testenv.PeersKubectlEnv); p != "" {
		return p
	}
	return testenv.Kubectl(t)
}

// The kubectl figures send the User-Agent client-go builds for kubectl.
func TestKubectlUserAgent(t *testing.T) {
	for _, c := range []struct{ version, commit, platform, want string }{
		{"v1.33.1", "8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828", "linux/amd64", "kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0"},
		{"v1.35.4-dirty", "", "darwin/arm64", "kubectl/v1.35.4 (darwin/arm64) kubernetes/unknown"},
		{"", "abc", "", "kubectl/unknown (" + runtime.GOOS + "/" + runtime.GOARCH + ") kubernetes/abc"},
	} {
		if got := kubectlUserAgent(c.version, c.commit, c.platform); got != c.want {
			t.Errorf("kubectlUserAgent(%q, %q, %q) = %q, want %q", c.version, c.commit, c.platform, got, c.want)
		}
	}
}
