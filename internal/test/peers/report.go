package peers

import (
	_ "embed"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Figure is one measurement of bundlectl and its peer. Ratio is always
// peer/bundlectl and every figure is oriented so that a ratio above 1
// means bundlectl is ahead: times and memory are lower-is-better, so
// throughput is reported as the time a batch takes.
type Figure struct {
	// Name is the figure's name in the printed line, with its unit last
	// (table-list-s, rss-MB).
	Name string
	// What describes it in BENCHMARKS.md.
	What string
	// Peer names what bundlectl is measured against.
	Peer                 string
	Bundlectl, PeerValue float64
	// Samples are the measurements the medians come from.
	BundlectlSamples, PeerSamples []float64
	Target                        Target
	// BundlectlCPU and PeerCPU are the CPU seconds each server process
	// used per measurement (in clock ticks of 10 ms: 0 for the short ones).
	BundlectlCPU, PeerCPU float64
	// Extra is shown beside the figure in BENCHMARKS.md (requests per
	// second, bytes per response).
	Extra string
	// Floor is the same measurement against the floor server (floor.go),
	// 0 when the figure has none.
	Floor        float64
	FloorSamples []float64
	// PeerSettle is how long, in all, the run waited for the peer's
	// process to fall idle after its requests (runner.alternate).
	PeerSettle time.Duration
}

// Target is what a figure must reach: MinRatio, a ratio of at least that
// (peer/bundlectl), or MaxValue, bundlectl's value at most that.
type Target struct {
	MinRatio float64
	MaxValue float64
	// Text says where the target comes from, for BENCHMARKS.md.
	Text string
}

// Ratio is peer/bundlectl, or NaN when bundlectl's value is 0 or the
// figure has no peer.
func (f Figure) Ratio() float64 {
	if f.Bundlectl == 0 || f.Peer == "" {
		return math.NaN()
	}
	return f.PeerValue / f.Bundlectl
}

// Met says whether the target is reached; ok is false when the figure
// has no target.
func (f Figure) Met() (met, ok bool) {
	switch {
	case f.Target.MinRatio > 0:
		return f.Ratio() >= f.Target.MinRatio, true
	case f.Target.MaxValue > 0:
		return f.Bundlectl <= f.Target.MaxValue, true
	}
	return false, false
}

// Line is the figure as `make bench-peers` prints it.
func (f Figure) Line() string {
	peer := "-"
	ratio := "-"
	if f.Peer != "" {
		peer = num(f.PeerValue)
		ratio = strconv.FormatFloat(f.Ratio(), 'f', 2, 64)
	}
	return fmt.Sprintf("%s bundlectl=%s peer=%s ratio=%s", f.Name, num(f.Bundlectl), peer, ratio)
}

// num prints a value with about four significant digits.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	default:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
}

// median of xs (not modified); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Machine describes where the run happened.
type Machine struct {
	CPU         string
	Cores       int
	MemoryGB    float64
	Kernel      string
	Go          string
	LoadBefore  string // /proc/loadavg at the start
	LoadAfter   string // and at the end
	KubectlPath string
	Kubectl     string // kubectl's client version
	APIServer   string // the peer's version
}

// Report is one run of the benchmark.
type Report struct {
	Date    time.Time
	Machine Machine
	Bundle  BundleInfo
	Figures []Figure
	// Phases are how long each part of the run took, in order.
	Phases []Phase
	// Checks are the sanity checks that the two sides served the same
	// thing (row counts, kubectl's columns, bytes per object).
	Checks []string
}

// BundleInfo is what the generated bundle holds.
type BundleInfo struct {
	Objects       map[string]int
	ResourceBytes int64 // the JSON under cluster-resources, as generated (indented)
	ArchiveBytes  int64
	UpgradedBytes int64
	LargestFile   int64
}

// Phase is one step of the run and its duration.
type Phase struct {
	Name     string
	Duration time.Duration
}

// Lines are the printed figures, one per line.
func (r *Report) Lines() string {
	var b strings.Builder
	for _, f := range r.Figures {
		b.WriteString(f.Line())
		b.WriteByte('\n')
	}
	return b.String()
}

//go:embed notes.md
var notes string

// Markdown is BENCHMARKS.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Benchmarks against the peers\n\n")
	p("Written by `make bench-peers` (package internal/test/peers) on %s. Every figure is\n", r.Date.UTC().Format("2006-01-02 15:04 MST"))
	p("measured on bundlectl and on its peer in the same run, alternately, on the same\n")
	p("objects; the ratio is peer/bundlectl, so above 1 is bundlectl ahead. Values are medians.\n")
	p("After a request of the peer's that took over 50 ms, the next side is measured once the\n")
	p("peer's process has fallen idle (it goes on working after it has answered a LIST).\n")
	p("The floor is the same requests answered by a server that only writes the bytes bundlectl\n")
	p("sent, recorded beforehand, over the same TLS and HTTP/2 stack in a process of its own:\n")
	p("the best any server could do for this client on this machine (the rest is the client's).\n\n")
	p("| Figure | bundlectl | peer | ratio | target | met | server CPU s (bundlectl / peer) | floor |\n")
	p("|---|---:|---:|---:|---|---|---|---:|\n")
	for _, f := range r.Figures {
		peer, ratio := "—", "—"
		if f.Peer != "" {
			peer = num(f.PeerValue) + " (" + f.Peer + ")"
			ratio = strconv.FormatFloat(f.Ratio(), 'f', 2, 64) + "×"
		}
		met := "—"
		if m, ok := f.Met(); ok {
			met = "yes"
			if !m {
				met = "**no**"
			}
		}
		target := f.Target.Text
		if target == "" {
			target = "—"
		}
		what := "`" + f.Name + "`: " + f.What
		if f.Extra != "" {
			what += " (" + f.Extra + ")"
		}
		cpu := "—"
		if f.BundlectlCPU+f.PeerCPU > 0 {
			cpu = num(f.BundlectlCPU) + " / " + num(f.PeerCPU)
		}
		floor := "—"
		if f.Floor > 0 {
			floor = num(f.Floor)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", what, num(f.Bundlectl), peer, ratio, target, met, cpu, floor)
	}
	p("\n## The lines `make bench-peers` printed\n\n```\n%s```\n", r.Lines())
	p("\n## The machine\n\n")
	m := r.Machine
	p("- CPU: %s, %d cores; memory %.1f GB; kernel %s; %s\n", m.CPU, m.Cores, m.MemoryGB, m.Kernel, m.Go)
	p("- Load average (1, 5, 15 min) at the start: %s; at the end: %s. The machine is shared with\n", m.LoadBefore, m.LoadAfter)
	p("  other engineers' tests: a load above the core count means both sides were slowed, which\n")
	p("  the alternation spreads over both, but absolute times are then pessimistic.\n")
	p("- Peer: kube-apiserver %s and etcd of the --local provider (internal/localapiserver), release\n", m.APIServer)
	p("  default feature gates, --service-cluster-ip-range=10.96.0.0/12 (the generated Services'\n")
	p("  addresses); kubectl: %s (%s).\n", m.Kubectl, m.KubectlPath)
	p("\n## The bundle\n\n")
	var kinds []string
	for k := range r.Bundle.Objects {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", r.Bundle.Objects[k], k))
	}
	p("contracttest.Large(): %s; %.1f MB of JSON under cluster-resources (as troubleshoot\n", strings.Join(parts, ", "), mb(r.Bundle.ResourceBytes))
	p("indents it), largest file %.1f MB, archive %.1f MB, upgraded archive %.1f MB.\n", mb(r.Bundle.LargestFile), mb(r.Bundle.ArchiveBytes), mb(r.Bundle.UpgradedBytes))
	if len(r.Checks) > 0 {
		p("\nSame objects on both sides:\n\n")
		for _, c := range r.Checks {
			p("- %s\n", c)
		}
	}
	if len(r.Phases) > 0 {
		p("\nThe run:")
		for i, ph := range r.Phases {
			sep := ","
			if i == 0 {
				sep = ""
			}
			p("%s %s %s", sep, ph.Name, ph.Duration.Round(100*time.Millisecond))
		}
		p(".\n")
	}
	var settles []string
	for _, f := range r.Figures {
		if f.PeerSettle > 0 {
			settles = append(settles, fmt.Sprintf("%s %s", f.Name, f.PeerSettle.Round(100*time.Millisecond)))
		}
	}
	if len(settles) > 0 {
		p("\nWaited for kube-apiserver to fall idle after its requests, in all: %s.\n", strings.Join(settles, ", "))
	}
	p("\n%s", notes)
	return b.String()
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// machine describes this machine.
func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), LoadBefore: loadavg()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				var kb float64
				fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
				m.MemoryGB = kb * 1024 / 1e9
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	return m
}

// loadavg is the first three fields of /proc/loadavg.
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}
