package contracttest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// BundleSpec describes a generated legacy support bundle: how many objects
// of each kind, when it was collected, and the seed that makes it
// reproducible. The same spec always gives the same bytes.
type BundleSpec struct {
	Pods, Namespaces, Deployments, Nodes, Events int
	// LogBytesPerPod is the size of each container log collected for an
	// unhealthy pod (troubleshoot collects logs of unhealthy pods only);
	// 0 writes no logs.
	LogBytesPerPod int
	// CollectedAt names the bundle folder and is the mtime of every entry;
	// every timestamp inside the bundle is before it.
	CollectedAt time.Time
	Seed        int64
}

// GeneratedAt is the default collection time of generated bundles.
var GeneratedAt = time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC)

// Large is the benchmark bundle: 10,000 pods over 20 namespaces, 500
// Deployments (each with its ReplicaSet and Service), 50 nodes and 5,000
// events.
func Large() BundleSpec {
	return BundleSpec{Pods: 10000, Namespaces: 20, Deployments: 500, Nodes: 50, Events: 5000,
		LogBytesPerPod: 2048, CollectedAt: GeneratedAt, Seed: 1}
}

// Small is the same cluster shape at 200 pods, for tests.
func Small() BundleSpec {
	return BundleSpec{Pods: 200, Namespaces: 4, Deployments: 16, Nodes: 8, Events: 150,
		LogBytesPerPod: 512, CollectedAt: GeneratedAt, Seed: 1}
}

// BundleStats is what WriteBundle wrote.
type BundleStats struct {
	// Objects counts the objects written per kind (Pod, Deployment, ...).
	Objects map[string]int
	// PodStates counts pods per state as kubectl's STATUS column names it
	// (Running, CrashLoopBackOff, Pending, ContainerCreating,
	// ImagePullBackOff, Completed, Evicted).
	PodStates map[string]int
	// Entries is the number of files in the archive.
	Entries int
	// ResourceBytes is the uncompressed size of the JSON files under
	// cluster-resources/ (lists and discovery; logs excluded).
	ResourceBytes int64
	// PodListBytes is the part of ResourceBytes in pods/<ns>.json.
	PodListBytes int64
	// Logs and LogBytes count the pod log files.
	Logs     int
	LogBytes int64
	// UncompressedBytes is the content of every entry; ArchiveBytes is
	// the .tar.gz as written.
	UncompressedBytes int64
	ArchiveBytes      int64
	// LargestFile is the size of the largest entry.
	LargestFile int64
}

// TroubleshootVersion is the version.yaml of generated bundles: the first
// v0.123 release that writes ReplicaSets to replicasets/ again.
const TroubleshootVersion = "v0.123.16"

// GeneratedKubernetesVersion is the cluster version generated bundles claim.
const GeneratedKubernetesVersion = "v1.35.4"

// BundleRoot is the top folder of a bundle collected at t.
func BundleRoot(t time.Time) string {
	return "support-bundle-" + t.UTC().Format("2006-01-02T15_04_05")
}

// WriteBundleFile writes the bundle of spec to path; on error nothing is left.
func WriteBundleFile(path string, spec BundleSpec) (BundleStats, error) {
	f, err := os.Create(path)
	if err != nil {
		return BundleStats{}, err
	}
	stats, err := WriteBundle(f, spec)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return BundleStats{}, err
	}
	return stats, nil
}

// WriteBundle writes a legacy support bundle as troubleshoot v0.123 lays it
// out: a .tar.gz of typed lists, one file at a time. Memory holds the plan
// of the cluster (a few hundred bytes per Deployment and namespace), the
// logs of one namespace, and at most 64 MB of the file being written: a
// larger file goes through a temporary file, since a tar header needs
// the entry's size first. The bytes depend on the spec only.
func WriteBundle(w io.Writer, spec BundleSpec) (BundleStats, error) {
	if err := spec.check(); err != nil {
		return BundleStats{}, err
	}
	g := newGenerator(spec)
	// Compression runs beside generation: the tar stream goes through a
	// pipe to a goroutine that gzips it.
	cw := &countingWriter{w: w}
	pr, pw := io.Pipe()
	zipped := make(chan error, 1)
	go func() {
		zw, _ := gzip.NewWriterLevel(cw, gzip.DefaultCompression)
		_, err := io.Copy(zw, pr)
		if err == nil {
			err = zw.Close()
		}
		pr.CloseWithError(err)
		zipped <- err
	}()
	bw := bufio.NewWriterSize(pw, 1<<20)
	aw := &archiveWriter{tw: tar.NewWriter(bw), root: g.root, mtime: g.at,
		stats: BundleStats{Objects: map[string]int{}, PodStates: map[string]int{}}}
	err := g.write(aw)
	if err == nil {
		err = aw.tw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	pw.CloseWithError(err)
	if zerr := <-zipped; err == nil {
		err = zerr
	}
	if err != nil {
		return BundleStats{}, err
	}
	aw.stats.ArchiveBytes = cw.n
	return aw.stats, nil
}

func (s BundleSpec) check() error {
	for _, n := range []int{s.Pods, s.Namespaces, s.Deployments, s.Nodes, s.Events, s.LogBytesPerPod} {
		if n < 0 {
			return errors.New("contracttest: negative count in BundleSpec")
		}
	}
	switch {
	case s.CollectedAt.IsZero():
		return errors.New("contracttest: BundleSpec.CollectedAt is not set")
	case s.Namespaces == 0 && (s.Deployments > 0 || s.Events > 0):
		return errors.New("contracttest: Deployments and Events need at least one namespace")
	case s.Pods > 0 && (s.Deployments == 0 || s.Nodes == 0):
		return errors.New("contracttest: pods need at least one Deployment and one node")
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// archiveWriter writes regular files under the bundle root.
type archiveWriter struct {
	tw    *tar.Writer
	root  string
	mtime time.Time
	stats BundleStats
}

// file writes one small entry.
func (a *archiveWriter) file(rel string, body []byte) error {
	sp := spool{}
	if err := sp.Write(body); err != nil {
		return err
	}
	return a.fileFrom(rel, &sp)
}

// fileFrom writes one entry from a spool.
func (a *archiveWriter) fileFrom(rel string, sp *spool) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: a.root + "/" + rel, Size: sp.size, Mode: 0o600, ModTime: a.mtime}
	if err := a.tw.WriteHeader(hdr); err != nil {
		return err
	}
	if err := sp.copyTo(a.tw); err != nil {
		return err
	}
	size := sp.size
	a.stats.Entries++
	a.stats.UncompressedBytes += size
	a.stats.LargestFile = max(a.stats.LargestFile, size)
	switch {
	case strings.HasPrefix(rel, "cluster-resources/pods/logs/"):
		a.stats.Logs++
		a.stats.LogBytes += size
	case strings.HasPrefix(rel, "cluster-resources/"):
		a.stats.ResourceBytes += size
		if strings.HasPrefix(rel, "cluster-resources/pods/") {
			a.stats.PodListBytes += size
		}
	}
	return nil
}

// spoolMemory is how much of one file a spool holds in memory before it
// moves to a temporary file: a tar header needs the size of the entry
// before its content, and a namespace of a huge bundle can hold gigabytes.
var spoolMemory int64 = 64 << 20

// spool collects one entry's content: in memory, then in a temporary file.
type spool struct {
	parts [][]byte
	f     *os.File
	bw    *bufio.Writer
	size  int64
}

func (s *spool) Write(p []byte) error {
	s.size += int64(len(p))
	if s.f == nil && s.size > spoolMemory {
		f, err := os.CreateTemp("", "bundlectl-generate-*")
		if err != nil {
			return err
		}
		s.f, s.bw = f, bufio.NewWriterSize(f, 1<<20)
		for _, q := range s.parts {
			if _, err := s.bw.Write(q); err != nil {
				return err
			}
		}
		s.parts = nil
	}
	if s.f != nil {
		_, err := s.bw.Write(p)
		return err
	}
	s.parts = append(s.parts, p)
	return nil
}

func (s *spool) copyTo(w io.Writer) error {
	if s.f == nil {
		for _, p := range s.parts {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w, s.f)
	if err == nil && n != s.size {
		err = fmt.Errorf("spool %s: read %d of %d bytes", s.f.Name(), n, s.size)
	}
	return err
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

var (
	firstItem = []byte("[\n    ")
	nextItem  = []byte(",\n    ")
	lastItem  = []byte("\n  ]\n}")
	noItems   = []byte("null\n}")
)

// marshalItems marshals n objects on every CPU; the result is in order and
// does not depend on the scheduling.
func marshalItems(n int, obj func(i int) any) ([][]byte, error) {
	out := make([][]byte, n)
	errs := make([]error, n)
	const chunk = 16
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					out[i], errs[i] = json.MarshalIndent(obj(i), "    ", "  ")
				}
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
// The plan of the cluster.

type generator struct {
	spec    BundleSpec
	at      time.Time
	root    string
	listRV  int64
	nss     []*gNamespace
	nodes   []*gNode
	workers []*gNode
	control []*gNode
	deps    []*gDeploy
	// pod placement: pod g (global index) goes to workers[perm(g) % W] in
	// slot perm(g) / W of that node's pod CIDR.
	permMul, permAdd uint64
	nodeBits         int
}

type gNamespace struct {
	idx     int
	name    string
	uid     types.UID
	rv      int64
	created time.Time
	team    string
	deps    []*gDeploy // sorted by name
	pods    int
	events  int
	trouble []podRef // pods in a bad state, which most warnings are about
}

type podRef struct {
	d *gDeploy
	k int
}

type gNode struct {
	idx                 int
	name                string
	uid                 types.UID
	rv                  int64
	created             time.Time
	control             bool
	notReady, cordoned  bool
	zone, instanceID    string
	instanceType        string
	ip                  uint32
	podCIDR             uint32
	cpu, memKi, podsCap int64
}

type gDeploy struct {
	idx                int
	ns                 *gNamespace
	name, comp         string
	uid, rsUID, svcUID types.UID
	hash               string
	rsName             string
	created, rsCreated time.Time
	revision           int
	generation         int64
	rv, rsRV, svcRV    int64
	pods, podStart     int
	active, ready      int
	trouble            int // 0 healthy, 1 flaky, 2 broken
	lang               *langProfile
	side               *sidecarProfile
	image, imageID     string
	sideImageID        string
	port               int32
	cpuReq, memReq     resource.Quantity
	cpuLim, memLim     resource.Quantity
	sa                 string
	clusterIP          string
	svcType            corev1.ServiceType
	nodePort           int32
	lbHost             string
	suffixMul, suffix0 uint64
	restartedAt        string
	managers           string // the field manager that applies the Deployment
	template           corev1.PodTemplateSpec
}

type langProfile struct {
	name      string
	env       corev1.EnvVar
	health    string
	ready     string
	startSecs int32
}

type sidecarProfile struct {
	name, image string
	port        int32
	portName    string
	health      string
	cpu, mem    string
	memLim      string
}

var (
	components = []string{"api", "web", "frontend", "backend", "worker", "gateway", "auth", "cart", "catalog", "checkout",
		"payment", "search", "inventory", "orders", "shipping", "email", "notification", "recommendation", "review", "user",
		"session", "pricing", "ledger", "invoice", "report", "media", "upload", "thumbnail", "scheduler", "webhook",
		"graphql", "admin", "export", "importer", "sync", "audit", "metrics", "config", "feature-flags", "rate-limiter"}
	roles          = []string{"", "-api", "-worker", "-service", "-consumer", "-server", "-proxy", "-cache", "-ui", "-grpc"}
	namespaceNames = []string{"default", "shop", "payments", "checkout", "search", "catalog", "identity", "billing", "orders",
		"inventory", "shipping", "notifications", "analytics", "recommendations", "reviews", "media", "messaging",
		"reporting", "platform", "data-pipeline"}
	teams = []string{"storefront", "payments", "platform", "data", "identity", "fulfilment", "growth"}
	zones = []string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}

	langs = []*langProfile{
		{name: "go", health: "/healthz", ready: "/readyz", startSecs: 2, env: corev1.EnvVar{Name: "GOMEMLIMIT", Value: "400MiB"}},
		{name: "java", health: "/actuator/health/liveness", ready: "/actuator/health/readiness", startSecs: 25, env: corev1.EnvVar{Name: "JAVA_TOOL_OPTIONS", Value: "-XX:MaxRAMPercentage=75"}},
		{name: "node", health: "/health", ready: "/ready", startSecs: 4, env: corev1.EnvVar{Name: "NODE_ENV", Value: "production"}},
		{name: "python", health: "/healthz", ready: "/ready", startSecs: 6, env: corev1.EnvVar{Name: "PYTHONUNBUFFERED", Value: "1"}},
	}
	sidecars = []*sidecarProfile{
		{name: "envoy", image: "docker.io/envoyproxy/envoy:v1.34.1", port: 9901, portName: "envoy-admin", health: "/ready", cpu: "50m", mem: "64Mi", memLim: "256Mi"},
		{name: "fluent-bit", image: "cr.fluentbit.io/fluent/fluent-bit:4.0.7", port: 2020, portName: "fb-metrics", health: "/api/v1/health", cpu: "20m", mem: "32Mi", memLim: "128Mi"},
		{name: "otel-agent", image: "docker.io/otel/opentelemetry-collector-contrib:0.128.0", port: 13133, portName: "otel-health", health: "/", cpu: "50m", mem: "96Mi", memLim: "256Mi"},
		{name: "oauth2-proxy", image: "quay.io/oauth2-proxy/oauth2-proxy:v7.9.0", port: 4180, portName: "oauth2", health: "/ping", cpu: "10m", mem: "32Mi", memLim: "128Mi"},
		{name: "cloud-sql-proxy", image: "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.17.1", port: 9801, portName: "csql-health", health: "/liveness", cpu: "25m", mem: "48Mi", memLim: "192Mi"},
	}
)

func newGenerator(spec BundleSpec) *generator {
	g := &generator{spec: spec, at: spec.CollectedAt.UTC().Truncate(time.Second)}
	g.root = BundleRoot(g.at)
	r := g.rng(streamPlan)
	g.listRV = 40_000_000 + r.Int64N(20_000_000)
	g.planNodes()
	g.planNamespaces()
	g.planDeployments(r)
	g.planPods()
	g.planEvents(r)
	return g
}

// rv is a resourceVersion a little before the list's.
func (g *generator) rv(r rnd, maxBack int64) int64 { return g.listRV - 1 - r.Int64N(maxBack) }

func (g *generator) planNodes() {
	n := g.spec.Nodes
	cps := 0
	switch {
	case n >= 6:
		cps = 3
	case n >= 2:
		cps = 1
	}
	workerNo := 0
	for i := range n {
		r := g.rng(streamNode, uint64(i))
		nd := &gNode{idx: i, uid: r.uid(), rv: g.rv(r, 200_000), zone: zones[i%len(zones)],
			instanceID: "i-0" + r.hex(16), ip: 10<<24 | uint32(1+i/200)<<8 | uint32(10+i%200)}
		nd.ip |= uint32(i%len(zones)) << 12 // subnet per zone: 10.0.{0,16,32}+x.y
		if i < cps || n == 1 {
			nd.control = true
			nd.name = fmt.Sprintf("k8s-cp-%d", i+1)
			nd.created = g.at.Add(-r.between(300*24*time.Hour, 420*24*time.Hour))
			nd.instanceType, nd.cpu, nd.memKi = "m6i.xlarge", 4, 16154628
			g.control = append(g.control, nd)
		} else {
			workerNo++
			nd.name = fmt.Sprintf("k8s-worker-%d", workerNo)
			nd.created = g.at.Add(-r.ago(2*24*time.Hour, 300*24*time.Hour))
			if r.chance(0.5) {
				nd.instanceType, nd.cpu, nd.memKi = "m6i.4xlarge", 16, 65023028
			} else {
				nd.instanceType, nd.cpu, nd.memKi = "r6i.2xlarge", 8, 65023028
			}
		}
		g.nodes = append(g.nodes, nd)
	}
	for _, nd := range g.nodes {
		if !nd.control || n == 1 {
			g.workers = append(g.workers, nd)
		}
	}
	if len(g.workers) == 0 {
		g.workers = g.control
	}
	// A few workers are NotReady and a few cordoned (at least one of each
	// from five workers on).
	r := g.rng(streamPlan, 1)
	if len(g.workers) >= 5 {
		bad := max(1, len(g.workers)/25)
		for _, i := range r.Perm(len(g.workers))[:bad+max(1, len(g.workers)/40)] {
			if bad > 0 {
				g.workers[i].notReady = true
				bad--
			} else {
				g.workers[i].cordoned = true
			}
		}
	}
	// Pod CIDRs sized for the pods each node holds.
	perNode := g.spec.Pods/max(len(g.workers), 1) + 2
	g.nodeBits = 8
	for 1<<g.nodeBits < perNode+4 {
		g.nodeBits++
	}
	for i, nd := range g.nodes {
		nd.podCIDR = 10<<24 | 64<<16 + uint32(i)<<g.nodeBits
		nd.podsCap = 110
		if perNode > 100 {
			nd.podsCap = 250
		}
		if perNode > 240 {
			nd.podsCap = int64(perNode + 10)
		}
	}
	sort.Slice(g.nodes, func(i, j int) bool { return g.nodes[i].name < g.nodes[j].name })
}

func (g *generator) planNamespaces() {
	for i := range g.spec.Namespaces {
		name := fmt.Sprintf("team-%03d", i)
		if i < len(namespaceNames) {
			name = namespaceNames[i]
		}
		nr := g.rng(streamNamespace, uint64(i))
		g.nss = append(g.nss, &gNamespace{idx: i, name: name, uid: nr.uid(), rv: g.rv(nr, 30_000_000),
			created: g.at.Add(-nr.between(60*24*time.Hour, 400*24*time.Hour)), team: pick(nr, teams)})
	}
}

func (g *generator) planDeployments(r rnd) {
	if len(g.nss) == 0 {
		return
	}
	perNS := spread(r, g.spec.Deployments, len(g.nss), 0.6)
	idx := 0
	for ni, ns := range g.nss {
		used := map[string]bool{}
		for j := range perNS[ni] {
			d := &gDeploy{idx: idx, ns: ns}
			idx++
			dr := g.rng(streamDeployment, uint64(d.idx))
			for try := 0; ; try++ {
				comp := pick(dr, components)
				name := comp + pick(dr, roles)
				if try > 20 {
					name = fmt.Sprintf("%s-%d", name, j)
				}
				if !used[name] {
					used[name], d.name, d.comp = true, name, comp
					break
				}
			}
			g.planDeployment(d, dr)
			ns.deps = append(ns.deps, d)
			g.deps = append(g.deps, d)
		}
		sort.Slice(ns.deps, func(a, b int) bool { return ns.deps[a].name < ns.deps[b].name })
	}
	// Two node ports per NodePort or LoadBalancer Service, unique in the
	// cluster's 30000-32767 range; when they run out, Services are ClusterIP.
	ports := 0
	for _, d := range g.deps {
		if d.svcType == corev1.ServiceTypeClusterIP {
			continue
		}
		if ports+2 > 2768 {
			d.svcType, d.lbHost = corev1.ServiceTypeClusterIP, ""
			continue
		}
		d.nodePort = int32(30000 + ports)
		ports += 2
	}
	pods := spread(r, g.spec.Pods, len(g.deps), 0.9)
	start := 0
	for i, d := range g.deps {
		d.pods, d.podStart = pods[i], start
		start += d.pods
		d.ns.pods += d.pods
	}
}

func (g *generator) planDeployment(d *gDeploy, r rnd) {
	ns := d.ns
	d.uid, d.rsUID, d.svcUID = r.uid(), r.uid(), r.uid()
	d.hash = r.suffix(9 + r.IntN(2))
	d.rsName = d.name + "-" + d.hash
	oldest := g.at.Sub(ns.created)
	d.created = g.at.Add(-r.between(2*time.Hour, oldest-time.Hour))
	d.rsCreated = g.at.Add(-r.ago(20*time.Minute, g.at.Sub(d.created)))
	d.revision = 1 + r.IntN(30)
	d.generation = int64(d.revision + r.IntN(4))
	d.rv, d.rsRV, d.svcRV = g.rv(r, 5_000_000), g.rv(r, 5_000_000), g.rv(r, 30_000_000)
	switch x := r.Float64(); {
	case x < 0.80:
		d.trouble = 0
	case x < 0.95:
		d.trouble = 1
	default:
		d.trouble = 2
	}
	d.lang = pick(r, langs)
	d.side = pick(r, sidecars)
	d.image = fmt.Sprintf("ghcr.io/acme-%s/%s:%d.%d.%d", ns.name, d.name, 1+r.IntN(4), r.IntN(30), r.IntN(20))
	d.imageID = strings.SplitN(d.image, ":", 2)[0] + "@sha256:" + r.hex(64)
	d.sideImageID = strings.SplitN(d.side.image, ":", 2)[0] + "@sha256:" + r.hex(64)
	if strings.HasPrefix(d.side.image, "docker.io/") {
		d.sideImageID = "docker.io/" + strings.TrimPrefix(d.sideImageID, "docker.io/")
	}
	d.port = pick(r, []int32{8080, 8080, 8000, 3000, 9000})
	cpu := pick(r, []string{"50m", "100m", "100m", "200m", "250m", "500m"})
	mem := pick(r, []string{"128Mi", "256Mi", "256Mi", "512Mi", "1Gi"})
	d.cpuReq, d.memReq = resource.MustParse(cpu), resource.MustParse(mem)
	d.memLim = d.memReq.DeepCopy()
	d.memLim.Add(d.memReq)
	if r.chance(0.3) {
		d.cpuLim = resource.MustParse(pick(r, []string{"500m", "1", "2"}))
	}
	d.sa = "default"
	if r.chance(0.7) {
		d.sa = d.name
	}
	if r.chance(0.35) {
		d.restartedAt = d.rsCreated.UTC().Format(time.RFC3339)
	}
	d.managers = pick(r, []string{"helm", "helm", "argocd-controller", "kubectl-client-side-apply"})
	d.suffixMul = 1 + 2*uint64(r.IntN(7_000_000)) // odd
	for d.suffixMul%3 == 0 {
		d.suffixMul += 2
	}
	d.suffix0 = r.Uint64N(27 * 27 * 27 * 27 * 27)
	// Service: ClusterIPs are a bijection of the Deployment's index in
	// 10.96.0.0/12; node ports are allocated in planDeployments.
	d.clusterIP = ipv4(10<<24 | 96<<16 + uint32(10+(uint64(d.idx)*7919)%(1<<20-20)))
	d.svcType = corev1.ServiceTypeClusterIP
	switch x := r.Float64(); {
	case x < 0.05:
		d.svcType = corev1.ServiceTypeLoadBalancer
		d.lbHost = fmt.Sprintf("a%s-%d.eu-west-1.elb.amazonaws.com", r.hex(32), 100000000+r.IntN(900000000))
	case x < 0.08:
		d.svcType = corev1.ServiceTypeNodePort
	}
	d.template = g.podTemplate(d)
}

// ---------------------------------------------------------------------------
// Pods.

type podState int

const (
	stRunning podState = iota
	stNotReady
	stCrashLoop
	stUnschedulable
	stCreating
	stImagePull
	stSucceeded
	stEvicted
)

var stateNames = [...]string{"Running", "Running", "CrashLoopBackOff", "Pending", "ContainerCreating", "ImagePullBackOff", "Completed", "Evicted"}

func (s podState) active() bool    { return s < stSucceeded }
func (s podState) scheduled() bool { return s != stUnschedulable }
func (s podState) troubled() bool  { return s != stRunning && s != stSucceeded }

// gPod is what is known of a pod before its object is built.
type gPod struct {
	d                *gDeploy
	k, global        int
	name             string
	uid              types.UID
	state            podState
	node             *gNode
	ip               string
	created, started time.Time // started: the sandbox is ready
	ready            time.Time // containers ready (or last transition)
	restarts         int32
	sideRestarts     int32
	lastExit         int32
	lastReason       string
	lastStart        time.Time
	lastFinish       time.Time
	r                rnd
}

func (g *generator) pod(d *gDeploy, k int) *gPod {
	r := g.rng(streamPod, uint64(d.idx), uint64(k))
	p := &gPod{d: d, k: k, global: d.podStart + k, r: r}
	p.name = d.rsName + "-" + podSuffix(k, d.suffixMul, d.suffix0)
	p.uid = r.uid()
	crash, notReady := []float64{0.008, 0.12, 0.7}[d.trouble], []float64{0.004, 0.08, 0.05}[d.trouble]
	switch x := r.Float64(); {
	case x < crash:
		p.state = stCrashLoop
	case x < crash+notReady:
		p.state = stNotReady
	case x < crash+notReady+0.012:
		p.state = stUnschedulable
	case x < crash+notReady+0.020:
		p.state = stCreating
	case x < crash+notReady+0.032:
		p.state = stImagePull
	case x < crash+notReady+0.045:
		p.state = stSucceeded
	case x < crash+notReady+0.065:
		p.state = stEvicted
	default:
		p.state = stRunning
	}
	if p.state.scheduled() {
		pos := (uint64(p.global)*g.permMul + g.permAdd) % uint64(max(g.spec.Pods, 1))
		W := uint64(len(g.workers))
		p.node = g.workers[pos%W]
		p.ip = ipv4(p.node.podCIDR + 2 + uint32(pos/W))
	}
	// Most pods came up with their ReplicaSet's rollout; some replaced
	// others later.
	span := g.at.Sub(d.rsCreated)
	switch {
	case p.state == stUnschedulable || p.state == stCreating || p.state == stImagePull:
		p.created = g.at.Add(-r.ago(30*time.Second, max(min(span, 3*time.Hour), time.Minute)))
	case r.chance(0.8):
		p.created = d.rsCreated.Add(r.between(0, min(span/4, 10*time.Minute)))
	default:
		p.created = g.at.Add(-r.ago(time.Minute, span))
	}
	if !p.created.Before(g.at) {
		p.created = g.at.Add(-time.Second)
	}
	p.started = p.created.Add(r.between(1*time.Second, 3*time.Second))
	p.ready = p.started.Add(time.Duration(d.lang.startSecs)*time.Second + r.between(time.Second, 8*time.Second))
	if p.ready.After(g.at) {
		p.ready = g.at.Add(-time.Second)
	}
	switch p.state {
	case stRunning, stNotReady:
		if age := g.at.Sub(p.ready); age > 5*time.Minute && r.chance(0.12) {
			p.restarts = int32(1 + r.IntN(4))
			p.lastReason, p.lastExit = pick(r, []string{"Error", "Error", "OOMKilled", "Completed"}), 1
			switch p.lastReason {
			case "OOMKilled":
				p.lastExit = 137
			case "Completed":
				p.lastExit = 0
			}
			p.lastFinish = p.ready.Add(r.between(age/3, age*3/4))
			p.lastStart = p.lastFinish.Add(-r.between(time.Minute, max(time.Minute*2, p.lastFinish.Sub(p.ready))))
			if p.lastStart.Before(p.started) {
				p.lastStart = p.started.Add(time.Second)
			}
			p.ready = p.lastFinish.Add(r.between(11*time.Second, 40*time.Second))
			if p.ready.After(g.at) {
				p.ready = g.at.Add(-time.Second)
			}
		}
		if p.state == stNotReady {
			p.ready = g.at.Add(-r.ago(30*time.Second, max(g.at.Sub(p.ready), 31*time.Second)))
		}
	case stCrashLoop:
		// Back-off has reached 5 minutes: the last run ended up to 5
		// minutes ago.
		life := g.at.Sub(p.started)
		p.restarts = int32(min(int64(5+life/(5*time.Minute+30*time.Second)), 2000))
		p.lastReason, p.lastExit = pick(r, []string{"Error", "Error", "Error", "OOMKilled"}), pick(r, []int32{1, 1, 2, 255})
		if p.lastReason == "OOMKilled" {
			p.lastExit = 137
		}
		p.lastFinish = g.at.Add(-r.between(5*time.Second, 5*time.Minute))
		p.lastStart = p.lastFinish.Add(-r.between(2*time.Second, 40*time.Second))
		if p.lastStart.Before(p.started) {
			p.lastStart = p.started
		}
		p.ready = p.lastStart.Add(-time.Second)
		if p.ready.Before(p.started) {
			p.ready = p.started
		}
	case stSucceeded, stEvicted:
		p.lastFinish = p.ready.Add(r.between(time.Minute, max(g.at.Sub(p.ready)/2, 2*time.Minute)))
		if !p.lastFinish.Before(g.at) {
			p.lastFinish = g.at.Add(-time.Second)
		}
	}
	if r.chance(0.03) && p.state.scheduled() {
		p.sideRestarts = 1
	}
	return p
}

func (g *generator) planPods() {
	n := uint64(max(g.spec.Pods, 1))
	r := g.rng(streamPlan, 2)
	g.permMul = n/2 + 1 + r.Uint64N(n/2+1)
	for gcd(g.permMul, n) != 1 {
		g.permMul++
	}
	g.permAdd = r.Uint64N(n)
	for _, d := range g.deps {
		for k := range d.pods {
			p := g.pod(d, k)
			if p.state.active() {
				d.active++
				if p.state == stRunning {
					d.ready++
				}
			}
			if p.state.troubled() {
				d.ns.trouble = append(d.ns.trouble, podRef{d, k})
			}
		}
	}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (g *generator) planEvents(r rnd) {
	if len(g.nss) == 0 {
		return
	}
	weights := make([]int, len(g.nss))
	for i, ns := range g.nss {
		weights[i] = ns.pods + len(ns.deps)
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		ev := spread(r, g.spec.Events, len(g.nss), 0)
		for i, ns := range g.nss {
			ns.events = ev[i]
		}
		return
	}
	// Proportional shares, the remainder to the first namespaces.
	left := g.spec.Events
	for i, ns := range g.nss {
		ns.events = g.spec.Events * weights[i] / total
		left -= ns.events
	}
	for i := 0; left > 0; i = (i + 1) % len(g.nss) {
		if weights[i] > 0 {
			g.nss[i].events++
			left--
		}
	}
}

var (
	projectedMode = ptr(int32(420))
	tokenSeconds  = ptr(int64(3607))
	gracePeriod   = ptr(int64(30))

	tolerations = []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
)

// podTemplate is the Deployment's pod template as the apiserver stores it
// (defaults applied; no admission-added fields).
func (g *generator) podTemplate(d *gDeploy) corev1.PodTemplateSpec {
	labels := map[string]string{"app": d.name}
	annotations := map[string]string{"kubectl.kubernetes.io/default-container": d.comp}
	if d.restartedAt != "" {
		annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": d.restartedAt}
	}
	env := []corev1.EnvVar{
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
		{Name: "LOG_LEVEL", Value: "info"},
		d.lang.env,
	}
	limits := corev1.ResourceList{corev1.ResourceMemory: d.memLim}
	if !d.cpuLim.IsZero() {
		limits[corev1.ResourceCPU] = d.cpuLim
	}
	app := corev1.Container{
		Name:      d.comp,
		Image:     d.image,
		Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: d.port, Protocol: corev1.ProtocolTCP}},
		Env:       env,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: d.cpuReq, corev1.ResourceMemory: d.memReq}, Limits: limits},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: d.lang.health, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: d.lang.startSecs * 5, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: d.lang.ready, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			TimeoutSeconds: 1, PeriodSeconds: 5, SuccessThreshold: 1, FailureThreshold: 3},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
	}
	side := corev1.Container{
		Name:  d.side.name,
		Image: d.side.image,
		Ports: []corev1.ContainerPort{{Name: d.side.portName, ContainerPort: d.side.port, Protocol: corev1.ProtocolTCP}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(d.side.port)}},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(d.side.cpu), corev1.ResourceMemory: resource.MustParse(d.side.mem)},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(d.side.memLim)}},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
		Spec: corev1.PodSpec{
			Containers:                    []corev1.Container{app, side},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: gracePeriod,
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            d.sa,
			DeprecatedServiceAccount:      d.sa,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

// podControllerFields is what kube-controller-manager owns of the pods it
// creates, at the depth the example bundle shows.
var podControllerFields = []byte(`{"f:metadata":{"f:annotations":{},"f:generateName":{},"f:labels":{},"f:ownerReferences":{}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}`)

func kubeletFields(p *gPod) []byte {
	extra := ""
	if p.state == stEvicted {
		extra = `"f:message":{},"f:reason":{},`
	}
	ip := ""
	if p.ip != "" && p.state != stCreating {
		ip = `"f:podIP":{},"f:podIPs":{},`
	}
	return fmt.Appendf(nil, `{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},%s"f:observedGeneration":{},"f:phase":{},%s"f:startTime":{}}}`, extra, ip)
}

var schedulerFields = []byte(`{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)

func (g *generator) buildPod(p *gPod) *corev1.Pod {
	d, r := p.d, p.r
	tmpl := &d.template
	labels := make(map[string]string, len(tmpl.Labels)+1)
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	labels["pod-template-hash"] = d.hash
	tokenVolume := "kube-api-access-" + r.suffix(5)
	tokenMount := corev1.VolumeMount{Name: tokenVolume, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}
	containers := make([]corev1.Container, len(tmpl.Spec.Containers))
	for i, c := range tmpl.Spec.Containers {
		c.VolumeMounts = append(append([]corev1.VolumeMount(nil), c.VolumeMounts...), tokenMount)
		containers[i] = c
	}
	volumes := append(append([]corev1.Volume(nil), tmpl.Spec.Volumes...), corev1.Volume{Name: tokenVolume, VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{DefaultMode: projectedMode, Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: tokenSeconds, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}})
	spec := tmpl.Spec
	spec.Containers, spec.Volumes = containers, volumes
	spec.Tolerations = tolerations
	spec.Priority = ptr(int32(0))
	spec.EnableServiceLinks = ptr(true)
	spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
	if p.node != nil {
		spec.NodeName = p.node.name
	}
	statusTime := p.ready
	if p.lastFinish.After(statusTime) {
		statusTime = p.lastFinish
	}
	managed := []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: mtp(p.created), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: podControllerFields}}}
	if p.state == stUnschedulable {
		managed = append(managed, metav1.ManagedFieldsEntry{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: mtp(p.created), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: schedulerFields}, Subresource: "status"})
	} else {
		managed = append(managed, metav1.ManagedFieldsEntry{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: mtp(statusTime), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: kubeletFields(p)}, Subresource: "status"})
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: p.name, GenerateName: d.rsName + "-", Namespace: d.ns.name, UID: p.uid,
			ResourceVersion: strconv.FormatInt(g.rv(r, 3_000_000), 10), Generation: 1, CreationTimestamp: mt(p.created),
			Labels: labels, Annotations: tmpl.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.rsName, UID: d.rsUID,
				Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: managed,
		},
		Spec:   spec,
		Status: g.podStatus(p),
	}
	return pod
}

func cond(t corev1.PodConditionType, ok bool, at time.Time, reason, msg string) corev1.PodCondition {
	s := corev1.ConditionTrue
	if !ok {
		s = corev1.ConditionFalse
	}
	return corev1.PodCondition{Type: t, ObservedGeneration: 1, Status: s, LastTransitionTime: mt(at), Reason: reason, Message: msg}
}

func (g *generator) podStatus(p *gPod) corev1.PodStatus {
	d, r := p.d, p.r
	st := corev1.PodStatus{ObservedGeneration: 1, Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable}
	if p.state == stUnschedulable {
		st.Phase = corev1.PodPending
		msg := fmt.Sprintf("0/%d nodes are available: ", len(g.nodes))
		if n := len(g.nodes) - len(g.workers); n > 0 {
			msg += fmt.Sprintf("%d node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, ", n)
		}
		msg += fmt.Sprintf("%d Insufficient %s. preemption: 0/%d nodes are available: ", len(g.workers), pick(r, []string{"cpu", "memory"}), len(g.nodes))
		if n := len(g.nodes) - len(g.workers); n > 0 {
			msg += fmt.Sprintf("%d Preemption is not helpful for scheduling, ", n)
		}
		msg += fmt.Sprintf("%d No preemption victims found for incoming pod.", len(g.workers))
		st.Conditions = []corev1.PodCondition{cond(corev1.PodScheduled, false, p.created, "Unschedulable", msg)}
		return st
	}
	names := []string{d.template.Spec.Containers[0].Name, d.side.name}
	notReady := []string{}
	appReady, sideReady := true, true
	switch p.state {
	case stNotReady, stCrashLoop, stCreating, stImagePull:
		appReady = false
	case stSucceeded, stEvicted:
		appReady, sideReady = false, false
	}
	if p.state == stCreating || p.state == stImagePull {
		sideReady = p.state == stImagePull
	}
	if !appReady {
		notReady = append(notReady, names[0])
	}
	if !sideReady {
		notReady = append(notReady, names[1])
	}
	sandboxUp := p.state != stCreating
	initialized := p.started
	st.Conditions = []corev1.PodCondition{
		cond(corev1.PodReadyToStartContainers, sandboxUp, p.started.Add(2*time.Second), "", ""),
		cond(corev1.PodInitialized, true, initialized, "", ""),
	}
	readyMsg := ""
	reason := ""
	if len(notReady) > 0 {
		reason = "ContainersNotReady"
		readyMsg = "containers with unready status: [" + strings.Join(notReady, " ") + "]"
	}
	readyAt := p.ready
	switch p.state {
	case stSucceeded:
		reason, readyMsg = "PodCompleted", ""
		readyAt = p.lastFinish
	case stEvicted:
		reason, readyMsg = "PodFailed", ""
		readyAt = p.lastFinish
	case stCreating, stImagePull:
		readyAt = p.created
	}
	st.Conditions = append(st.Conditions,
		cond(corev1.PodReady, len(notReady) == 0, readyAt, reason, readyMsg),
		cond(corev1.ContainersReady, len(notReady) == 0, readyAt, reason, readyMsg),
		cond(corev1.PodScheduled, true, p.created, "", ""))
	st.HostIP = ipv4(p.node.ip)
	st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
	if sandboxUp {
		st.PodIP = p.ip
		st.PodIPs = []corev1.PodIP{{IP: p.ip}}
	}
	st.StartTime = mtp(p.created)
	if d.cpuLim.Equal(d.cpuReq) && d.memLim.Equal(d.memReq) {
		st.QOSClass = corev1.PodQOSGuaranteed
	}
	cid := func() string { return "containerd://" + r.hex(64) }
	app := corev1.ContainerStatus{Name: names[0], Ready: appReady, RestartCount: p.restarts, Image: d.image, ImageID: d.imageID}
	side := corev1.ContainerStatus{Name: names[1], Ready: sideReady, RestartCount: p.sideRestarts, Image: d.side.image, ImageID: d.sideImageID}
	running := func(cs *corev1.ContainerStatus, at time.Time) {
		cs.ContainerID = cid()
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: mt(at)}
		cs.Started = ptr(true)
	}
	switch p.state {
	case stRunning, stNotReady:
		if p.restarts > 0 {
			running(&app, p.lastFinish.Add(10*time.Second))
			app.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: p.lastExit, Reason: p.lastReason,
				StartedAt: mt(p.lastStart), FinishedAt: mt(p.lastFinish), ContainerID: cid()}
		} else {
			running(&app, p.started.Add(time.Second))
		}
		running(&side, p.started.Add(2*time.Second))
	case stCrashLoop:
		last := cid()
		app.ContainerID = last
		app.Started = ptr(false)
		app.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off 5m0s restarting failed container=%s pod=%s_%s(%s)", names[0], p.name, d.ns.name, p.uid)}
		app.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: p.lastExit, Reason: p.lastReason,
			StartedAt: mt(p.lastStart), FinishedAt: mt(p.lastFinish), ContainerID: last}
		running(&side, p.started.Add(2*time.Second))
	case stCreating:
		app.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		side.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
		app.Started, side.Started = ptr(false), ptr(false)
		app.ImageID, side.ImageID = "", ""
	case stImagePull:
		app.ImageID = ""
		app.Started = ptr(false)
		app.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff",
			Message: fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", d.image, pullError(d.image))}
		running(&side, p.started.Add(2*time.Second))
	case stSucceeded, stEvicted:
		code, reason := int32(0), "Completed"
		if p.state == stEvicted {
			code, reason = 137, "ContainerStatusUnknown"
			st.Phase = corev1.PodFailed
			st.Reason = "Evicted"
			// String caches the text in the Quantity: it is called on a
			// copy, since the pods of a Deployment are built in parallel.
			memReq := d.memReq
			st.Message = fmt.Sprintf("The node was low on resource: memory. Threshold quantity: 100Mi, available: %dKi. Container %s was using %dKi, request is %s, has larger consumption of memory. ",
				40000+r.IntN(60000), names[0], d.memLim.Value()/1024+int64(r.IntN(300000)), memReq.String())
		} else {
			st.Phase = corev1.PodSucceeded
		}
		for _, cs := range []*corev1.ContainerStatus{&app, &side} {
			cs.ContainerID = cid()
			cs.Started = ptr(false)
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
				StartedAt: mt(p.started.Add(time.Second)), FinishedAt: mt(p.lastFinish), ContainerID: cs.ContainerID}
		}
		st.Conditions[0] = cond(corev1.PodReadyToStartContainers, false, p.lastFinish, "", "")
	}
	if p.sideRestarts > 0 && side.State.Running != nil {
		at := side.State.Running.StartedAt.Time
		side.State.Running.StartedAt = mt(at.Add(g.at.Sub(at) / 2))
		side.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled",
			StartedAt: mt(at), FinishedAt: mt(at.Add(g.at.Sub(at)/2 - 5*time.Second)), ContainerID: cid()}
	}
	st.ContainerStatuses = []corev1.ContainerStatus{app, side}
	return st
}

// pullError is what containerd says when the registry does not answer.
func pullError(image string) string {
	ref, tag, _ := strings.Cut(image, ":")
	host, repo, _ := strings.Cut(ref, "/")
	return fmt.Sprintf("rpc error: code = DeadlineExceeded desc = failed to pull and unpack image %q: failed to resolve reference %q: failed to do request: Head \"https://%s/v2/%s/manifests/%s\": dial tcp 140.82.121.34:443: i/o timeout",
		image, image, host, repo, tag)
}

func (g *generator) podLogs(p *gPod) map[string][]byte {
	if g.spec.LogBytesPerPod == 0 {
		return nil
	}
	app := p.d.template.Spec.Containers[0].Name
	switch p.state {
	case stCrashLoop:
		return map[string][]byte{
			app + ".log":           g.logText(p, 0, p.lastStart, p.lastFinish, true),
			app + "-previous.log":  g.logText(p, 1, p.lastStart.Add(-6*time.Minute), p.lastStart.Add(-5*time.Minute), true),
			p.d.side.name + ".log": g.logText(p, 2, p.started, g.at, false),
		}
	case stNotReady:
		return map[string][]byte{
			app + ".log":           g.logText(p, 0, p.ready, g.at, false),
			p.d.side.name + ".log": g.logText(p, 2, p.started, g.at, false),
		}
	}
	return nil
}

var logPaths = []string{"/api/v1/orders", "/api/v1/items", "/api/v1/cart", "/healthz", "/readyz", "/metrics", "/api/v1/users/me", "/graphql"}

func (g *generator) logText(p *gPod, n uint64, from, to time.Time, crash bool) []byte {
	r := g.rng(streamLog, uint64(p.d.idx), uint64(p.k), n)
	limit := g.spec.LogBytesPerPod
	var b bytes.Buffer
	var tail []string
	if crash {
		tail = []string{
			"ERROR failed to connect to database: dial tcp 10.96.41.7:5432: connect: connection refused",
			"ERROR giving up after 5 attempts",
			"FATAL shutting down: startup check failed",
		}
	}
	tailLen := 0
	for _, l := range tail {
		tailLen += 31 + len(l)
	}
	span := to.Sub(from)
	if span <= 0 {
		span = time.Second
	}
	t := from
	for i := 0; ; i++ {
		t = t.Add(time.Duration(r.Int64N(int64(span)/40 + 1)))
		if t.After(to) {
			t = to
		}
		var line string
		switch x := r.IntN(10); {
		case x < 7:
			line = fmt.Sprintf("%s INFO  http request method=GET path=%s status=%d duration=%dms request_id=%s\n",
				t.UTC().Format("2006-01-02T15:04:05.000000Z"), pick(r, logPaths), pick(r, []int{200, 200, 200, 204, 304, 404, 503}), 1+r.IntN(400), r.hex(16))
		case x < 9:
			line = fmt.Sprintf("%s WARN  slow upstream call upstream=%s.%s.svc duration=%dms\n",
				t.UTC().Format("2006-01-02T15:04:05.000000Z"), pick(r, components), p.d.ns.name, 500+r.IntN(4000))
		default:
			line = fmt.Sprintf("%s INFO  cache refreshed entries=%d\n", t.UTC().Format("2006-01-02T15:04:05.000000Z"), r.IntN(100000))
		}
		if b.Len()+len(line)+tailLen > limit {
			break
		}
		b.WriteString(line)
	}
	for _, l := range tail {
		line := to.UTC().Format("2006-01-02T15:04:05.000000Z") + " " + l + "\n"
		if b.Len()+len(line) > limit {
			break
		}
		b.WriteString(line)
	}
	return b.Bytes()
}

// ---------------------------------------------------------------------------
// Writing.

func (g *generator) write(a *archiveWriter) error {
	if err := a.file("version.yaml", []byte("apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionNumber: "+TroubleshootVersion+"\n")); err != nil {
		return err
	}
	cv, err := json.MarshalIndent(g.clusterVersion(), "", "  ")
	if err != nil {
		return err
	}
	if err := a.file("cluster-info/cluster_version.json", cv); err != nil {
		return err
	}
	for _, f := range []struct{ name, body string }{{"groups.json", legacyGroupsJSON}, {"resources.json", legacyResourcesJSON}} {
		data, err := indentJSON(f.body)
		if err != nil {
			return err
		}
		if err := a.file("cluster-resources/"+f.name, data); err != nil {
			return err
		}
	}
	nss := g.sortedNamespaces()
	if err := g.writeList(a, "namespaces.json", "Namespace", "v1", len(nss), func(i int) any { return g.namespace(nss[i]) }); err != nil {
		return err
	}
	if err := g.writeList(a, "nodes.json", "Node", "v1", len(g.nodes), func(i int) any { return g.node(g.nodes[i]) }); err != nil {
		return err
	}
	for _, ns := range nss {
		if err := g.writePods(a, ns); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		if err := g.writeList(a, "deployments/"+ns.name+".json", "Deployment", "apps/v1", len(ns.deps), func(i int) any { return g.deployment(ns.deps[i]) }); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		if err := g.writeList(a, "replicasets/"+ns.name+".json", "ReplicaSet", "apps/v1", len(ns.deps), func(i int) any { return g.replicaSet(ns.deps[i]) }); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		if err := g.writeList(a, "services/"+ns.name+".json", "Service", "v1", len(ns.deps), func(i int) any { return g.service(ns.deps[i]) }); err != nil {
			return err
		}
	}
	for _, ns := range nss {
		events := g.events(ns)
		if err := g.writeList(a, "events/"+ns.name+".json", "Event", "v1", len(events), func(i int) any { return events[i] }); err != nil {
			return err
		}
	}
	return nil
}

// writeList writes cluster-resources/<rel>: the typed list of n objects.
// It is laid out exactly as troubleshoot's json.MarshalIndent(list, "", "  ")
// does, from items marshalled with json.MarshalIndent(item, "    ", "  ")
// a batch at a time; an empty list has "items": null.
func (g *generator) writeList(a *archiveWriter, rel, kind, apiVersion string, n int, obj func(i int) any) error {
	var sp spool
	defer sp.close()
	err := sp.Write(fmt.Appendf(nil, "{\n  \"kind\": %q,\n  \"apiVersion\": %q,\n  \"metadata\": {\n    \"resourceVersion\": %q\n  },\n  \"items\": ",
		kind+"List", apiVersion, strconv.FormatInt(g.listRV, 10)))
	const batch = 2048
	for start := 0; start < n && err == nil; start += batch {
		var items [][]byte
		items, err = marshalItems(min(batch, n-start), func(i int) any { return obj(start + i) })
		for i := 0; i < len(items) && err == nil; i++ {
			sep := nextItem
			if start+i == 0 {
				sep = firstItem
			}
			if err = sp.Write(sep); err == nil {
				err = sp.Write(items[i])
			}
		}
	}
	if err == nil {
		if n == 0 {
			err = sp.Write(noItems)
		} else {
			err = sp.Write(lastItem)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	a.stats.Objects[kind] += n
	return a.fileFrom("cluster-resources/"+rel, &sp)
}

func (g *generator) sortedNamespaces() []*gNamespace {
	out := append([]*gNamespace(nil), g.nss...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writePods writes pods/<ns>.json in name order, as the apiserver lists
// them, then the logs of its unhealthy pods.
func (g *generator) writePods(a *archiveWriter, ns *gNamespace) error {
	type key struct {
		name string
		d    *gDeploy
		k    int
	}
	keys := make([]key, 0, ns.pods)
	for _, d := range ns.deps {
		for k := range d.pods {
			keys = append(keys, key{d.rsName + "-" + podSuffix(k, d.suffixMul, d.suffix0), d, k})
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	states := make([]podState, len(keys))
	logs := make([]map[string][]byte, len(keys))
	err := g.writeList(a, "pods/"+ns.name+".json", "Pod", "v1", len(keys), func(i int) any {
		p := g.pod(keys[i].d, keys[i].k)
		states[i], logs[i] = p.state, g.podLogs(p)
		return g.buildPod(p)
	})
	if err != nil {
		return err
	}
	for i, k := range keys {
		a.stats.PodStates[stateNames[states[i]]]++
		names := make([]string, 0, len(logs[i]))
		for n := range logs[i] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if err := a.file("cluster-resources/pods/logs/"+ns.name+"/"+k.name+"/"+n, logs[i][n]); err != nil {
				return err
			}
		}
	}
	return nil
}

func indentJSON(compact string) ([]byte, error) {
	var c, out bytes.Buffer
	if err := json.Compact(&c, []byte(compact)); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, c.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (g *generator) clusterVersion() any {
	type info struct {
		Major                 string `json:"major"`
		Minor                 string `json:"minor"`
		EmulationMajor        string `json:"emulationMajor"`
		EmulationMinor        string `json:"emulationMinor"`
		MinCompatibilityMajor string `json:"minCompatibilityMajor"`
		MinCompatibilityMinor string `json:"minCompatibilityMinor"`
		GitVersion            string `json:"gitVersion"`
		GitCommit             string `json:"gitCommit"`
		GitTreeState          string `json:"gitTreeState"`
		BuildDate             string `json:"buildDate"`
		GoVersion             string `json:"goVersion"`
		Compiler              string `json:"compiler"`
		Platform              string `json:"platform"`
	}
	return struct {
		Info   info   `json:"info"`
		String string `json:"string"`
	}{info{"1", "35", "1", "35", "1", "34", GeneratedKubernetesVersion, "9a1f5e3c2b7d4068e1f0c3a5b8d2e7f4a6c9b1d3", "clean",
		"2025-11-11T18:42:07Z", "go1.25.3", "gc", "linux/amd64"}, GeneratedKubernetesVersion}
}

func (g *generator) namespace(ns *gNamespace) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: ns.name, UID: ns.uid, ResourceVersion: strconv.FormatInt(ns.rv, 10), CreationTimestamp: mt(ns.created),
			Labels: map[string]string{"kubernetes.io/metadata.name": ns.name, "team": ns.team},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-create", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time: mtp(ns.created), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{},"f:team":{}}}}`)}}}},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}

var nodeImages = []corev1.ContainerImage{
	{Names: []string{"registry.k8s.io/kube-proxy@sha256:838e4061b8dba100d6f1efb92adc7a5f6c4276867fef200783c7b272f31212aa", "registry.k8s.io/kube-proxy:v1.35.4"}, SizeBytes: 66979799},
	{Names: []string{"docker.io/calico/node@sha256:2d4e4b1d5e9b3c5a3f1f0f8c0a6e3d1b9e2c7f4a5d8b6c3e1f0a9d8c7b6a5f4e", "docker.io/calico/node:v3.30.2"}, SizeBytes: 156829736},
	{Names: []string{"registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a", "registry.k8s.io/pause:3.10.1"}, SizeBytes: 320448},
}

func (g *generator) node(nd *gNode) *corev1.Node {
	r := g.rng(streamNode, uint64(nd.idx), 1)
	region := "eu-west-1"
	labels := map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": nd.instanceType, "beta.kubernetes.io/os": "linux",
		"failure-domain.beta.kubernetes.io/region": region, "failure-domain.beta.kubernetes.io/zone": nd.zone,
		"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": nd.name, "kubernetes.io/os": "linux",
		"node.kubernetes.io/instance-type": nd.instanceType, "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": nd.zone,
	}
	var taints []corev1.Taint
	if nd.control {
		labels["node-role.kubernetes.io/control-plane"] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		if len(g.nodes) > 1 {
			taints = append(taints, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})
		}
	} else {
		labels["node-role.kubernetes.io/worker"] = ""
		labels["node.example.com/pool"] = strings.SplitN(nd.instanceType, ".", 2)[0]
	}
	heartbeat := g.at.Add(-r.between(time.Second, 40*time.Second))
	ready := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	booted := g.at.Add(-r.ago(time.Hour, g.at.Sub(nd.created)))
	for i := range ready {
		ready[i].LastHeartbeatTime = mt(heartbeat)
		ready[i].LastTransitionTime = mt(booted)
	}
	if nd.notReady {
		lost := g.at.Add(-r.ago(2*time.Minute, 6*time.Hour))
		for i := range ready {
			ready[i].Status = corev1.ConditionUnknown
			ready[i].Reason = "NodeStatusUnknown"
			ready[i].Message = "Kubelet stopped posting node status."
			ready[i].LastHeartbeatTime = mt(lost.Add(-40 * time.Second))
			ready[i].LastTransitionTime = mt(lost)
		}
		taints = append(taints,
			corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoSchedule, TimeAdded: mtp(lost)},
			corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: mtp(lost.Add(5 * time.Second))})
	}
	if nd.cordoned {
		taints = append(taints, corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule, TimeAdded: mtp(g.at.Add(-r.ago(time.Hour, 48*time.Hour)))})
	}
	cidr := fmt.Sprintf("%s/%d", ipv4(nd.podCIDR), 32-g.nodeBits)
	internalIP := ipv4(nd.ip)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(nd.cpu, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("101430960Ki"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		corev1.ResourceMemory:           *resource.NewQuantity(nd.memKi*1024, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(nd.podsCap, resource.DecimalSI),
	}
	allocatable := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(nd.cpu, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("93478772582"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		corev1.ResourceMemory:           *resource.NewQuantity((nd.memKi-102400)*1024, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(nd.podsCap, resource.DecimalSI),
	}
	images := append([]corev1.ContainerImage(nil), nodeImages...)
	for i := 0; i < 4 && len(g.deps) > 0; i++ {
		d := g.deps[r.IntN(len(g.deps))]
		images = append(images, corev1.ContainerImage{Names: []string{d.imageID, d.image}, SizeBytes: 20_000_000 + r.Int64N(400_000_000)})
	}
	sort.SliceStable(images, func(i, j int) bool { return images[i].SizeBytes > images[j].SizeBytes })
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: nd.name, UID: nd.uid, ResourceVersion: strconv.FormatInt(nd.rv, 10), CreationTimestamp: mt(nd.created),
			Labels: labels,
			Annotations: map[string]string{
				"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"ebs.csi.aws.com":"%s"}`, nd.instanceID),
				"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///var/run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl":                           "0",
				"projectcalico.org/IPv4Address":                          internalIP + "/20",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(nd.created), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:volumes.kubernetes.io/controller-managed-attach-detach":{}},"f:labels":{".":{},"f:beta.kubernetes.io/arch":{},"f:beta.kubernetes.io/os":{},"f:kubernetes.io/arch":{},"f:kubernetes.io/hostname":{},"f:kubernetes.io/os":{}}}}`)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(nd.created.Add(20 * time.Second)), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: fmt.Appendf(nil, `{"f:metadata":{"f:annotations":{"f:node.alpha.kubernetes.io/ttl":{}}},"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{},"v:\"%s\"":{}}}}`, cidr)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(heartbeat), FieldsType: "FieldsV1",
					FieldsV1:    &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:addresses":{},"f:allocatable":{},"f:capacity":{},"f:conditions":{},"f:daemonEndpoints":{},"f:features":{},"f:images":{},"f:nodeInfo":{},"f:runtimeHandlers":{}}}`)},
					Subresource: "status"},
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}, ProviderID: fmt.Sprintf("aws:///%s/%s", nd.zone, nd.instanceID),
			Unschedulable: nd.cordoned, Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Conditions:  ready,
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: internalIP},
				{Type: corev1.NodeInternalDNS, Address: fmt.Sprintf("ip-%s.%s.compute.internal", strings.ReplaceAll(internalIP, ".", "-"), region)},
				{Type: corev1.NodeHostName, Address: nd.name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: r.hex(32), SystemUUID: string(r.uid()), BootID: string(r.uid()),
				KernelVersion: "6.8.0-1039-aws", OSImage: "Ubuntu 24.04.3 LTS", ContainerRuntimeVersion: "containerd://2.1.4",
				KubeletVersion: GeneratedKubernetesVersion, OperatingSystem: "linux", Architecture: "amd64"},
			Images: images,
			RuntimeHandlers: []corev1.NodeRuntimeHandler{
				{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}},
				{Name: "", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true), UserNamespaces: ptr(true)}}},
			Features: &corev1.NodeFeatures{SupplementalGroupsPolicy: ptr(true)},
		},
	}
}

func (g *generator) deployment(d *gDeploy) *appsv1.Deployment {
	replicas := int32(d.active)
	unavailable := d.active - d.ready
	maxUnavailable := d.active / 4
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
		LastUpdateTime: mt(d.rsCreated.Add(40 * time.Second)), LastTransitionTime: mt(d.rsCreated.Add(40 * time.Second)),
		Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."}
	if unavailable > maxUnavailable {
		available.Status, available.Reason, available.Message = corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
		t := g.at.Add(-g.rng(streamDeployment, uint64(d.idx), 1).ago(time.Minute, g.at.Sub(d.rsCreated)))
		available.LastUpdateTime, available.LastTransitionTime = mt(t), mt(t)
	}
	progressing := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		LastUpdateTime: mt(d.rsCreated.Add(40 * time.Second)), LastTransitionTime: mt(d.created),
		Reason: "NewReplicaSetAvailable", Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", d.rsName)}
	status := appsv1.DeploymentStatus{ObservedGeneration: d.generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: int32(d.ready), AvailableReplicas: int32(d.ready), UnavailableReplicas: int32(unavailable),
		TerminatingReplicas: ptr(int32(0)), Conditions: []appsv1.DeploymentCondition{available, progressing}}
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: d.name, Namespace: d.ns.name, UID: d.uid, ResourceVersion: strconv.FormatInt(d.rv, 10), Generation: d.generation,
			CreationTimestamp: mt(d.created),
			Labels:            map[string]string{"app": d.name, "app.kubernetes.io/name": d.name, "app.kubernetes.io/part-of": d.ns.name, "app.kubernetes.io/managed-by": managedBy(d)},
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": strconv.Itoa(d.revision)},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: d.managers, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(d.rsCreated), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:annotations":{},"f:labels":{}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}}}`)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(g.statusTime(d)), FieldsType: "FieldsV1",
					FieldsV1:    &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:terminatingReplicas":{},"f:unavailableReplicas":{},"f:updatedReplicas":{}}}`)},
					Subresource: "status"},
			},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name}},
			Template: d.template,
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr(int32(10)),
			ProgressDeadlineSeconds: ptr(int32(600)),
		},
		Status: status,
	}
}

func managedBy(d *gDeploy) string {
	switch d.managers {
	case "helm":
		return "Helm"
	case "argocd-controller":
		return "argocd"
	}
	return "kubectl"
}

// statusTime is when the controllers last wrote a Deployment's status.
func (g *generator) statusTime(d *gDeploy) time.Time {
	if d.active != d.ready {
		return g.at.Add(-g.rng(streamDeployment, uint64(d.idx), 2).between(time.Second, 5*time.Minute))
	}
	return d.rsCreated.Add(40 * time.Second)
}

func (g *generator) replicaSet(d *gDeploy) *appsv1.ReplicaSet {
	tmpl := d.template
	labels := map[string]string{"pod-template-hash": d.hash}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	tmpl.Labels = labels
	replicas := int32(d.active)
	rr := g.rng(streamDeployment, uint64(d.idx), 3)
	return &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{Kind: "ReplicaSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: d.rsName, Namespace: d.ns.name, UID: d.rsUID, ResourceVersion: strconv.FormatInt(d.rsRV, 10), Generation: 1 + int64(rr.IntN(3)),
			CreationTimestamp: mt(d.rsCreated),
			Labels:            labels,
			Annotations: map[string]string{"deployment.kubernetes.io/desired-replicas": strconv.Itoa(d.active),
				"deployment.kubernetes.io/max-replicas": strconv.Itoa(d.active + (d.active+3)/4), "deployment.kubernetes.io/revision": strconv.Itoa(d.revision)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.name, UID: d.uid, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(d.rsCreated), FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: fmt.Appendf(nil, `{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/desired-replicas":{},"f:deployment.kubernetes.io/max-replicas":{},"f:deployment.kubernetes.io/revision":{}},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"%s\"}":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:annotations":{},"f:labels":{}},"f:spec":{"f:containers":{},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}}}`, d.uid)}},
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Time: mtp(g.statusTime(d)), FieldsType: "FieldsV1",
					FieldsV1:    &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:availableReplicas":{},"f:fullyLabeledReplicas":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:terminatingReplicas":{}}}`)},
					Subresource: "status"},
			},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": d.name, "pod-template-hash": d.hash}},
			Template: tmpl,
		},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: int32(d.ready),
			AvailableReplicas: int32(d.ready), TerminatingReplicas: ptr(int32(0)), ObservedGeneration: 1},
	}
}

func (g *generator) service(d *gDeploy) *corev1.Service {
	ports := []corev1.ServicePort{{Name: "http", Protocol: corev1.ProtocolTCP, Port: 80, TargetPort: intstr.FromString("http")},
		{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9090, TargetPort: intstr.FromString("metrics")}}
	spec := corev1.ServiceSpec{Ports: ports, Selector: map[string]string{"app": d.name}, ClusterIP: d.clusterIP, ClusterIPs: []string{d.clusterIP},
		Type: d.svcType, SessionAffinity: corev1.ServiceAffinityNone, IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
		IPFamilyPolicy: ptr(corev1.IPFamilyPolicySingleStack), InternalTrafficPolicy: ptr(corev1.ServiceInternalTrafficPolicyCluster)}
	var status corev1.ServiceStatus
	annotations := map[string]string(nil)
	if d.svcType != corev1.ServiceTypeClusterIP {
		spec.Ports[0].NodePort = d.nodePort
		spec.Ports[1].NodePort = d.nodePort + 1
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if d.svcType == corev1.ServiceTypeLoadBalancer {
		spec.AllocateLoadBalancerNodePorts = ptr(true)
		status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: d.lbHost}}
		annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}
	}
	created := d.created.Add(time.Second)
	return &corev1.Service{
		TypeMeta: metav1.TypeMeta{Kind: "Service", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.ns.name, UID: d.svcUID, ResourceVersion: strconv.FormatInt(d.svcRV, 10),
			CreationTimestamp: mt(created), Annotations: annotations,
			Labels: map[string]string{"app": d.name, "app.kubernetes.io/name": d.name, "app.kubernetes.io/part-of": d.ns.name, "app.kubernetes.io/managed-by": managedBy(d)},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: d.managers, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: mtp(created), FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{"f:internalTrafficPolicy":{},"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},"k:{\"port\":9090,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{},"f:sessionAffinity":{},"f:type":{}}}`)}}},
		},
		Spec:   spec,
		Status: status,
	}
}

// ---------------------------------------------------------------------------
// Events.

func (g *generator) events(ns *gNamespace) []*corev1.Event {
	out := make([]*corev1.Event, 0, ns.events)
	for j := range ns.events {
		r := g.rng(streamEvent, uint64(ns.idx), uint64(j))
		if e := g.event(ns, j, r); e != nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (g *generator) event(ns *gNamespace, j int, r rnd) *corev1.Event {
	if len(ns.deps) == 0 {
		// A namespace without workloads still gets events about itself.
		return g.newEvent(ns, j, r, corev1.ObjectReference{Kind: "Namespace", Name: ns.name, UID: ns.uid, APIVersion: "v1"},
			"Normal", "NamespaceCreated", "namespace created", "namespace-controller", "", g.at.Add(-r.ago(time.Second, time.Hour)), 1)
	}
	x := r.Float64()
	if x < 0.75 && ns.pods > 0 {
		var p *gPod
		if len(ns.trouble) > 0 && r.chance(0.5) {
			ref := pick(r, ns.trouble)
			p = g.pod(ref.d, ref.k)
		} else {
			d := pick(r, ns.deps)
			for try := 0; d.pods == 0 && try < 10; try++ {
				d = pick(r, ns.deps)
			}
			if d.pods > 0 {
				p = g.pod(d, r.IntN(d.pods))
			}
		}
		if p != nil {
			return g.podEvent(ns, j, r, p)
		}
	}
	d := pick(r, ns.deps)
	if x < 0.88 {
		ref := corev1.ObjectReference{Kind: "ReplicaSet", Namespace: ns.name, Name: d.rsName, UID: d.rsUID, APIVersion: "apps/v1",
			ResourceVersion: strconv.FormatInt(d.rsRV-int64(r.IntN(1000)), 10)}
		if d.pods > 0 {
			p := g.pod(d, r.IntN(d.pods))
			return g.newEvent(ns, j, r, ref, "Normal", "SuccessfulCreate", "Created pod: "+p.name, "replicaset-controller", "", p.created, 1)
		}
		return g.newEvent(ns, j, r, ref, "Normal", "SuccessfulDelete", "Deleted pod: "+d.rsName+"-"+r.suffix(5), "replicaset-controller", "", g.at.Add(-r.ago(time.Second, time.Hour)), 1)
	}
	ref := corev1.ObjectReference{Kind: "Deployment", Namespace: ns.name, Name: d.name, UID: d.uid, APIVersion: "apps/v1",
		ResourceVersion: strconv.FormatInt(d.rv-int64(r.IntN(1000)), 10)}
	if r.chance(0.6) {
		return g.newEvent(ns, j, r, ref, "Normal", "ScalingReplicaSet",
			fmt.Sprintf("Scaled up replica set %s from 0 to %d", d.rsName, max(d.active, 1)), "deployment-controller", "", d.rsCreated, 1)
	}
	return g.newEvent(ns, j, r, ref, "Normal", "ScalingReplicaSet",
		fmt.Sprintf("Scaled down replica set %s-%s from %d to 0", d.name, r.suffix(10), max(d.active, 1)), "deployment-controller", "",
		d.rsCreated.Add(r.between(30*time.Second, 3*time.Minute)), 1)
}

func (g *generator) podEvent(ns *gNamespace, j int, r rnd, p *gPod) *corev1.Event {
	d := p.d
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: ns.name, Name: p.name, UID: p.uid, APIVersion: "v1",
		ResourceVersion: strconv.FormatInt(g.listRV-1-r.Int64N(3_000_000), 10)}
	app := d.template.Spec.Containers[0].Name
	container := func(name string) corev1.ObjectReference {
		c := ref
		c.FieldPath = "spec.containers{" + name + "}"
		return c
	}
	host := ""
	if p.node != nil {
		host = p.node.name
	}
	kubelet := func(c corev1.ObjectReference, typ, reason, msg string, first time.Time, count int32) *corev1.Event {
		return g.newEvent(ns, j, r, c, typ, reason, msg, "kubelet", host, first, count)
	}
	recent := func() time.Time { return g.at.Add(-r.ago(2*time.Second, 50*time.Minute)) }
	switch p.state {
	case stUnschedulable:
		e := g.newEvent(ns, j, r, ref, "Warning", "FailedScheduling", g.podStatus(p).Conditions[0].Message,
			"default-scheduler", "", p.created, 1)
		g.seriesEvent(e, r, p.created, "Scheduling")
		return e
	case stCrashLoop:
		switch r.IntN(4) {
		case 0, 1:
			e := kubelet(container(app), "Warning", "BackOff", fmt.Sprintf("Back-off restarting failed container %s in pod %s_%s(%s)", app, p.name, ns.name, p.uid),
				p.started.Add(time.Minute), p.restarts*int32(4+r.IntN(6)))
			e.LastTimestamp = mt(g.at.Add(-r.between(time.Second, 20*time.Second)))
			return e
		case 2:
			e := kubelet(container(app), "Normal", "Pulled", fmt.Sprintf("Container image %q already present on machine", d.image), p.started, p.restarts+1)
			e.LastTimestamp = mt(p.lastStart.Add(-time.Second))
			return e
		default:
			e := kubelet(container(app), "Normal", "Started", "Started container "+app, p.started, p.restarts+1)
			e.LastTimestamp = mt(p.lastStart)
			return e
		}
	case stNotReady:
		e := kubelet(container(app), "Warning", "Unhealthy", pick(r, []string{"Readiness probe failed: HTTP probe failed with statuscode: 503",
			"Readiness probe failed: Get \"http://" + p.ip + ":" + strconv.Itoa(int(d.port)) + d.lang.ready + "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}),
			p.ready, int32(2+r.IntN(3000)))
		e.LastTimestamp = mt(g.at.Add(-r.between(time.Second, 10*time.Second)))
		return e
	case stImagePull:
		img := d.image
		if r.chance(0.5) {
			e := kubelet(container(app), "Normal", "BackOff", fmt.Sprintf("Back-off pulling image %q", img), p.created.Add(5*time.Second), int32(2+r.IntN(200)))
			e.LastTimestamp = mt(recent())
			return e
		}
		e := kubelet(container(app), "Warning", "Failed", fmt.Sprintf("Failed to pull image %q: %s", img, pullError(img)),
			p.created.Add(3*time.Second), int32(1+r.IntN(20)))
		e.LastTimestamp = mt(recent())
		return e
	case stCreating:
		return kubelet(container(d.side.name), "Normal", "Pulling", fmt.Sprintf("Pulling image %q", d.side.image), p.created.Add(time.Second), 1)
	case stEvicted:
		if r.chance(0.5) {
			return kubelet(ref, "Warning", "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 62104Ki. ", p.lastFinish, 1)
		}
		return kubelet(container(app), "Normal", "Killing", "Stopping container "+app, p.lastFinish, 1)
	}
	// A healthy pod's life: scheduling, pulling, starting.
	switch r.IntN(6) {
	case 0:
		e := g.newEvent(ns, j, r, ref, "Normal", "Scheduled", fmt.Sprintf("Successfully assigned %s/%s to %s", ns.name, p.name, host), "default-scheduler", "", p.created, 1)
		g.seriesEvent(e, r, p.created, "Binding")
		e.Series = nil
		return e
	case 1:
		return kubelet(container(app), "Normal", "Pulling", fmt.Sprintf("Pulling image %q", d.image), p.created.Add(time.Second), 1)
	case 2:
		return kubelet(container(app), "Normal", "Pulled", fmt.Sprintf("Successfully pulled image %q in %dms (%dms including waiting). Image size: %d bytes.",
			d.image, 300+r.IntN(9000), 300+r.IntN(12000), 20_000_000+r.IntN(400_000_000)), p.started, 1)
	case 3:
		return kubelet(container(app), "Normal", "Created", "Created container: "+app, p.started.Add(time.Second), 1)
	case 4:
		return kubelet(container(d.side.name), "Normal", "Started", "Started container "+d.side.name, p.started.Add(2*time.Second), 1)
	}
	return kubelet(container(app), "Normal", "Started", "Started container "+app, p.started.Add(time.Second), 1)
}

// newEvent is a core/v1 Event as the legacy event recorder writes it.
func (g *generator) newEvent(ns *gNamespace, j int, r rnd, ref corev1.ObjectReference, typ, reason, msg, component, host string, first time.Time, count int32) *corev1.Event {
	if !first.Before(g.at) {
		first = g.at.Add(-time.Second)
	}
	last := first
	if count > 1 {
		last = first.Add(r.between(0, g.at.Sub(first)))
	}
	name := fmt.Sprintf("%s.%x", ref.Name, first.UnixNano()+int64(j)*7919+int64(r.IntN(1000)))
	return &corev1.Event{
		TypeMeta: metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.name, UID: r.uid(),
			ResourceVersion: strconv.FormatInt(g.listRV-1-r.Int64N(200_000), 10), CreationTimestamp: mt(first)},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             msg,
		Source:              corev1.EventSource{Component: component, Host: host},
		FirstTimestamp:      mt(first),
		LastTimestamp:       mt(last),
		Count:               count,
		Type:                typ,
		ReportingController: component,
		ReportingInstance:   host,
	}
}

// seriesEvent turns e into an events.k8s.io-style event, as the scheduler
// records them: eventTime and a series instead of first/last timestamps.
func (g *generator) seriesEvent(e *corev1.Event, r rnd, first time.Time, action string) {
	e.EventTime = metav1.NewMicroTime(first.Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond).UTC())
	e.FirstTimestamp, e.LastTimestamp, e.Count = metav1.Time{}, metav1.Time{}, 0
	e.Source = corev1.EventSource{}
	e.Action = action
	e.ReportingInstance = "default-scheduler-" + g.controlName()
	if g.at.Sub(first) > 2*time.Minute {
		last := g.at.Add(-r.between(time.Second, min(g.at.Sub(first), 5*time.Minute)))
		e.Series = &corev1.EventSeries{Count: int32(2 + r.IntN(200)), LastObservedTime: metav1.NewMicroTime(last.Add(time.Duration(r.IntN(1_000_000)) * time.Microsecond).UTC())}
	}
}

func (g *generator) controlName() string {
	if len(g.control) > 0 {
		return g.control[0].name
	}
	return g.nodes[0].name
}

// groups.json and resources.json of a Kubernetes 1.35 cluster as client-go discovery
// returns them, taken from testdata/example-bundle without its CRD group; written
// re-indented with two spaces, as troubleshoot writes them.
const legacyGroupsJSON = `[
{"name":"","versions":[{"groupVersion":"v1","version":"v1"}],"preferredVersion":{"groupVersion":"v1","version":"v1"}},
{"name":"apiregistration.k8s.io","versions":[{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}},
{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
{"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}},
{"name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"}},
{"name":"authorization.k8s.io","versions":[{"groupVersion":"authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"authorization.k8s.io/v1","version":"v1"}},
{"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},
{"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}],"preferredVersion":{"groupVersion":"batch/v1","version":"v1"}},
{"name":"certificates.k8s.io","versions":[{"groupVersion":"certificates.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"certificates.k8s.io/v1","version":"v1"}},
{"name":"networking.k8s.io","versions":[{"groupVersion":"networking.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"networking.k8s.io/v1","version":"v1"}},
{"name":"policy","versions":[{"groupVersion":"policy/v1","version":"v1"}],"preferredVersion":{"groupVersion":"policy/v1","version":"v1"}},
{"name":"rbac.authorization.k8s.io","versions":[{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}},
{"name":"storage.k8s.io","versions":[{"groupVersion":"storage.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"storage.k8s.io/v1","version":"v1"}},
{"name":"admissionregistration.k8s.io","versions":[{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}},
{"name":"apiextensions.k8s.io","versions":[{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}},
{"name":"scheduling.k8s.io","versions":[{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}},
{"name":"coordination.k8s.io","versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}},
{"name":"node.k8s.io","versions":[{"groupVersion":"node.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"node.k8s.io/v1","version":"v1"}},
{"name":"discovery.k8s.io","versions":[{"groupVersion":"discovery.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"discovery.k8s.io/v1","version":"v1"}},
{"name":"resource.k8s.io","versions":[{"groupVersion":"resource.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"resource.k8s.io/v1","version":"v1"}},
{"name":"flowcontrol.apiserver.k8s.io","versions":[{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","version":"v1"}}
]`

const legacyResourcesJSON = `[
{"groupVersion":"discovery.k8s.io/v1","resources":[
	{"name":"endpointslices","singularName":"endpointslice","namespaced":true,"kind":"EndpointSlice","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"policy/v1","resources":[
	{"name":"poddisruptionbudgets","singularName":"poddisruptionbudget","namespaced":true,"kind":"PodDisruptionBudget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pdb"]},
	{"name":"poddisruptionbudgets/status","singularName":"poddisruptionbudget","namespaced":true,"kind":"PodDisruptionBudget","verbs":["get","patch","update"]}]},
{"groupVersion":"v1","resources":[
	{"name":"bindings","singularName":"binding","namespaced":true,"kind":"Binding","verbs":["create"]},
	{"name":"componentstatuses","singularName":"componentstatus","namespaced":false,"kind":"ComponentStatus","verbs":["get","list"],"shortNames":["cs"]},
	{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"]},
	{"name":"endpoints","singularName":"endpoints","namespaced":true,"kind":"Endpoints","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ep"]},
	{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ev"]},
	{"name":"limitranges","singularName":"limitrange","namespaced":true,"kind":"LimitRange","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["limits"]},
	{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"]},
	{"name":"namespaces/finalize","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["update"]},
	{"name":"namespaces/status","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","patch","update"]},
	{"name":"nodes","singularName":"node","namespaced":false,"kind":"Node","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["no"]},
	{"name":"nodes/proxy","singularName":"node","namespaced":false,"kind":"NodeProxyOptions","verbs":["create","delete","get","patch","update"]},
	{"name":"nodes/status","singularName":"node","namespaced":false,"kind":"Node","verbs":["get","patch","update"]},
	{"name":"persistentvolumeclaims","singularName":"persistentvolumeclaim","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pvc"]},
	{"name":"persistentvolumeclaims/status","singularName":"persistentvolumeclaim","namespaced":true,"kind":"PersistentVolumeClaim","verbs":["get","patch","update"]},
	{"name":"persistentvolumes","singularName":"persistentvolume","namespaced":false,"kind":"PersistentVolume","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pv"]},
	{"name":"persistentvolumes/status","singularName":"persistentvolume","namespaced":false,"kind":"PersistentVolume","verbs":["get","patch","update"]},
	{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],"categories":["all"]},
	{"name":"pods/attach","singularName":"pod","namespaced":true,"kind":"PodAttachOptions","verbs":["create","get"]},
	{"name":"pods/binding","singularName":"pod","namespaced":true,"kind":"Binding","verbs":["create"]},
	{"name":"pods/ephemeralcontainers","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]},
	{"name":"pods/eviction","singularName":"pod","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]},
	{"name":"pods/exec","singularName":"pod","namespaced":true,"kind":"PodExecOptions","verbs":["create","get"]},
	{"name":"pods/log","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get"]},
	{"name":"pods/portforward","singularName":"pod","namespaced":true,"kind":"PodPortForwardOptions","verbs":["create","get"]},
	{"name":"pods/proxy","singularName":"pod","namespaced":true,"kind":"PodProxyOptions","verbs":["create","delete","get","patch","update"]},
	{"name":"pods/resize","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]},
	{"name":"pods/status","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]},
	{"name":"podtemplates","singularName":"podtemplate","namespaced":true,"kind":"PodTemplate","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"replicationcontrollers","singularName":"replicationcontroller","namespaced":true,"kind":"ReplicationController","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["rc"],"categories":["all"]},
	{"name":"replicationcontrollers/scale","singularName":"replicationcontroller","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"replicationcontrollers/status","singularName":"replicationcontroller","namespaced":true,"kind":"ReplicationController","verbs":["get","patch","update"]},
	{"name":"resourcequotas","singularName":"resourcequota","namespaced":true,"kind":"ResourceQuota","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["quota"]},
	{"name":"resourcequotas/status","singularName":"resourcequota","namespaced":true,"kind":"ResourceQuota","verbs":["get","patch","update"]},
	{"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"serviceaccounts","singularName":"serviceaccount","namespaced":true,"kind":"ServiceAccount","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sa"]},
	{"name":"serviceaccounts/token","singularName":"serviceaccount","namespaced":true,"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest","verbs":["create"]},
	{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["svc"],"categories":["all"]},
	{"name":"services/proxy","singularName":"service","namespaced":true,"kind":"ServiceProxyOptions","verbs":["create","delete","get","patch","update"]},
	{"name":"services/status","singularName":"service","namespaced":true,"kind":"Service","verbs":["get","patch","update"]}]},
{"groupVersion":"resource.k8s.io/v1","resources":[
	{"name":"deviceclasses","singularName":"deviceclass","namespaced":false,"kind":"DeviceClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"resourceclaims","singularName":"resourceclaim","namespaced":true,"kind":"ResourceClaim","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"resourceclaims/status","singularName":"resourceclaim","namespaced":true,"kind":"ResourceClaim","verbs":["get","patch","update"]},
	{"name":"resourceclaimtemplates","singularName":"resourceclaimtemplate","namespaced":true,"kind":"ResourceClaimTemplate","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"resourceslices","singularName":"resourceslice","namespaced":false,"kind":"ResourceSlice","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"autoscaling/v2","resources":[
	{"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["hpa"],"categories":["all"]},
	{"name":"horizontalpodautoscalers/status","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["get","patch","update"]}]},
{"groupVersion":"scheduling.k8s.io/v1","resources":[
	{"name":"priorityclasses","singularName":"priorityclass","namespaced":false,"kind":"PriorityClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pc"]}]},
{"groupVersion":"authentication.k8s.io/v1","resources":[
	{"name":"selfsubjectreviews","singularName":"selfsubjectreview","namespaced":false,"kind":"SelfSubjectReview","verbs":["create"]},
	{"name":"tokenreviews","singularName":"tokenreview","namespaced":false,"kind":"TokenReview","verbs":["create"]}]},
{"groupVersion":"batch/v1","resources":[
	{"name":"cronjobs","singularName":"cronjob","namespaced":true,"kind":"CronJob","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cj"],"categories":["all"]},
	{"name":"cronjobs/status","singularName":"cronjob","namespaced":true,"kind":"CronJob","verbs":["get","patch","update"]},
	{"name":"jobs","singularName":"job","namespaced":true,"kind":"Job","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["all"]},
	{"name":"jobs/status","singularName":"job","namespaced":true,"kind":"Job","verbs":["get","patch","update"]}]},
{"groupVersion":"events.k8s.io/v1","resources":[
	{"name":"events","singularName":"event","namespaced":true,"kind":"Event","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ev"]}]},
{"groupVersion":"apps/v1","resources":[
	{"name":"controllerrevisions","singularName":"controllerrevision","namespaced":true,"kind":"ControllerRevision","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"daemonsets","singularName":"daemonset","namespaced":true,"kind":"DaemonSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ds"],"categories":["all"]},
	{"name":"daemonsets/status","singularName":"daemonset","namespaced":true,"kind":"DaemonSet","verbs":["get","patch","update"]},
	{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"]},
	{"name":"deployments/scale","singularName":"deployment","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"deployments/status","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]},
	{"name":"replicasets","singularName":"replicaset","namespaced":true,"kind":"ReplicaSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["rs"],"categories":["all"]},
	{"name":"replicasets/scale","singularName":"replicaset","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"replicasets/status","singularName":"replicaset","namespaced":true,"kind":"ReplicaSet","verbs":["get","patch","update"]},
	{"name":"statefulsets","singularName":"statefulset","namespaced":true,"kind":"StatefulSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sts"],"categories":["all"]},
	{"name":"statefulsets/scale","singularName":"statefulset","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},
	{"name":"statefulsets/status","singularName":"statefulset","namespaced":true,"kind":"StatefulSet","verbs":["get","patch","update"]}]},
{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","resources":[
	{"name":"flowschemas","singularName":"flowschema","namespaced":false,"kind":"FlowSchema","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"flowschemas/status","singularName":"flowschema","namespaced":false,"kind":"FlowSchema","verbs":["get","patch","update"]},
	{"name":"prioritylevelconfigurations","singularName":"prioritylevelconfiguration","namespaced":false,"kind":"PriorityLevelConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"prioritylevelconfigurations/status","singularName":"prioritylevelconfiguration","namespaced":false,"kind":"PriorityLevelConfiguration","verbs":["get","patch","update"]}]},
{"groupVersion":"rbac.authorization.k8s.io/v1","resources":[
	{"name":"clusterrolebindings","singularName":"clusterrolebinding","namespaced":false,"kind":"ClusterRoleBinding","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"clusterroles","singularName":"clusterrole","namespaced":false,"kind":"ClusterRole","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"rolebindings","singularName":"rolebinding","namespaced":true,"kind":"RoleBinding","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"roles","singularName":"role","namespaced":true,"kind":"Role","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"node.k8s.io/v1","resources":[
	{"name":"runtimeclasses","singularName":"runtimeclass","namespaced":false,"kind":"RuntimeClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"coordination.k8s.io/v1","resources":[
	{"name":"leases","singularName":"lease","namespaced":true,"kind":"Lease","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]}]},
{"groupVersion":"certificates.k8s.io/v1","resources":[
	{"name":"certificatesigningrequests","singularName":"certificatesigningrequest","namespaced":false,"kind":"CertificateSigningRequest","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["csr"]},
	{"name":"certificatesigningrequests/approval","singularName":"certificatesigningrequest","namespaced":false,"kind":"CertificateSigningRequest","verbs":["get","patch","update"]},
	{"name":"certificatesigningrequests/status","singularName":"certificatesigningrequest","namespaced":false,"kind":"CertificateSigningRequest","verbs":["get","patch","update"]}]},
{"groupVersion":"apiregistration.k8s.io/v1","resources":[
	{"name":"apiservices","singularName":"apiservice","namespaced":false,"kind":"APIService","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"apiservices/status","singularName":"apiservice","namespaced":false,"kind":"APIService","verbs":["get","patch","update"]}]},
{"groupVersion":"storage.k8s.io/v1","resources":[
	{"name":"csidrivers","singularName":"csidriver","namespaced":false,"kind":"CSIDriver","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"csinodes","singularName":"csinode","namespaced":false,"kind":"CSINode","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"csistoragecapacities","singularName":"csistoragecapacity","namespaced":true,"kind":"CSIStorageCapacity","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"storageclasses","singularName":"storageclass","namespaced":false,"kind":"StorageClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sc"]},
	{"name":"volumeattachments","singularName":"volumeattachment","namespaced":false,"kind":"VolumeAttachment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"volumeattachments/status","singularName":"volumeattachment","namespaced":false,"kind":"VolumeAttachment","verbs":["get","patch","update"]},
	{"name":"volumeattributesclasses","singularName":"volumeattributesclass","namespaced":false,"kind":"VolumeAttributesClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["vac"]}]},
{"groupVersion":"admissionregistration.k8s.io/v1","resources":[
	{"name":"mutatingwebhookconfigurations","singularName":"mutatingwebhookconfiguration","namespaced":false,"kind":"MutatingWebhookConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"validatingadmissionpolicies","singularName":"validatingadmissionpolicy","namespaced":false,"kind":"ValidatingAdmissionPolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"validatingadmissionpolicies/status","singularName":"validatingadmissionpolicy","namespaced":false,"kind":"ValidatingAdmissionPolicy","verbs":["get","patch","update"]},
	{"name":"validatingadmissionpolicybindings","singularName":"validatingadmissionpolicybinding","namespaced":false,"kind":"ValidatingAdmissionPolicyBinding","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]},
	{"name":"validatingwebhookconfigurations","singularName":"validatingwebhookconfiguration","namespaced":false,"kind":"ValidatingWebhookConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"]}]},
{"groupVersion":"apiextensions.k8s.io/v1","resources":[
	{"name":"customresourcedefinitions","singularName":"customresourcedefinition","namespaced":false,"kind":"CustomResourceDefinition","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["crd","crds"],"categories":["api-extensions"]},
	{"name":"customresourcedefinitions/status","singularName":"customresourcedefinition","namespaced":false,"kind":"CustomResourceDefinition","verbs":["get","patch","update"]}]},
{"groupVersion":"autoscaling/v1","resources":[
	{"name":"horizontalpodautoscalers","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["hpa"],"categories":["all"]},
	{"name":"horizontalpodautoscalers/status","singularName":"horizontalpodautoscaler","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["get","patch","update"]}]},
{"groupVersion":"networking.k8s.io/v1","resources":[
	{"name":"ingressclasses","singularName":"ingressclass","namespaced":false,"kind":"IngressClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"ingresses","singularName":"ingress","namespaced":true,"kind":"Ingress","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ing"]},
	{"name":"ingresses/status","singularName":"ingress","namespaced":true,"kind":"Ingress","verbs":["get","patch","update"]},
	{"name":"ipaddresses","singularName":"ipaddress","namespaced":false,"kind":"IPAddress","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ip"]},
	{"name":"networkpolicies","singularName":"networkpolicy","namespaced":true,"kind":"NetworkPolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["netpol"]},
	{"name":"servicecidrs","singularName":"servicecidr","namespaced":false,"kind":"ServiceCIDR","verbs":["create","delete","deletecollection","get","list","patch","update","watch"]},
	{"name":"servicecidrs/status","singularName":"servicecidr","namespaced":false,"kind":"ServiceCIDR","verbs":["get","patch","update"]}]},
{"groupVersion":"authorization.k8s.io/v1","resources":[
	{"name":"localsubjectaccessreviews","singularName":"localsubjectaccessreview","namespaced":true,"kind":"LocalSubjectAccessReview","verbs":["create"]},
	{"name":"selfsubjectaccessreviews","singularName":"selfsubjectaccessreview","namespaced":false,"kind":"SelfSubjectAccessReview","verbs":["create"]},
	{"name":"selfsubjectrulesreviews","singularName":"selfsubjectrulesreview","namespaced":false,"kind":"SelfSubjectRulesReview","verbs":["create"]},
	{"name":"subjectaccessreviews","singularName":"subjectaccessreview","namespaced":false,"kind":"SubjectAccessReview","verbs":["create"]}]}
]`
