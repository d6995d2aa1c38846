package contracttest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Randomness: every object draws from its own stream, named by what it is,
// so any object can be rebuilt on its own and the output never depends on
// the order things are generated in.

const (
	streamPlan uint64 = iota + 1
	streamNamespace
	streamNode
	streamDeployment
	streamPod
	streamEvent
	streamLog
)

type rnd struct{ *rand.Rand }

func (g *generator) rng(stream uint64, ids ...uint64) rnd {
	h := uint64(g.spec.Seed)*0x9e3779b97f4a7c15 ^ stream*0xc2b2ae3d27d4eb4f
	for _, id := range ids {
		h = (h ^ id) * 0x100000001b3
		h ^= h >> 29
	}
	return rnd{rand.New(rand.NewPCG(h, stream^0xda942042e4dd58b5))}
}

func (r rnd) chance(p float64) bool { return r.Float64() < p }

func (r rnd) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)))
}

// ago is a duration between lo and hi, biased towards lo: ages of things
// in a cluster are roughly log-uniform.
func (r rnd) ago(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	if lo < time.Second {
		lo = time.Second
	}
	f := math.Log(float64(hi) / float64(lo))
	return time.Duration(float64(lo) * math.Exp(r.Float64()*f))
}

func pick[T any](r rnd, xs []T) T { return xs[r.IntN(len(xs))] }

const hexDigits = "0123456789abcdef"

func (r rnd) hex(n int) string {
	b := make([]byte, n)
	for i := 0; i < n; i += 16 {
		v := r.Uint64()
		for j := i; j < n && j < i+16; j++ {
			b[j] = hexDigits[v&15]
			v >>= 4
		}
	}
	return string(b)
}

func (r rnd) uid() types.UID {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], r.Uint64())
	binary.LittleEndian.PutUint64(b[8:], r.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// The alphabet of generated name suffixes (k8s.io/apimachinery/pkg/util/rand).
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func (r rnd) suffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = nameAlphabet[r.IntN(len(nameAlphabet))]
	}
	return string(b)
}

// podSuffix is the 5-character suffix of pod k of a ReplicaSet: a
// bijection of k (mult is prime to 27^5), so names never collide.
func podSuffix(k int, mult, off uint64) string {
	const space = 27 * 27 * 27 * 27 * 27
	v := (uint64(k)*mult + off) % space
	var b [5]byte
	for i := 4; i >= 0; i-- {
		b[i] = nameAlphabet[v%27]
		v /= 27
	}
	return string(b[:])
}

func mt(t time.Time) metav1.Time { return metav1.NewTime(t.UTC().Truncate(time.Second)) }

func mtp(t time.Time) *metav1.Time { m := mt(t); return &m }

func ptr[T any](v T) *T { return &v }

func ipv4(v uint32) string {
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}

// spread splits total into n parts with random weights, each part at least
// min when total allows; the result is deterministic for r.
func spread(r rnd, total, n int, skew float64) []int {
	out := make([]int, n)
	if n == 0 || total == 0 {
		return out
	}
	base := 0
	if total >= n {
		base = 1
	}
	cum := make([]float64, n)
	sum := 0.0
	for i := range out {
		out[i] = base
		sum += math.Exp(r.NormFloat64() * skew)
		cum[i] = sum
	}
	for range total - base*n {
		x := r.Float64() * sum
		out[sort.SearchFloat64s(cum, x)]++
	}
	return out
}
