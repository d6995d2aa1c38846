package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/serve/index"
)

// Errors are metav1.Status objects with the reason, code and details the
// real server sends, because clients branch on them: kubectl prints
// `Error from server (NotFound): pods "x" not found` from the message and
// reason, and informers and discovery treat 404, 405 and 406 differently.

// writeError is the one place that turns what a handler returns into an
// answer: an API error is its Status (errors that are not become 500s, as
// in the server's ErrorToAPIStatus); withAllow adds the Allow header;
// errNotFoundPage is the HTTP mux's plain-text 404, and
// errDocumentNotAcceptable a bare 406.
func writeError(w http.ResponseWriter, err error) {
	var allowed *allowError
	if errors.As(err, &allowed) {
		w.Header().Set("Allow", allowed.methods)
		err = allowed.err
	}
	switch {
	case errors.Is(err, errNotFoundPage):
		http.NotFound(w, nil)
		return
	case errors.Is(err, errDocumentNotAcceptable):
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	var s apierrors.APIStatus
	var status metav1.Status
	if errors.As(err, &s) {
		status = s.Status()
	} else {
		status = metav1.Status{Code: http.StatusInternalServerError, Message: err.Error()}
	}
	writeStatus(w, &status)
}

func writeStatus(w http.ResponseWriter, status *metav1.Status) {
	status.Kind, status.APIVersion = "Status", "v1"
	if status.Status == "" {
		status.Status = metav1.StatusFailure
	}
	data, err := json.Marshal(status)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	setHeaders(w.Header(), jsonType)
	w.WriteHeader(int(status.Code))
	w.Write(append(data, '\n'))
}

// errNotFoundPage is the server's answer for a path outside every API (an
// unknown group included): its HTTP mux's plain-text 404.
var errNotFoundPage = errors.New("404 page not found")

// errDocumentNotAcceptable is kube-openapi's answer when no clause of
// Accept names a form of an OpenAPI document: a 406 without a body.
var errDocumentNotAcceptable = errors.New("not acceptable")

// allowError is an error answered with the Allow header.
type allowError struct {
	err     error
	methods string
}

func (e *allowError) Error() string { return e.err.Error() }
func (e *allowError) Unwrap() error { return e.err }

// withAllow answers err with the Allow header naming methods.
func withAllow(err error, methods string) error { return &allowError{err: err, methods: methods} }

// errNoRoute is what the server answers for a path no API serves (an
// unknown resource in a known group version, an unknown group version):
// go-restful's 404 turned into a Status with empty details.
func errNoRoute() error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false)
}

// errReadOnly refuses a write with 405 and the resource it was aimed at.
func errReadOnly(verb string, gr schema.GroupResource, name string) *apierrors.StatusError {
	target := gr.String()
	if name != "" {
		target = fmt.Sprintf("%s %q", gr, name)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Message: fmt.Sprintf("%s is not allowed on %s: %s", verb, target, index.ReadOnly),
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: name},
	}}
}

// errMethodNotAllowed is the server's generic 405, for a method it has no
// route for on a path (PUT on a collection, DELETE on a resource that
// cannot be deleted).
func errMethodNotAllowed() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Message: "the server does not allow this method on the requested resource",
		Details: &metav1.StatusDetails{},
	}}
}

// errNotAcceptable is the 406 of content negotiation.
func errNotAcceptable(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: msg,
	}}
}

// errNotServed answers the subresources a snapshot cannot provide (exec,
// attach, port forwarding, proxying, scale...) at once, so that clients do
// not wait for a connection upgrade that never comes.
func errNotServed(what string, gr schema.GroupResource, name string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusBadRequest,
		Reason:  metav1.StatusReasonBadRequest,
		Message: fmt.Sprintf("%s is not available for %s %q: %s, there is no live cluster behind it", what, gr, name, index.ReadOnly),
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: name},
	}}
}
