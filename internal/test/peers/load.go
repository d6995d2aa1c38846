package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/bundlectl/bundlectl/contract"
)

// loadKinds are the kinds the generator writes, in the order they are
// loaded: namespaces first, nodes before the pods that name them. status
// says whether the resource has a status subresource.
var loadKinds = []struct {
	gvk        schema.GroupVersionKind
	resource   string
	namespaced bool
	status     bool
}{
	{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "namespaces", false, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, "nodes", false, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Service"}, "services", true, true},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "deployments", true, true},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, "replicasets", true, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Event"}, "events", true, false},
}

// readObjects reads every object of the legacy bundle at path, by kind.
func readObjects(path string) (map[string][]json.RawMessage, error) {
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	out := map[string][]json.RawMessage{}
	err = b.Walk(func(e *contract.Entry) error {
		if !b.IsListOfRecord(e) {
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			return err
		}
		kind := contract.ListKind(e.Class, l)
		out[kind] = append(out[kind], l.Items...)
		return nil
	})
	return out, err
}

// loader writes objects of one kind.
type loader struct {
	client     *rest.RESTClient
	gvk        schema.GroupVersionKind
	resource   string
	namespaced bool
	status     bool
	writes     *atomic.Int64
}

// loadObjects writes the objects into the server as their controllers
// and kubelets would have: created, then their status written through
// the status subresource, then the bundle's managedFields put back with
// an update of the object itself. Without that last write the server
// would record the loader as the manager of every field, deep, which
// makes its objects (and the metadata in its table rows) larger than the
// bundle's; an update that changes no field keeps the managedFields it
// is given. Requests are protobuf, which costs the server and the loader
// (on the same cores) less than JSON. It returns the number of writes.
func loadObjects(ctx context.Context, cfg *rest.Config, objects map[string][]json.RawMessage, workers int) (int64, error) {
	var writes atomic.Int64
	clients := map[schema.GroupVersion]*rest.RESTClient{}
	for _, k := range loadKinds {
		items := objects[k.gvk.Kind]
		if len(items) == 0 {
			continue
		}
		gv := k.gvk.GroupVersion()
		if clients[gv] == nil {
			c, err := protobufClient(cfg, gv)
			if err != nil {
				return 0, err
			}
			clients[gv] = c
		}
		l := &loader{client: clients[gv], gvk: k.gvk, resource: k.resource, namespaced: k.namespaced, status: k.status, writes: &writes}
		if err := l.loadAll(ctx, items, workers); err != nil {
			return writes.Load(), err
		}
	}
	return writes.Load(), nil
}

func protobufClient(cfg *rest.Config, gv schema.GroupVersion) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	if gv.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf
	c.QPS, c.Burst = -1, 0 // no client-side rate limit
	c.UserAgent = "bundlectl-bench-peers"
	return rest.RESTClientFor(c)
}

func (l *loader) loadAll(ctx context.Context, items []json.RawMessage, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan json.RawMessage)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for raw := range jobs {
				if err := l.load(ctx, raw); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
feed:
	for _, raw := range items {
		select {
		case jobs <- raw:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return context.Cause(ctx)
}

// load writes one object: create, status, managedFields.
func (l *loader) load(ctx context.Context, raw json.RawMessage) error {
	orig, err := scheme.Scheme.New(l.gvk)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, orig); err != nil {
		return fmt.Errorf("%s: %w", l.gvk.Kind, err)
	}
	orig.GetObjectKind().SetGroupVersionKind(l.gvk)
	m, err := meta.Accessor(orig)
	if err != nil {
		return err
	}
	name, ns, managed := m.GetName(), m.GetNamespace(), m.GetManagedFields()
	what := func(verb string, err error) error {
		return fmt.Errorf("%s %s %s/%s: %w", verb, l.gvk.Kind, ns, name, err)
	}
	send := orig.DeepCopyObject()
	sm, _ := meta.Accessor(send)
	sm.SetResourceVersion("")
	sm.SetUID("")
	sm.SetManagedFields(nil)
	got, err := l.do(ctx, l.client.Post().NamespaceIfScoped(ns, l.namespaced).Resource(l.resource).Body(send))
	switch {
	case apierrors.IsAlreadyExists(err):
		// The namespaces the server makes itself (default, kube-system).
		if got, err = l.do(ctx, l.client.Get().NamespaceIfScoped(ns, l.namespaced).Resource(l.resource).Name(name)); err != nil {
			return what("reading", err)
		}
	case err != nil:
		return what("creating", err)
	default:
		l.writes.Add(1)
	}
	// The original object, with the identity the server gave it: a
	// status update takes only the status from it, the last update
	// changes nothing but the managedFields.
	gm, _ := meta.Accessor(got)
	m.SetUID(gm.GetUID())
	if l.status && !reflect.DeepEqual(statusOf(orig), statusOf(got)) {
		m.SetResourceVersion(gm.GetResourceVersion())
		m.SetManagedFields(nil)
		if got, err = l.do(ctx, l.client.Put().NamespaceIfScoped(ns, l.namespaced).Resource(l.resource).Name(name).SubResource("status").Body(orig)); err != nil {
			return what("writing the status of", err)
		}
		l.writes.Add(1)
		gm, _ = meta.Accessor(got)
	}
	if len(managed) > 0 {
		m.SetResourceVersion(gm.GetResourceVersion())
		m.SetManagedFields(managed)
		if _, err = l.do(ctx, l.client.Put().NamespaceIfScoped(ns, l.namespaced).Resource(l.resource).Name(name).Body(orig)); err != nil {
			return what("putting back the managedFields of", err)
		}
		l.writes.Add(1)
	}
	return nil
}

// do runs a request and decodes its answer into a new object of the kind.
func (l *loader) do(ctx context.Context, req *rest.Request) (runtime.Object, error) {
	out, err := scheme.Scheme.New(l.gvk)
	if err != nil {
		return nil, err
	}
	return out, req.Do(ctx).Into(out)
}

// statusOf is the Status field of a typed object (nil without one).
func statusOf(obj runtime.Object) any {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if f := v.FieldByName("Status"); f.IsValid() {
		return f.Interface()
	}
	return nil
}
