package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
	"github.com/bundlectl/bundlectl/serve/index"
)

// countingServer serves the small bundle and counts requests by method
// and query, so a test can tell lists from watches.
type countingServer struct {
	*httptest.Server
	mu       sync.Mutex
	lists    int
	watches  int
	requests []string
}

func newCountingServer(t *testing.T) (*countingServer, *rest.Config) {
	t.Helper()
	x := load(t, smallBundle(t))
	stop := make(chan struct{})
	h := NewHandler(x, HandlerOptions{Token: testToken, Stop: stop})
	cs := &countingServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		switch q := r.URL.Query(); {
		case q.Get("watch") != "":
			cs.watches++
		case r.URL.Path == "/api/v1/pods":
			cs.lists++
		}
		cs.requests = append(cs.requests, r.URL.Path)
		cs.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(stop); cs.Close() })
	return cs, &rest.Config{Host: cs.URL, BearerToken: testToken}
}

func TestDynamicClient(t *testing.T) {
	_, cfg := newCountingServer(t)
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pods, err := client.Resource(servetest.PodsGVR).Namespace("").List(ctx, metav1.ListOptions{LabelSelector: "app=web", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 || pods.GetContinue() == "" || pods.Items[0].GetKind() != "Pod" {
		t.Errorf("pods page: %d items, continue %q, kind %q", len(pods.Items), pods.GetContinue(), pods.Items[0].GetKind())
	}
	w, err := client.Resource(servetest.WidgetsGVR).Namespace("default").Get(ctx, "w2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if color, _, _ := unstructured.NestedString(w.Object, "spec", "color"); color != "blue" {
		t.Errorf("widget %v", w.Object)
	}
	if _, err := client.Resource(servetest.PodsGVR).Namespace("default").Get(ctx, "nope", metav1.GetOptions{}); err == nil || err.Error() != `pods "nope" not found` {
		t.Errorf("not found: %v", err)
	}
	err = client.Resource(servetest.PodsGVR).Namespace("default").Delete(ctx, "web-1", metav1.DeleteOptions{})
	if err == nil || err.Error() != `delete is not allowed on pods "web-1": `+index.ReadOnly {
		t.Errorf("delete: %v", err)
	}
}

func TestDiscoveryClient(t *testing.T) {
	cs, cfg := newCountingServer(t)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, resources, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range groups {
		names = append(names, g.Name)
	}
	if !slices.Equal(names, []string{"", "apps", "authorization.k8s.io", "apiextensions.k8s.io", "example.com"}) {
		t.Errorf("groups %v", names)
	}
	found := map[string]bool{}
	for _, rl := range resources {
		for _, r := range rl.APIResources {
			found[rl.GroupVersion+"/"+r.Name] = true
		}
	}
	for _, want := range []string{"v1/pods", "v1/pods/log", "apps/v1/deployments", "example.com/v1/widgets"} {
		if !found[want] {
			t.Errorf("%s not discovered", want)
		}
	}
	// Aggregated: two requests, /api and /apis, and no per-group-version ones.
	cs.mu.Lock()
	requests := slices.Clone(cs.requests)
	cs.mu.Unlock()
	sort.Strings(requests)
	if !slices.Equal(requests, []string{"/api", "/apis"}) {
		t.Errorf("aggregated discovery requests %v", requests)
	}
	// The legacy per-group-version documents, which RESTMappers read.
	rl, err := dc.ServerResourcesForGroupVersion("apps/v1")
	if err != nil || len(rl.APIResources) != 6 {
		t.Errorf("apps/v1: %v %v", rl, err)
	}
	v, err := dc.ServerVersion()
	if err != nil || v.GitVersion != servetest.KubernetesVersion {
		t.Errorf("version %v %v", v, err)
	}
}

// TestInformers checks that shared informers list, watch and sync, and
// then stay quiet: a watch that ends at once makes a reflector relist in
// a loop.
func TestInformers(t *testing.T) {
	cs, cfg := newCountingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	pods := factory.ForResource(servetest.PodsGVR).Informer()
	mclient, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mfactory := metadatainformer.NewSharedInformerFactory(mclient, 0)
	deployments := mfactory.ForResource(servetest.DeploymentsGVR).Informer()
	factory.Start(ctx.Done())
	mfactory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), pods.HasSynced, deployments.HasSynced) {
		t.Fatal("informers did not sync")
	}
	if n := len(pods.GetStore().List()); n != 5 {
		t.Errorf("pods in the informer: %d", n)
	}
	if keys := deployments.GetStore().ListKeys(); !slices.Equal(keys, []string{"default/web"}) {
		t.Errorf("deployments in the metadata informer: %v", keys)
	}
	time.Sleep(1500 * time.Millisecond)
	cs.mu.Lock()
	lists, watches := cs.lists, cs.watches
	cs.mu.Unlock()
	// One list (or none, with client-go's watch lists) and one watch.
	if lists > 1 || watches < 1 || watches > 2 {
		t.Errorf("pods: %d lists and %d watches in 1.5s", lists, watches)
	}
}

// listThenWatch is a ListWatch that opts out of watch lists, so that the
// reflector lists and then watches from the list's resourceVersion, as
// client-go before 1.35 and most controllers do.
type listThenWatch struct{ *cache.ListWatch }

func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

func TestInformerListThenWatch(t *testing.T) {
	cs, cfg := newCountingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pods := client.Resource(servetest.PodsGVR)
	lw := listThenWatch{&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return pods.List(ctx, o) },
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return pods.Watch(ctx, o)
		},
	}}
	informer := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	go informer.RunWithContext(ctx)
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	time.Sleep(1500 * time.Millisecond)
	cs.mu.Lock()
	lists, watches := cs.lists, cs.watches
	cs.mu.Unlock()
	if lists != 1 || watches != 1 || len(informer.GetStore().List()) != 5 {
		t.Errorf("%d lists, %d watches, %d pods", lists, watches, len(informer.GetStore().List()))
	}
}

// TestTypedInformers runs the shared informers of client-go's typed
// clientset as controllers configure them: protobuf preferred, JSON
// accepted. The server answers JSON, the informers list, watch and sync,
// and stay on one watch each.
func TestTypedInformers(t *testing.T) {
	cs, cfg := newCountingServer(t)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactory(client, 0)
	pods := factory.Core().V1().Pods()
	nodes := factory.Core().V1().Nodes().Informer()
	deployments := factory.Apps().V1().Deployments().Informer()
	podInformer := pods.Informer()
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), podInformer.HasSynced, nodes.HasSynced, deployments.HasSynced) {
		t.Fatal("informers did not sync")
	}
	teamA, err := pods.Lister().Pods("team-a").List(labels.Everything())
	if err != nil || len(teamA) != 2 || len(podInformer.GetStore().List()) != 5 {
		t.Errorf("pods: %d in team-a (%v), %d in all", len(teamA), err, len(podInformer.GetStore().List()))
	}
	if n := len(nodes.GetStore().List()); n != 2 {
		t.Errorf("nodes: %d", n)
	}
	if keys := deployments.GetStore().ListKeys(); !slices.Equal(keys, []string{"default/web"}) {
		t.Errorf("deployments: %v", keys)
	}
	time.Sleep(1500 * time.Millisecond)
	cs.mu.Lock()
	lists, watches := cs.lists, cs.watches
	cs.mu.Unlock()
	// Per informer one list (or none, with watch lists) and one watch.
	if lists > 1 || watches < 3 || watches > 6 {
		t.Errorf("%d pod lists and %d watches in 1.5s", lists, watches)
	}
}
