package peers

import (
	"fmt"
	"time"
)

// alternate measures each side reps times, in an order that rotates so
// that each comes first in turn, and returns each side's samples in the
// order of sides. It also adds up the CPU time each server process used
// meanwhile, and the time it waited for the peer to settle.
//
// After a request of the peer's that took longer than settleAfter, the
// next side is measured only once the peer's process has fallen idle
// (settle): kube-apiserver goes on using the CPU for tens of
// milliseconds after it has answered a LIST of 10,000 pods, on the same
// two cores, and whichever side came next was measured against that.
func (r *runner) alternate(sides []*side, reps int, f func(s *side, i int) (float64, error)) (samples [][]float64, cpu []float64, settled time.Duration, err error) {
	samples, cpu = make([][]float64, len(sides)), make([]float64, len(sides))
	for i := range reps {
		for j := range sides {
			k := (i + j) % len(sides)
			s := sides[k]
			before := cpuSeconds(s.pid)
			v, err := f(s, i)
			if err != nil {
				return nil, nil, 0, err
			}
			cpu[k] += cpuSeconds(s.pid) - before
			samples[k] = append(samples[k], v)
			if s == r.peer && v > settleAfter.Seconds() {
				settled += settle(s.pid)
			}
		}
	}
	return samples, cpu, settled, nil
}

// How settle tells that a process is idle: no CPU tick of it in
// settleWindow, polled every settlePoll; it waits no longer than
// settleMax.
const (
	settleAfter  = 50 * time.Millisecond
	settlePoll   = 20 * time.Millisecond
	settleWindow = 100 * time.Millisecond
	settleMax    = 10 * time.Second
)

// settle waits until the process pid has used no CPU for settleWindow, or
// settleMax has passed, and returns how long it waited beyond the window.
func settle(pid int) time.Duration {
	start := time.Now()
	last, quietSince := cpuSeconds(pid), start
	for time.Since(start) < settleMax {
		time.Sleep(settlePoll)
		now := cpuSeconds(pid)
		if now != last {
			last, quietSince = now, time.Now()
			continue
		}
		if time.Since(quietSince) >= settleWindow {
			break
		}
	}
	return max(0, time.Since(start)-settleWindow)
}

// figure measures bundlectl and its peer, and the floor too when
// withFloor and the run has one.
func (r *runner) figure(name, what string, reps int, target Target, withFloor bool, f func(s *side, i int) (float64, error)) (*Figure, error) {
	sides := []*side{r.served, r.peer}
	if withFloor && r.floor != nil {
		sides = append(sides, r.floor)
	}
	samples, cpu, settled, err := r.alternate(sides, reps, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a, b := samples[0], samples[1]
	fig := Figure{Name: name, What: what, Peer: "kube-apiserver", Bundlectl: median(a), PeerValue: median(b), BundlectlSamples: a, PeerSamples: b, Target: target,
		BundlectlCPU: cpu[0] / float64(reps), PeerCPU: cpu[1] / float64(reps), PeerSettle: settled}
	if len(samples) == 3 {
		fig.Floor, fig.FloorSamples = median(samples[2]), samples[2]
	}
	r.rep.Figures = append(r.rep.Figures, fig)
	rss, _ := procStatus(r.served.pid, "VmRSS")
	r.logf("%s (floor %s; bundlectl serve's RSS now %.0f MB; waited %s for the peer to settle)", fig.Line(), num(fig.Floor), rss, settled.Round(time.Millisecond))
	return &r.rep.Figures[len(r.rep.Figures)-1], nil
}
