package serve

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/serve/index"
)

// A single GET's Table carries the ListMeta json.Marshal would write.
func TestObjectListMeta(t *testing.T) {
	for _, rv := range []string{"", "12345", `a"b\<&>` + "\u2028\x01"} {
		want, _ := json.Marshal(metav1.ListMeta{ResourceVersion: rv})
		if got := objectListMeta(&index.Object{ResourceVersion: rv}); string(got) != string(want) {
			t.Errorf("resourceVersion %q: %s, want %s", rv, got, want)
		}
	}
}

// quote agrees with json.Marshal on every byte and on text that needs
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
	}
}
