package transform

import (
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
	api "k8s.io/kubernetes/pkg/apis/core"
	pvcstore "k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim/storage"
	servicestore "k8s.io/kubernetes/pkg/registry/core/service/storage"

	"github.com/bundlectl/bundlectl/contract"
)

// kube-apiserver changes some objects as it reads them from storage, before
// any GET, LIST or WATCH answers (the registry's Store.Decorator, its
// "defaultOnRead"): so an object written by an older release is answered as
// if this one had written it. Only two registries have one, each from the
// minor noted below (read in each release's pkg/registry; docs/ has the
// table):
//
//   - Services, from 1.20: clusterIPs is filled from clusterIP (the
//     printers of 1.20 on read only clusterIPs, so without it a Service of
//     a 1.19 cluster prints CLUSTER-IP <none>); from 1.23, ipFamilies and
//     ipFamilyPolicy from clusterIPs (1.21 and 1.22 did it otherwise, and
//     objects of theirs carry their own answer); from 1.24, an ExternalName
//     Service's internalTrafficPolicy is dropped.
//   - PersistentVolumeClaims, from 1.24 (1.22 and 1.23 had it behind a
//     gate that was off): dataSource and dataSourceRef fill each other.
//
// A bundle's lists were read through its cluster's own server, so its
// objects already carry what that release does; a release's read path is
// applied again only for what a later one would add to objects it never
// read (a Service of 1.19, rendered as 1.20). readDefaults runs the pinned
// release's own decorators and keeps, for an older minor, the fields of
// what that minor did not do.

// readDecorators are the pinned release's decorators, taken from the
// registries themselves, built over no storage.
var readDecorators = func() (d struct{ service, pvc func(runtime.Object) }) {
	service, _, _, err := servicestore.NewREST(noStorage{}, api.IPv4Protocol, nil, nil, nil, nil, nil)
	if err != nil {
		panic(fmt.Sprintf("the Service registry of Kubernetes %s: %v", contract.PinnedVersion, err))
	}
	pvc, _, err := pvcstore.NewREST(noStorage{})
	if err != nil {
		panic(fmt.Sprintf("the PersistentVolumeClaim registry of Kubernetes %s: %v", contract.PinnedVersion, err))
	}
	d.service, d.pvc = service.Store.Decorator, pvc.Store.Decorator
	return d
}()

// readDefaults applies to an internal object what the server of minor
// does as it reads it, and says whether that changed it.
func readDefaults(obj runtime.Object, minor int) bool {
	switch o := obj.(type) {
	case *api.Service:
		if minor < 20 {
			return false
		}
		before := o.DeepCopy()
		readDecorators.service(o)
		if minor < 23 {
			o.Spec.IPFamilies, o.Spec.IPFamilyPolicy = before.Spec.IPFamilies, before.Spec.IPFamilyPolicy
		}
		if minor < 24 {
			o.Spec.InternalTrafficPolicy = before.Spec.InternalTrafficPolicy
		}
		return !apiequality.Semantic.DeepEqual(before, o)
	case *api.PersistentVolumeClaim:
		if minor < 24 {
			return false
		}
		before := o.DeepCopy()
		readDecorators.pvc(o)
		return !apiequality.Semantic.DeepEqual(before, o)
	}
	return false
}

// noStorage gives a registry what it needs to be built, and no storage:
// only its decorator is used.
type noStorage struct{}

func (noStorage) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{
		StorageConfig:  &storagebackend.ConfigForResource{},
		ResourcePrefix: resource.Resource,
		Decorator: func(*storagebackend.ConfigForResource, string, func(runtime.Object) (string, error), func() runtime.Object,
			func() runtime.Object, storage.AttrFunc, storage.IndexerFuncs, *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
			return nil, func() {}, nil
		},
	}, nil
}
