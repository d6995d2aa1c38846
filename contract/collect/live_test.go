package collect_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/test/localtest"
)

// startCluster starts a local kube-apiserver for the test and fills it
// with the fixture objects.
func startCluster(t *testing.T) *rest.Config {
	t.Helper()
	c := localtest.Start(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	createFixtures(ctx, t, cfg)
	return cfg
}

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// createFixtures makes namespaces (one left empty), pods with a status set
// through the status subresource (one restarted), a ReplicaSet, a Secret
// applied with kubectl's last-applied annotation, and a CRD with printer
// columns and selectable fields with custom resources in two namespaces.
func createFixtures(ctx context.Context, t *testing.T, cfg *rest.Config) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"team-a", "team-b", "empty"} {
		must(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}))
	}
	must(cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, metav1.CreateOptions{}))
	web := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "team-a", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "nginx"}, {Name: "sidecar", Image: "busybox"}}},
	}
	web, err := cs.CoreV1().Pods("team-a").Create(ctx, web, metav1.CreateOptions{})
	must(web, err)
	web.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.5", ContainerStatuses: []corev1.ContainerStatus{
		{Name: "app", Ready: true, RestartCount: 2, Image: "nginx", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}},
		{Name: "sidecar", Ready: true, Image: "busybox", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}},
	}}
	must(cs.CoreV1().Pods("team-a").UpdateStatus(ctx, web, metav1.UpdateOptions{}))
	must(cs.CoreV1().Pods("team-b").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "job-x", Namespace: "team-b"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "job", Image: "busybox"}}},
	}, metav1.CreateOptions{}))
	replicas := int32(2)
	must(cs.AppsV1().ReplicaSets("team-a").Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-7d9f8b6c5", Namespace: "team-a"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}},
	}, metav1.CreateOptions{}))
	applied := `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"annotations":{},"name":"db","namespace":"team-a"}}` + "\n"
	must(cs.CoreV1().Secrets("team-a").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "team-a", Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": applied}},
		Data:       map[string][]byte{"password": []byte("hunter2"), "user": []byte("admin")},
	}, metav1.CreateOptions{}))
	createWidgets(ctx, t, cfg)
}

func createWidgets(ctx context.Context, t *testing.T, cfg *rest.Config) {
	t.Helper()
	ext := apiextensionsclient.NewForConfigOrDie(cfg)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"color": {Type: "string"}, "size": {Type: "integer"}}},
					}}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Color", Type: "string", JSONPath: ".spec.color"},
					{Name: "Size", Type: "integer", JSONPath: ".spec.size", Priority: 1},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
				SelectableFields: []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}},
			}},
		},
	}
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	for _, w := range []struct{ ns, name, color string }{{"team-a", "blue-1", "blue"}, {"team-a", "red-1", "red"}, {"team-b", "green-1", "green"}} {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": w.name, "namespace": w.ns},
			"spec":     map[string]any{"color": w.color, "size": int64(3)},
		}}
		// The CRD is served a moment after it is created.
		var err error
		for range 100 {
			if _, err = dyn.Resource(widgetsGVR).Namespace(w.ns).Create(ctx, obj, metav1.CreateOptions{}); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("creating widget %s/%s: %v", w.ns, w.name, err)
		}
	}
}
