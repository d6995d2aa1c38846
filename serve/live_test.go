package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/test/localtest"
)

// TestLogErrorsLive asks the pinned kube-apiserver and serve the same
// pods/log requests that the apiserver answers before it would ask a
// kubelet (option decoding and validation, the pod, the container) and
// compares the Status of each answer whole. The local apiserver has no
// kubelet; what the kubelet answers is tested against its source
// (TestKubeletLogError).
func TestLogErrorsLive(t *testing.T) {
	c := localtest.Start(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(cfg)
	// The pods of servetest.Small that the requests name.
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"}, Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "setup", Image: "x"}},
			Containers:     []corev1.Container{{Name: "app", Image: "x"}, {Name: "sidecar", Image: "x"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "x"}}}},
	} {
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	live, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := testServer(t)
	for _, path := range []string{
		"/api/v1/namespaces/default/pods/web-1/log",
		"/api/v1/namespaces/default/pods/web-1/log?container=nope",
		"/api/v1/namespaces/default/pods/web-1/log?previous=true&container=nope",
		"/api/v1/namespaces/default/pods/nope/log",
		"/api/v1/namespaces/default/pods/nope/log?tailLines=-1",
		"/api/v1/namespaces/default/pods/web-2/log?tailLines=-1",
		"/api/v1/namespaces/default/pods/web-2/log?tailLines=-1&limitBytes=0&sinceSeconds=-3",
		"/api/v1/namespaces/default/pods/web-2/log?limitBytes=0",
		"/api/v1/namespaces/default/pods/web-2/log?sinceSeconds=0",
		"/api/v1/namespaces/default/pods/web-2/log?sinceSeconds=10&sinceTime=2025-11-20T09:00:00Z",
		"/api/v1/namespaces/default/pods/web-2/log?sinceSeconds=10&sinceTime=",
		"/api/v1/namespaces/default/pods/web-2/log?stream=Stdout",
		"/api/v1/namespaces/default/pods/web-2/log?stream=All",
		"/api/v1/namespaces/default/pods/web-2/log?tailLines=x",
		"/api/v1/namespaces/default/pods/web-2/log?limitBytes=1.5",
		"/api/v1/namespaces/default/pods/web-2/log?sinceTime=yesterday",
		"/api/v1/namespaces/default/pods/web-2/log?sinceTime=2025-11-20T09:00:00.5",
	} {
		t.Run(path, func(t *testing.T) { sameStatusAsLive(t, live, cfg.Host, srv, path) })
	}
}

// sameStatusAsLive asks the live apiserver at host and serve the same
// path, and requires the same error answer of both.
func sameStatusAsLive(t *testing.T, live *http.Client, host string, srv *httptest.Server, path string) {
	t.Helper()
	resp, err := live.Get(host + path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := liveStatus(t, resp.StatusCode, body)
	r := get(t, srv, path)
	if got := liveStatus(t, r.code, []byte(r.body)); got != want {
		t.Errorf("serve answers\n%s\nthe apiserver\n%s", got, want)
	}
}

// liveStatus is an error answer as compared: its code and its Status.
func liveStatus(t *testing.T, code int, body []byte) string {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil || s.Kind != "Status" {
		t.Fatalf("%d, not a Status: %v\n%s", code, err, body)
	}
	if code == http.StatusOK {
		t.Fatalf("200: %s", body)
	}
	out, _ := json.Marshal(s)
	return http.StatusText(code) + " " + string(out)
}

// TestBadResourceVersionLive compares the answers to gets, lists and
// watches from a resourceVersion that is not a number with the pinned
// kube-apiserver's, Status for Status: a watch must not hang where the
// server refuses (it answers 500: the storage's invalid-value error is
// no API status).
func TestBadResourceVersionLive(t *testing.T) {
	c := localtest.Start(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	live, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := testServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "x"}}}}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/api/v1/pods?watch=true&resourceVersion=garbage&timeoutSeconds=5",
		"/api/v1/namespaces/default/pods?watch=1&resourceVersion=-1&timeoutSeconds=5",
		"/api/v1/namespaces/default/pods?watch=1&resourceVersion=garbage&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5",
		"/api/v1/pods?resourceVersion=garbage",
		"/api/v1/pods?resourceVersion=garbage&resourceVersionMatch=NotOlderThan",
		"/api/v1/namespaces/default/pods/web-1?resourceVersion=garbage",
	} {
		t.Run(path, func(t *testing.T) { sameStatusAsLive(t, live, cfg.Host, srv, path) })
	}
}
