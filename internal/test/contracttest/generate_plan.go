package contracttest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

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
