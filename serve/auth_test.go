package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/bundlectl/bundlectl/serve/index"
)

func TestAuthentication(t *testing.T) {
	srv := testServer(t)
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/readyz/ping"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "ok" {
			t.Errorf("%s without a token: %d %q", path, resp.StatusCode, body)
		}
	}
	// A path that only begins like a probe is not one.
	for _, path := range []string{"/healthzz", "/livez-x", "/readyzping"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without a token: %d, want 401", path, resp.StatusCode)
		}
	}
	// The scheme is matched in any case, and what follows the token
	// after a space ignored, as the server's bearer token authenticator
	// does.
	for _, auth := range []string{"Bearer " + testToken, "bearer " + testToken, "BEARER " + testToken + " ", " Bearer " + testToken, "Bearer " + testToken + " more"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/namespaces/default/pods/web-1", nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Authorization %q: %d", auth, resp.StatusCode)
		}
	}
	for _, auth := range []string{"", "Bearer wrong", "Basic " + testToken, "Bearer", "Bearer " + testToken + "x", "Bearer  " + testToken, "Token " + testToken, "Bearer " + testToken[:len(testToken)-1], "Bearer " + strings.Repeat(testToken, 20)} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/pods", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantStatus(t, response{code: resp.StatusCode, body: string(body)}, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
	}
}

// post sends a review as JSON or, as kubectl's typed clients do, protobuf.
func post(t *testing.T, url, contentType string, body []byte) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf, */*")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSelfSubjectAccessReview(t *testing.T) {
	srv := testServer(t)
	url := srv.URL + "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	for _, tc := range []struct {
		verb    string
		allowed bool
	}{{"list", true}, {"get", true}, {"watch", true}, {"delete", false}, {"create", false}, {"patch", false}} {
		review := &authorizationv1.SelfSubjectAccessReview{
			TypeMeta: metav1.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"},
			Spec:     authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: tc.verb, Resource: "pods", Namespace: "default"}},
		}
		var pb bytes.Buffer
		if err := protobuf.NewSerializer(reviewScheme, reviewScheme).Encode(review, &pb); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(review)
		for ct, body := range map[string][]byte{"application/vnd.kubernetes.protobuf": pb.Bytes(), "application/json": js} {
			got := post(t, url, ct, body)
			status := got["status"].(map[string]any)
			if got["kind"] != "SelfSubjectAccessReview" || status["allowed"] != tc.allowed {
				t.Errorf("%s (%s): %v", tc.verb, ct, got)
			}
			if !tc.allowed && !strings.Contains(status["reason"].(string), "read-only") {
				t.Errorf("%s: reason %v", tc.verb, status["reason"])
			}
		}
	}
}

func TestOtherReviews(t *testing.T) {
	srv := testServer(t)
	rules := post(t, srv.URL+"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", "application/json",
		[]byte(`{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","spec":{"namespace":"default"}}`))
	rr, _ := json.Marshal(rules["status"].(map[string]any)["resourceRules"])
	if string(rr) != `[{"apiGroups":["*"],"resources":["*"],"verbs":["get","list","watch"]}]` {
		t.Errorf("rules %s", rr)
	}
	who := post(t, srv.URL+"/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
		[]byte(`{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1"}`))
	if u := who["status"].(map[string]any)["userInfo"].(map[string]any); u["username"] != Username {
		t.Errorf("whoami %v", u)
	}
	r := get(t, srv, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
	wantStatus(t, r, http.StatusMethodNotAllowed, "MethodNotAllowed", "")
	if r.header.Get("Allow") != "POST" {
		t.Errorf("Allow %q", r.header.Get("Allow"))
	}
}

func TestWritesRefused(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		method, path, msg string
	}{
		{http.MethodPost, "/api/v1/namespaces/default/pods", "create is not allowed on pods: " + index.ReadOnly},
		{http.MethodPut, "/api/v1/namespaces/default/pods/web-1", `update is not allowed on pods "web-1": ` + index.ReadOnly},
		{http.MethodPatch, "/apis/apps/v1/namespaces/default/deployments/web", `patch is not allowed on deployments.apps "web": ` + index.ReadOnly},
		{http.MethodDelete, "/api/v1/namespaces/default/pods/web-1", `delete is not allowed on pods "web-1": ` + index.ReadOnly},
		{http.MethodDelete, "/api/v1/namespaces/default/pods", "deletecollection is not allowed on pods: " + index.ReadOnly},
		{http.MethodPut, "/apis/apps/v1/namespaces/default/deployments/web/scale", `update is not allowed on deployments.apps "web": ` + index.ReadOnly},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web-1/eviction", ""},
	} {
		r := do(t, srv, tc.method, tc.path)
		if tc.msg == "" {
			// Not in discovery: no route.
			wantStatus(t, r, http.StatusNotFound, "NotFound", "")
			continue
		}
		wantStatus(t, r, http.StatusMethodNotAllowed, "MethodNotAllowed", tc.msg)
		if r.header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", tc.method, tc.path, r.header.Get("Allow"))
		}
	}
}

func TestConnectRefused(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		method, path, what string
	}{
		{http.MethodPost, "/api/v1/namespaces/default/pods/web-1/exec?command=ls&stdout=true", "exec"},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web-1/exec?command=ls", "exec"},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web-1/attach", "attach"},
		{http.MethodPost, "/api/v1/namespaces/default/pods/web-1/portforward", "portforward"},
		{http.MethodGet, "/api/v1/namespaces/default/pods/web-1/proxy/healthz", "proxy"},
		{http.MethodGet, "/api/v1/proxy/namespaces/default/pods/web-1", "proxying"},
		{http.MethodGet, "/apis/apps/v1/namespaces/default/deployments/web/scale", "the scale subresource"},
	} {
		r := do(t, srv, tc.method, tc.path, "Connection: Upgrade", "Upgrade: SPDY/3.1")
		wantStatus(t, r, http.StatusBadRequest, "BadRequest", "")
		if !strings.HasPrefix(decode(t, r)["message"].(string), tc.what+" is not available for ") {
			t.Errorf("%s: %s", tc.path, r.body)
		}
	}
}
