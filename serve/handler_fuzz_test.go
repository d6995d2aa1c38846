package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

// FuzzHandler sends arbitrary requests (method, path and query, Accept,
// with or without the token) to the handler of the small bundle. It never
// panics or answers 5xx; without the token everything but the health
// checks is 401; no write method succeeds but the self-reviews' POST (the
// health checks answer any method, as kube-apiserver's do); and
// every JSON body is JSON (one document per line for a watch). Seeds:
// testdata/fuzz/FuzzHandler and what kubectl, client-go and k9s send,
// below.
func FuzzHandler(f *testing.F) {
	for _, s := range []struct {
		method, target, accept string
	}{
		{"GET", "/api/v1/namespaces/default/pods", tableAccept[len("Accept: "):]},
		{"GET", "/api/v1/pods?labelSelector=app%3Dweb&limit=2", "application/json"},
		{"GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1,status.phase%21%3DFailed", ""},
		{"GET", "/api/v1/namespaces/default/pods?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAwMCwic3RhcnQiOiJ3ZWItMVx1MDAwMCJ9", ""},
		{"GET", "/api/v1/namespaces/default/pods/web-1", "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"},
		{"GET", "/api/v1/namespaces/default/pods/web-1/log?container=app&tailLines=2&limitBytes=10", ""},
		{"GET", "/api/v1/namespaces/default/pods/web-1/log?previous=true&container=app", ""},
		{"GET", "/api/v1/pods?watch=1&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1", ""},
		{"GET", "/api/v1/watch/namespaces/default/pods/web-1", tableAccept[len("Accept: "):]},
		{"GET", "/apis/apps/v1/namespaces/default/deployments?sendInitialEvents=true&watch=true&resourceVersionMatch=NotOlderThan", ""},
		{"GET", "/apis/example.com/v1/namespaces/default/widgets?fieldSelector=spec.color%3Dred", ""},
		{"GET", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"},
		{"GET", "/api/v1", ""},
		{"GET", "/openapi/v3", ""},
		{"GET", "/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"},
		{"GET", "/version", ""},
		{"GET", "/healthz", ""},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ""},
		{"DELETE", "/api/v1/namespaces/default/pods/web-1", ""},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale", ""},
		{"POST", "/api/v1/namespaces/default/pods/web-1/exec?command=ls", ""},
		{"GET", "/api/v1/namespaces/default/pods/web-1/proxy/x", ""},
	} {
		f.Add(s.method, s.target, s.accept, true)
	}
	f.Add("GET", "/api/v1/pods", "", false)
	x := load(f, smallBundle(f))
	stop := make(chan struct{})
	close(stop) // watches end as soon as they have sent their initial events
	h := NewHandler(x, HandlerOptions{Token: testToken, Stop: stop})
	f.Fuzz(func(t *testing.T, method, target, accept string, token bool) {
		defer servetest.FuzzWatchdog(10 * time.Second)()
		u, err := url.ParseRequestURI(target)
		if err != nil || u.Host != "" || method == "" {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := (&http.Request{Method: method, URL: u, RequestURI: target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Body: http.NoBody, Host: "127.0.0.1"}).WithContext(ctx)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if token {
			r.Header.Set("Authorization", "Bearer "+testToken)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		code, body := w.Code, w.Body.Bytes()
		path := strings.TrimSuffix(u.Path, "/")
		switch {
		case code >= 500:
			t.Fatalf("%s %s: %d %s", method, target, code, body)
		case !token && !isHealthCheck(path) && code != http.StatusUnauthorized:
			t.Fatalf("%s %s without the token: %d", method, target, code)
		case code >= 200 && code < 300 && isWrite(method) && !isHealthCheck(path) && !(method == http.MethodPost && strings.HasSuffix(path, "reviews")):
			t.Fatalf("%s %s succeeded: %d %s", method, target, code, body)
		}
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") && method != http.MethodHead && len(body) > 0 {
			if w.Header().Get("Content-Encoding") != "" {
				return
			}
			if json.Valid(body) {
				return
			}
			for _, doc := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) { // a watch
				if !json.Valid(doc) {
					t.Fatalf("%s %s: %d, invalid JSON: %.300s", method, target, code, doc)
				}
			}
		}
	})
}

func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodConnect:
		return false
	}
	return true
}
