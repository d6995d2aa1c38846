package transform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// The generated benchmark bundles are loaded into a real kube-apiserver
// later, so every object must decode with the server's scheme (defaults
// applied, converted to the internal version) and pass the server's own
// create and status validation, with the options its registry passes.
func TestGeneratedBundleIsValid(t *testing.T) {
	spec := contracttest.Small()
	path := filepath.Join(t.TempDir(), contracttest.BundleRoot(spec.CollectedAt)+".tar.gz")
	stats, err := contracttest.WriteBundleFile(path, spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	decoder := legacyscheme.Codecs.UniversalDecoder()
	counts := map[string]int{}
	err = b.Walk(func(e *contract.Entry) error {
		if e.Class.Class != contract.ClassResourceList {
			return nil
		}
		list, err := e.DecodeList()
		if err != nil {
			t.Error(err)
			return nil
		}
		for i, raw := range list.Items {
			where := fmt.Sprintf("%s item %d", e.Rel, i)
			if err := strictDecode(raw, e.Class.Kind); err != nil {
				t.Errorf("%s: %v", where, err)
			}
			obj, err := runtime.Decode(decoder, raw)
			if err != nil {
				t.Errorf("%s: decode: %v", where, err)
				continue
			}
			counts[e.Class.Kind]++
			for _, fe := range validate(obj) {
				t.Errorf("%s: %s", where, fe)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for kind, n := range stats.Objects {
		if counts[kind] != n {
			t.Errorf("%d %s objects validated, the generator wrote %d", counts[kind], kind, n)
		}
	}
}

// strictDecode refuses fields the v1 types do not have: the generator
// must write only what a real server could return.
func strictDecode(raw json.RawMessage, kind string) error {
	var into any
	switch kind {
	case "Pod":
		into = &corev1.Pod{}
	case "Node":
		into = &corev1.Node{}
	case "Namespace":
		into = &corev1.Namespace{}
	case "Service":
		into = &corev1.Service{}
	case "Event":
		into = &corev1.Event{}
	case "Deployment":
		into = &appsv1.Deployment{}
	case "ReplicaSet":
		into = &appsv1.ReplicaSet{}
	default:
		return fmt.Errorf("unexpected kind %q", kind)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(into)
}

// validate runs what the apiserver's registry runs on create (and on the
// status update that filled the status in), plus the generic object meta
// checks of rest.BeforeCreate.
func validate(obj runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if accessor, err := metaAccessor(obj); err == nil {
		errs = append(errs, genericvalidation.ValidateObjectMetaAccessor(accessor, accessor.GetNamespace() != "", path.ValidatePathSegmentName, field.NewPath("metadata"))...)
	}
	switch o := obj.(type) {
	case *core.Pod:
		opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&o.Spec, nil, &o.ObjectMeta, nil)
		errs = append(errs, corevalidation.ValidatePodCreate(o, opts)...)
		// The status as the kubelet wrote it over the pod as created.
		created := o.DeepCopy()
		created.Status = core.PodStatus{Phase: core.PodPending, QOSClass: o.Status.QOSClass}
		errs = append(errs, corevalidation.ValidatePodStatusUpdate(o, created, opts)...)
	case *core.Node:
		errs = append(errs, corevalidation.ValidateNode(o)...)
		errs = append(errs, corevalidation.ValidateNodeUpdate(o, o)...)
	case *core.Namespace:
		errs = append(errs, corevalidation.ValidateNamespace(o)...)
	case *core.Service:
		errs = append(errs, corevalidation.ValidateServiceCreate(o)...)
		errs = append(errs, corevalidation.ValidateServiceStatusUpdate(o, o)...)
	case *core.Event:
		errs = append(errs, corevalidation.ValidateEventCreate(o, schema.GroupVersion{Version: "v1"})...)
	case *apps.Deployment:
		opts := podutil.GetValidationOptionsFromPodTemplate(&o.Spec.Template, nil)
		errs = append(errs, appsvalidation.ValidateDeployment(o, opts)...)
		errs = append(errs, appsvalidation.ValidateDeploymentStatusUpdate(o, o)...)
	case *apps.ReplicaSet:
		opts := podutil.GetValidationOptionsFromPodTemplate(&o.Spec.Template, nil)
		errs = append(errs, appsvalidation.ValidateReplicaSet(o, opts)...)
		errs = append(errs, appsvalidation.ValidateReplicaSetStatusUpdate(o, o)...)
	default:
		errs = append(errs, field.InternalError(nil, fmt.Errorf("no validation for %T", obj)))
	}
	return errs
}

func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	if o, ok := obj.(metav1.Object); ok {
		return o, nil
	}
	return nil, fmt.Errorf("%T has no object meta", obj)
}

// bundlectl upgrade takes a generated bundle without a problem: a table
// beside every list and discovery from groups.json and resources.json.
func TestUpgradeGeneratedBundle(t *testing.T) {
	spec := contracttest.Small()
	dir := t.TempDir()
	src := filepath.Join(dir, contracttest.BundleRoot(spec.CollectedAt)+".tar.gz")
	stats, err := contracttest.WriteBundleFile(src, spec)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "upgraded.tar.gz")
	sum, err := transform.Upgrade(context.Background(), transform.Options{Source: src, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Problems) != 0 {
		t.Errorf("problems: %+v", sum.Problems)
	}
	if !sum.CollectedAt.Equal(spec.CollectedAt) || sum.CollectedAtSource != contract.TimeFromFolderName {
		t.Errorf("collected at %v from %s, want %v from the folder name", sum.CollectedAt, sum.CollectedAtSource, spec.CollectedAt)
	}
	if sum.EntriesCopied != stats.Entries || sum.Discovery != "synthesized" {
		t.Errorf("copied %d of %d entries, discovery %s", sum.EntriesCopied, stats.Entries, sum.Discovery)
	}
	lists := 2 + 5*spec.Namespaces // namespaces, nodes; pods, deployments, replicasets, services, events per namespace
	if sum.Tables() != lists {
		t.Errorf("%d tables (%v), want one per list (%d)", sum.Tables(), sum.TablesSynthesized, lists)
	}
	b, err := contract.Open(dest, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 || rep.Schema == "legacy" {
		t.Errorf("the upgraded bundle: schema %s, problems %+v", rep.Schema, rep.Problems)
	}
	for _, r := range rep.Resources {
		if r.Tables != r.Lists {
			t.Errorf("%s: %d tables for %d lists", strings.Join([]string{r.Group, r.Version, r.Resource}, "/"), r.Tables, r.Lists)
		}
	}
}
