package transform

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	crdtable "k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration"
	apiregistrationinstall "k8s.io/kube-aggregator/pkg/apis/apiregistration/install"
	apiserviceetcd "k8s.io/kube-aggregator/pkg/registry/apiservice/etcd"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"

	// The API groups kube-apiserver serves (as pkg/controlplane imports
	// them), so that every built-in object decodes and converts to its
	// internal version exactly as in the server.
	_ "k8s.io/kubernetes/pkg/apis/admission/install"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/imagepolicy/install"
	_ "k8s.io/kubernetes/pkg/apis/lifecycle/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"
)

// generator is the table generator the apiserver's printer storage wraps
// (pkg/printers/storage), with every handler of the pinned release.
var generator = printers.NewTableGenerator().With(printersinternal.AddHandlers)

// printed holds the internal types the printers have a handler for, read
// from the handlers themselves as AddHandlers registers them.
var printed = func() map[reflect.Type]bool {
	r := handlerRecorder{}
	printersinternal.AddHandlers(r)
	return r
}()

// handlerRecorder is a printers.PrintHandler that only records the type
// each handler prints.
type handlerRecorder map[reflect.Type]bool

func (r handlerRecorder) TableHandler(_ []metav1.TableColumnDefinition, printFunc interface{}) error {
	r[reflect.TypeOf(printFunc).In(0)] = true
	return nil
}

// internalStorage is how a storage of the server reads its objects into
// their internal version and renders a list of them.
type internalStorage struct {
	scheme  *runtime.Scheme
	codecs  serializer.CodecFactory
	newList func(gvk schema.GroupVersionKind) (runtime.Object, error)
	convert func(list runtime.Object) (*metav1.Table, error)
	// absoluteTimes is set for a convertor whose cells hold timestamps
	// as they are, never an age: its objects are not moved in time.
	absoluteTimes bool
	// printers is set for the printers' storage, whose tables older
	// minors printed differently (minors.go).
	printers bool
}

// decode does what the apiserver's storage codec does with an object it
// reads (versioning codec over the JSON serializer): unmarshal it into its
// versioned type, decode nested objects, apply the defaults and convert it
// to the internal version. The type is known from the list, so the codec's
// extra pass over the bytes to find it is skipped. The conversion is the
// codec's unsafe one (runtime.UnsafeObjectConvertor): the internal object
// may share memory with the versioned one, which nothing else holds.
func (s internalStorage) decode(raw []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	obj, err := s.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := unmarshal(raw, obj); err != nil {
		return nil, err
	}
	if err := checkConvertedQuantities(obj); err != nil {
		return nil, err
	}
	if d, ok := obj.(runtime.NestedObjectDecoder); ok {
		if err := d.DecodeNestedObjects(runtime.WithoutVersionDecoder{Decoder: s.codecs.UniversalDeserializer()}); err != nil {
			return nil, err
		}
	}
	s.scheme.Default(obj)
	return s.scheme.UnsafeConvertToVersion(obj, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
}

// printerStorage is every built-in storage that renders with the printers
// (pkg/printers/storage, the server always asks for the wide columns).
var printerStorage = internalStorage{
	scheme: legacyscheme.Scheme,
	codecs: legacyscheme.Codecs,
	newList: func(gvk schema.GroupVersionKind) (runtime.Object, error) {
		list, _, ok := newInternalList(gvk)
		if !ok {
			return nil, fmt.Errorf("the legacy scheme does not know %s", gvk)
		}
		return list, nil
	},
	convert: func(list runtime.Object) (*metav1.Table, error) {
		return generator.GenerateTable(list, printers.GenerateOptions{Wide: true})
	},
	printers: true,
}

// aggregatorStorage is kube-aggregator's APIService storage, which has a
// convertor of its own (Name, Service, Available, Age).
var aggregatorStorage = func() internalStorage {
	scheme := runtime.NewScheme()
	apiregistrationinstall.Install(scheme)
	return internalStorage{
		scheme:  scheme,
		codecs:  serializer.NewCodecFactory(scheme),
		newList: func(schema.GroupVersionKind) (runtime.Object, error) { return &apiregistration.APIServiceList{}, nil },
		convert: func(list runtime.Object) (*metav1.Table, error) {
			return (&apiserviceetcd.REST{}).ConvertToTable(context.Background(), list, nil)
		},
	}
}()

// definitionColumnsSince is the minor whose apiextensions gave
// CustomResourceDefinitions a convertor of their own
// (pkg/registry/customresourcedefinition/tableconvertor); older servers
// use the default convertor.
const definitionColumnsSince = 37

// definitionStorage is apiextensions' CustomResourceDefinition storage,
// which has a convertor of its own (Name, Scope, Versions, Created At,
// and wide Group, Kind, ShortNames, Established); its times are absolute.
var definitionStorage = func() internalStorage {
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	return internalStorage{
		scheme: scheme,
		codecs: serializer.NewCodecFactory(scheme),
		newList: func(schema.GroupVersionKind) (runtime.Object, error) {
			return &apiextensions.CustomResourceDefinitionList{}, nil
		},
		convert: func(list runtime.Object) (*metav1.Table, error) {
			return crdtable.New().ConvertToTable(context.Background(), list, nil)
		},
		absoluteTimes: true,
	}
}()

// storageConvertors names the resources whose storage in kube-apiserver
// 1.37.1 does not render as the rule says (printers when they have a
// handler for the kind, else the default convertor): CSIStorageCapacity
// has a printer handler but its storage sets the default convertor
// (pkg/registry/storage/csistoragecapacity/storage), APIServices are
// served by kube-aggregator and CustomResourceDefinitions by
// apiextensions, each with a convertor of its own. The conformance gate checks
// every kind against a live server.
var storageConvertors = map[schema.GroupResource]Convertor{
	{Group: "storage.k8s.io", Resource: "csistoragecapacities"}:            ConvertorDefault,
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}:             ConvertorAggregator,
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}: ConvertorDefinitions,
}

// readableVersion is the version of gvk's group at which the legacy
// scheme reads a kind it does not know at gvk's own version: a list an
// older release served at a version the pin has dropped (1.31's
// resource.k8s.io/v1alpha3 ResourceSlices, coordination.k8s.io/v1alpha1
// LeaseCandidates) is read at a version of the same major first, the
// newest first, as the release's printers read it from their own type of
// the kind; the fields the printers show kept their names. ok is false
// when the scheme knows the kind at no version of the group.
func readableVersion(gvk schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	if legacyscheme.Scheme.Recognizes(gvk) {
		return gvk, true
	}
	major := func(v string) string { return strings.TrimLeft(v, "v")[:1] }
	var best schema.GroupVersionKind
	found := false
	for _, gv := range legacyscheme.Scheme.PrioritizedVersionsForGroup(gvk.Group) {
		c := gv.WithKind(gvk.Kind)
		if !legacyscheme.Scheme.Recognizes(c) {
			continue
		}
		if !found {
			best, found = c, true
			continue
		}
		if sameMajor, bestSameMajor := major(c.Version) == major(gvk.Version), major(best.Version) == major(gvk.Version); sameMajor != bestSameMajor {
			if sameMajor {
				best = c
			}
			continue
		}
		if version.CompareKubeAwareVersionStrings(c.Version, best.Version) > 0 {
			best = c
		}
	}
	return best, found
}

// newInternalList returns an empty internal list of a built-in kind
// served at gvk, and whether the printers render it; ok is false when the
// legacy scheme does not know the kind at that version, which leaves it
// to the default convertor.
func newInternalList(gvk schema.GroupVersionKind) (list runtime.Object, withPrinter bool, ok bool) {
	if !legacyscheme.Scheme.Recognizes(gvk) {
		return nil, false, false
	}
	list, err := legacyscheme.Scheme.New(schema.GroupVersionKind{Group: gvk.Group, Version: runtime.APIVersionInternal, Kind: gvk.Kind + "List"})
	if err != nil {
		return nil, false, false
	}
	return list, printed[reflect.TypeOf(list)], true
}
