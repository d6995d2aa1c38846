package transform

import (
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"

	"github.com/bundlectl/bundlectl/internal/rawjson"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// serverUnmarshal is what the apiserver's JSON serializer does with an
// object's bytes when it is not strict, as its storage codec is not
// (k8s.io/apimachinery/pkg/runtime/serializer/json, Serializer.unmarshal).
func serverUnmarshal(raw []byte, obj any) error {
	return sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj)
}

// sameDecode decodes raw into a new value of obj's type both ways and
// says how they differ, or "" if they do not.
func sameDecode(raw []byte, typ reflect.Type) string {
	ours, theirs := reflect.New(typ).Interface(), reflect.New(typ).Interface()
	err := jsonv2.Unmarshal(raw, ours, decodeOptions)
	serr := serverUnmarshal(raw, theirs)
	switch {
	case (err == nil) != (serr == nil):
		return fmt.Sprintf("decoded with error %v, the server's decoder with error %v", err, serr)
	case err != nil:
		return ""
	case !reflect.DeepEqual(ours, theirs):
		o, _ := json.Marshal(ours)
		s, _ := json.Marshal(theirs)
		return fmt.Sprintf("decoded differently:\n ours  %s\n server %s", o, s)
	}
	// Written again, as rows and converted objects are.
	o, err := marshal(ours)
	s, serr := json.Marshal(theirs)
	if (err == nil) != (serr == nil) || !bytes.Equal(o, s) {
		return fmt.Sprintf("encoded differently:\n ours  %s (%v)\n encoding/json %s (%v)", o, err, s, serr)
	}
	return ""
}

// Every object an upgrade decodes, in every bundle at hand (the real
// corpus, the live recordings of every minor, the example bundle, a
// generated bundle), decodes to the same value as with the apiserver's
// own decoder, or fails with both.
func TestDecodeIsTheServersDecode(t *testing.T) {
	var bundles []string
	corpus := contracttest.CorpusDir(t)
	for _, rb := range contracttest.RealBundles {
		bundles = append(bundles, filepath.Join(corpus, rb.Path))
	}
	live, err := filepath.Glob(filepath.Join("..", "testdata", "live", "1.*", "bundle.tar.gz"))
	if err != nil || len(live) < 18 {
		t.Fatalf("live recordings: %v, %v", live, err)
	}
	bundles = append(bundles, live...)
	bundles = append(bundles, filepath.Join("..", "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00"))
	generated := filepath.Join(t.TempDir(), contracttest.BundleRoot(contracttest.GeneratedAt)+".tar.gz")
	spec := contracttest.Large()
	spec.Pods, spec.Events = 500, 200
	if _, err := contracttest.WriteBundleFile(generated, spec); err != nil {
		t.Fatal(err)
	}
	bundles = append(bundles, generated)

	var mu sync.Mutex
	decoded := map[string]int{}
	var differences []string
	ours := unmarshal
	t.Cleanup(func() { unmarshal = ours })
	unmarshal = func(raw []byte, obj runtime.Object) error {
		typ := reflect.TypeOf(obj).Elem()
		diff := sameDecode(raw, typ)
		mu.Lock()
		decoded[typ.String()]++
		if diff != "" {
			differences = append(differences, fmt.Sprintf("%s %.200s: %s", typ, raw, diff))
		}
		mu.Unlock()
		return ours(raw, obj)
	}
	for _, in := range bundles {
		opts := Options{Source: in, Dest: filepath.Join(t.TempDir(), "out.tar.gz"), Force: true}
		if fi, err := os.Stat(in); err == nil && fi.IsDir() {
			opts.CollectedAt = time.Date(2022, 4, 13, 0, 0, 0, 0, time.UTC)
		}
		if _, err := Upgrade(context.Background(), opts); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	for _, d := range differences {
		t.Error(d)
	}
	kinds := make([]string, 0, len(decoded))
	total := 0
	for k, n := range decoded {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		total += n
	}
	sort.Strings(kinds)
	// Every built-in kind the fixtures hold, at every minor.
	if len(decoded) < 60 || total < 5000 {
		t.Errorf("only %d objects of %d types were decoded:\n%s", total, len(decoded), strings.Join(kinds, "\n"))
	}
}

// The decoders differ in what they make of a number decoded into an
// interface value (PreserveInts makes it an int64): no type the upgrade
// decodes into has one, except behind a decoding method of its own. And
// where encoding/json quietly ignores a struct's conflicting names or
// malformed tags, decodeOptions report an error: every struct type the
// upgrade decodes into must have none.
func TestDecodedTypesHoldNoInterface(t *testing.T) {
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler := reflect.TypeFor[encoding.TextUnmarshaler]()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if reflect.PointerTo(typ).Implements(unmarshaler) || reflect.PointerTo(typ).Implements(textUnmarshaler) {
			return
		}
		switch typ.Kind() {
		case reflect.Interface:
			t.Errorf("%s is an interface value", path)
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(typ.Elem(), path+"[]")
		case reflect.Map:
			walk(typ.Key(), path+"{key}")
			walk(typ.Elem(), path+"{}")
		case reflect.Struct:
			if err := jsonv2.Unmarshal([]byte("{}"), reflect.New(typ).Interface(), decodeOptions); err != nil {
				t.Errorf("%s (%s): %v", path, typ, err)
			}
			for i := range typ.NumField() {
				if f := typ.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
					walk(f.Type, path+"."+f.Name)
				}
			}
		}
	}
	n := 0
	for _, s := range []internalStorage{printerStorage, aggregatorStorage, definitionStorage} {
		for gvk, typ := range s.scheme.AllKnownTypes() {
			if gvk.Version != runtime.APIVersionInternal {
				walk(typ, gvk.String())
				n++
			}
		}
	}
	if n < 300 {
		t.Errorf("only %d types walked", n)
	}
}

// FuzzDecodeIsTheServersDecode holds the decoder to the apiserver's on
// any bytes, into types that between them have every kind of field:
// quantities (plain and behind pointers), times, int-or-strings, bytes,
// maps, raw extensions, embedded and inline structs, and CRD schemas
// with their own decoding methods.
func FuzzDecodeIsTheServersDecode(f *testing.F) {
	types := decodeFuzzTypes()
	for _, seed := range []string{
		`{"metadata":{"name":"a","namespace":"d","labels":{"a":"b"},"creationTimestamp":"2025-11-20T09:00:00Z"},` +
			`"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"1","memory":"1Gi"}},"ports":[{"containerPort":80}]}],` +
			`"volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi"}}]},"status":{"phase":"Running","startTime":"2025-11-20T09:00:00Z"}}`,
		`{"metadata":{"name":"a"},"status":{"capacity":{"cpu":4,"memory":"1.5Gi"},"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":null}]}}`,
		`{"metadata":{"name":"a","name":"b","Name":"c"},"spec":{"replicas":3,"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}}}`,
		`{"metadata":{"name":"a\ud800b","annotations":{"x":"\u00e9\ufffd"}},"data":{"k":"dmFsdWU="},"stringData":null}`,
		`{"metadata":null,"spec":{"template":null,"selector":{"matchLabels":null}},"status":{"readyReplicas":1.0}}`,
		`{"metadata":{"name":"a"},"revision":3,"data":{"spec":{"x":1}}}`,
		`{"metadata":{"name":"w.example.com"},"spec":{"group":"example.com","names":{"plural":"w","kind":"W"},"scope":"Namespaced",` +
			`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,` +
			`"properties":{"a":{"type":"integer","default":1.5,"enum":[1,"a",null]}}}}}]}}`,
		`{"metadata":{"name":"a","deletionTimestamp":null,"creationTimestamp":"2025-11-20T09:00:00+02:00"},` +
			`"status":{"startTime":"2025-11-20T09:00:00\u005a","conditions":[{"type":"Ready","lastTransitionTime":"2025-11-20T09:00:00.5Z"}]}}`,
		`{"metadata":{"name":"a"},"spec":{"strategy":{"rollingUpdate":{"maxSurge":"\u0032\u0035%","maxUnavailable":null}},` +
			`"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}],"readinessProbe":{"httpGet":{"port":"http"},"tcpSocket":{"port":8080}}}]}}}}`,
		`{"metadata":{"name":"a","creationTimestamp":"20 Nov 2025"},"status":{"conditions":[{"lastProbeTime":5}]}}`,
		`{"metadata":{"name":"a"},"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"AverageValue","averageValue":"100m"}}}]}}`,
	} {
		for i := range types {
			f.Add(byte(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		if rawjson.Check(data) != nil {
			return // refused before any item is decoded
		}
		typ := types[int(which)%len(types)]
		if diff := sameDecode(data, typ); diff != "" {
			t.Errorf("%s %q: %s", typ, data, diff)
		}
	})
}

// decodeFuzzTypes are the types FuzzDecodeIsTheServersDecode decodes into.
func decodeFuzzTypes() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[corev1.Pod](), reflect.TypeFor[corev1.Node](), reflect.TypeFor[corev1.Secret](),
		reflect.TypeFor[corev1.Service](), reflect.TypeFor[corev1.PersistentVolume](), reflect.TypeFor[corev1.LimitRange](),
		reflect.TypeFor[appsv1.Deployment](), reflect.TypeFor[appsv1.ControllerRevision](), reflect.TypeFor[batchv1.Job](),
		reflect.TypeFor[autoscalingv1.HorizontalPodAutoscaler](), reflect.TypeFor[autoscalingv2.HorizontalPodAutoscaler](),
		reflect.TypeFor[eventsv1.Event](), reflect.TypeFor[networkingv1.Ingress](), reflect.TypeFor[rbacv1.ClusterRole](),
		reflect.TypeFor[apiextensionsv1.CustomResourceDefinition](), reflect.TypeFor[apiextensionsv1beta1.CustomResourceDefinition](),
	}
}
