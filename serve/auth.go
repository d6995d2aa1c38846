package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authenticationv1alpha1 "k8s.io/api/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/bundlectl/bundlectl/serve/index"
)

// The self-reviews are the only requests a read-only server accepts a
// POST for: `kubectl auth can-i`, `kubectl auth whoami`, k9s and Headlamp
// ask them before they list anything. Reads are allowed and everything
// else denied, which is exactly what the server does.

// Username is who `kubectl auth whoami` says the client is.
const Username = "bundlectl"

type reviewKind int

const (
	accessReview reviewKind = iota
	rulesReview
	selfReview
)

var reviews = func() map[schema.GroupVersionResource]reviewKind {
	m := map[schema.GroupVersionResource]reviewKind{}
	for _, v := range []string{"v1", "v1beta1"} {
		m[schema.GroupVersionResource{Group: "authorization.k8s.io", Version: v, Resource: "selfsubjectaccessreviews"}] = accessReview
		m[schema.GroupVersionResource{Group: "authorization.k8s.io", Version: v, Resource: "selfsubjectrulesreviews"}] = rulesReview
	}
	for _, v := range []string{"v1", "v1beta1", "v1alpha1"} {
		m[schema.GroupVersionResource{Group: "authentication.k8s.io", Version: v, Resource: "selfsubjectreviews"}] = selfReview
	}
	return m
}()

var reviewKinds = map[reviewKind]string{accessReview: "SelfSubjectAccessReview", rulesReview: "SelfSubjectRulesReview", selfReview: "SelfSubjectReview"}

// readVerbs are the verbs a snapshot can answer.
var readVerbs = map[string]bool{"get": true, "list": true, "watch": true}

func (s *server) serveReview(w http.ResponseWriter, r *http.Request, kind reviewKind, gv schema.GroupVersion) error {
	gr := schema.GroupResource{Group: gv.Group, Resource: map[reviewKind]string{accessReview: "selfsubjectaccessreviews", rulesReview: "selfsubjectrulesreviews", selfReview: "selfsubjectreviews"}[kind]}
	if r.Method != http.MethodPost {
		return withAllow(apierrors.NewMethodNotSupported(gr, r.Method), "POST")
	}
	if err := negotiatePlain(r); err != nil {
		return err
	}
	review, err := decodeReview(r)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("decoding the %s: %v", reviewKinds[kind], err))
	}
	review["kind"], review["apiVersion"] = reviewKinds[kind], gv.String()
	switch kind {
	case accessReview:
		verb := reviewVerb(review)
		status := map[string]any{"allowed": readVerbs[verb]}
		if readVerbs[verb] {
			status["reason"] = index.ReadOnly + ": reads are allowed"
		} else {
			status["denied"] = true
			status["reason"] = fmt.Sprintf("%s: %s is not allowed", index.ReadOnly, verb)
		}
		review["status"] = status
	case rulesReview:
		review["status"] = map[string]any{
			"resourceRules":    []any{map[string]any{"verbs": []string{"get", "list", "watch"}, "apiGroups": []string{"*"}, "resources": []string{"*"}}},
			"nonResourceRules": []any{map[string]any{"verbs": []string{"get"}, "nonResourceURLs": []string{"*"}}},
			"incomplete":       false,
		}
	case selfReview:
		review["status"] = map[string]any{"userInfo": map[string]any{"username": Username, "groups": []string{"system:authenticated"}}}
	}
	out, err := json.Marshal(review)
	if err != nil {
		return err
	}
	b := &body{}
	b.add(append(out, '\n'))
	respond(w, r, http.StatusCreated, jsonType, b, nil, "")
	return nil
}

// reviewScheme decodes the reviews in JSON and in protobuf, which
// kubectl's typed clients send.
var reviewScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		authorizationv1.AddToScheme, authorizationv1beta1.AddToScheme,
		authenticationv1.AddToScheme, authenticationv1beta1.AddToScheme, authenticationv1alpha1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	return s
}()

var reviewDecoder = serializer.NewCodecFactory(reviewScheme).UniversalDeserializer()

// decodeReview reads the posted review as a generic object.
func decodeReview(r *http.Request) (map[string]any, error) {
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	obj, _, err := reviewDecoder.Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// reviewVerb reads spec.resourceAttributes.verb, or the non-resource verb.
func reviewVerb(review map[string]any) string {
	spec, _ := review["spec"].(map[string]any)
	for _, k := range []string{"resourceAttributes", "nonResourceAttributes"} {
		if attrs, ok := spec[k].(map[string]any); ok {
			v, _ := attrs["verb"].(string)
			return v
		}
	}
	return ""
}
