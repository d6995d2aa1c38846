package contract_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// TestHostileCorpus reads every bundle of the hostile corpus as a reader
// of the contract does (open, walk, read and decode each list, check its
// kinds): a refused bundle is an error naming its entry, and a failsafe
// case opens and fails only on its own entry, as inspect reports it; an
// accepted one opens and reads with no problem.
func TestHostileCorpus(t *testing.T) {
	dir := t.TempDir()
	corpus, err := contracttest.WriteHostileCorpus(dir, contracttest.HostileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range corpus {
		t.Run(h.Name, func(t *testing.T) {
			b, err := contract.Open(h.Path, contract.DefaultLimits)
			if !h.Failsafe && !h.Accepted {
				if err == nil {
					_, err = walkAll(b)
				}
				if err == nil {
					t.Fatal("read without an error")
				}
				if !strings.Contains(err.Error(), h.Path) || !strings.Contains(err.Error(), h.Want) {
					t.Errorf("error %q should name %s and say %q", err, h.Path, h.Want)
				}
				var ee *contract.EntryError
				if h.Entry != "" && (!errors.As(err, &ee) || ee.Entry != h.Entry) {
					t.Errorf("error %q does not name the entry %q", err, h.Entry)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var problems []string
			for _, w := range b.Warnings {
				problems = append(problems, w.Path+": "+w.Message)
			}
			if len(b.Duplicates) > 0 {
				problems = append(problems, "duplicates: "+strings.Join(b.Duplicates, ",")+" occurs more than once")
			}
			if d, err := b.Discovery(); err == nil && d != nil {
				for _, err := range d.Invalid {
					problems = append(problems, contract.DiscoveryPath()+": "+err.Error())
				}
			}
			err = b.Walk(func(e *contract.Entry) error {
				if !e.InRoot || e.Class.Class != contract.ClassResourceList || !e.IsRegular() {
					return nil
				}
				l, err := e.DecodeList()
				if err == nil {
					err = contract.CheckKinds(e.Class, l)
				}
				if err != nil {
					problems = append(problems, e.Rel+": "+err.Error())
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if h.Accepted {
				if len(problems) > 0 {
					t.Errorf("problems %q in a bundle a real server could have served", problems)
				}
				return
			}
			if len(problems) == 0 || !strings.Contains(problems[0], h.Rel) || !strings.Contains(problems[0], h.Want) {
				t.Errorf("problems %q, want one about %s saying %q", problems, h.Rel, h.Want)
			}
		})
	}
	for _, h := range corpus {
		for _, p := range h.Escapes {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("%s: %s exists", h.Name, p)
			}
		}
	}
}

func TestCheckKinds(t *testing.T) {
	cases := []struct {
		rel, data, want string
	}{
		{"cluster-resources/nodes.json", `{"kind":"NodeList","apiVersion":"v1","items":[{"kind":"Node","metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`, ""},
		{"cluster-resources/nodes.json", `{"kind":"List","apiVersion":"v1","items":[{"kind":"Node","metadata":{"name":"a"}}]}`, ""},
		{"cluster-resources/nodes.json", `[{"metadata":{"name":"a"}}]`, ""},
		{"cluster-resources/nodes.json", `{"kind":"DeploymentList","apiVersion":"apps/v1","items":[]}`, "the list is a DeploymentList, but its path holds Node objects"},
		{"cluster-resources/nodes.json", `{"kind":"NodeList","apiVersion":"v1","items":[{"kind":"Node","metadata":{"name":"a"}},{"kind":"Pod","metadata":{"name":"p"}}]}`, "item 1 is a Pod, but its path holds Node objects"},
		{"cluster-resources/pods/default.json", `[{"kind":"Secret","metadata":{"name":"s"}}]`, "item 0 is a Secret, but its path holds Pod objects"},
		// ReplicaSets in the folder named like the StatefulSet errors.
		{"cluster-resources/statefulsets-errors.json/default.json", `{"kind":"ReplicaSetList","apiVersion":"apps/v1","items":[{"metadata":{"name":"r"}}]}`, ""},
		// A custom resource's list kind is the CRD's to choose; its items agree.
		{"cluster-resources/custom-resources/widgets.example.com/default.json", `{"kind":"WidgetCollection","items":[{"kind":"Widget","metadata":{"name":"w"}}]}`, ""},
		{"cluster-resources/custom-resources/widgets.example.com/default.json", `[{"kind":"Widget","metadata":{"name":"w"}},{"kind":"Gadget","metadata":{"name":"g"}}]`, "item 1 is a Gadget, but the items before it are Widget objects"},
	}
	for _, c := range cases {
		l, err := contract.DecodeList([]byte(c.data), contract.FormatJSON)
		if err != nil {
			t.Fatal(err)
		}
		err = contract.CheckKinds(contract.Classify(c.rel), l)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v", c.rel, c.data, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, contract.ErrWrongKind)):
			t.Errorf("%s %s: %v, want %q", c.rel, c.data, err, c.want)
		}
	}
}
