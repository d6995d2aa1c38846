package serve

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/serve/index"
)

// A single GET's Table carries the ListMeta json.Marshal would write.
func TestObjectListMeta(t *testing.T) {
	b := &body{}
	var metas [][]byte
	rvs := []string{"", "12345", `a"b\<&>` + "\u2028\x01", "67890"}
	for _, rv := range rvs {
		metas = append(metas, objectListMeta(b, &index.Object{ResourceVersion: rv}))
	}
	// Each stays what it was as the scratch is written after it.
	for i, rv := range rvs {
		want, _ := json.Marshal(metav1.ListMeta{ResourceVersion: rv})
		if string(metas[i]) != string(want) {
			t.Errorf("resourceVersion %q: %s, want %s", rv, metas[i], want)
		}
	}
}

// quote and appendQuote agree with json.Marshal on every byte and on text that needs
// escaping.
func TestQuote(t *testing.T) {
	cases := []string{"", "12345", "web-1", "a b", "ünï", "\u2028", "\xff", `a"b`, `a\b`, "<&>", "\x7f"}
	for c := range 256 {
		cases = append(cases, "x"+string(rune(c))+"y", "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := quote(s); got != string(want) {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
		if got := appendQuote([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("appendQuote(x, %q) = %s, want x%s", s, got, want)
		}
	}
}
