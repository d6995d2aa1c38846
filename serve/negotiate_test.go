package serve

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// A remembered answer is the answer: every header gets the same target
// and error the first time (negotiated) and the next (remembered), and
// kubectl's, negotiated once for all, the Table it asks for first.
func TestNegotiationRemembered(t *testing.T) {
	if kubectlTarget != (target{kind: "Table", groupVersion: metaV1}) {
		t.Errorf("kubectl's Accept negotiates to %+v", kubectlTarget)
	}
	for _, accept := range []string{
		"",
		"application/json",
		kubectlAccept,
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
		"application/json;as=Table;v=v1beta1;g=meta.k8s.io",
		"application/vnd.kubernetes.protobuf",
		"application/json;as=Pod;v=v1;g=",
		"*/*",
	} {
		want, wantErr := negotiateAccept(accept)
		for range 2 {
			r := httptest.NewRequest("GET", "/api/v1/pods", nil)
			r.Header.Set("Accept", accept)
			got, err := negotiateResource(r)
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("Accept %q: %+v, %v; want %+v, %v", accept, got, err, want, wantErr)
			}
		}
	}
}

// Arbitrary headers do not grow what is remembered past its bounds.
func TestNegotiationBounded(t *testing.T) {
	long := "application/json," + strings.Repeat("x", maxNegotiatedAccept)
	for i := range 2 * maxNegotiated {
		for _, accept := range []string{fmt.Sprintf("application/json;q=0.%d", i), long + fmt.Sprint(i)} {
			r := httptest.NewRequest("GET", "/api/v1/pods", nil)
			r.Header.Set("Accept", accept)
			if _, err := negotiateResource(r); err != nil {
				t.Fatalf("Accept %.40q: %v", accept, err)
			}
		}
	}
	n := 0
	negotiated.Range(func(k, _ any) bool {
		n++
		if len(k.(string)) > maxNegotiatedAccept {
			t.Errorf("remembered a header of %d bytes", len(k.(string)))
		}
		return true
	})
	if n > maxNegotiated || int(negotiated.size.Load()) != n {
		t.Errorf("%d headers remembered, counted %d; at most %d", n, negotiated.size.Load(), maxNegotiated)
	}
}
