package serve

import (
	"slices"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

// A file the upgrade reported is named once: what loading its copy finds
// again is dropped, what it adds joins the file's line; the bundle's own
// problems are not named twice; other warnings stay as they are.
func TestUpgradeWarnings(t *testing.T) {
	problems := []contract.Problem{
		{Path: "b.tgz", Message: "trailing garbage after the archive"},
		{Path: "cluster-resources/pods/a.json", Message: "no table: invalid JSON: unexpected end of JSON input"},
		{Path: "cluster-resources/odd: name.json", Message: "no table: item 0 has no metadata.name"},
		{Path: "cluster-resources/pods/a.json", Message: "the entry occurs more than once in the archive"},
	}
	warnings := []string{
		"cluster-resources/pods/a.json: invalid JSON: unexpected end of JSON input",
		"cluster-resources/odd: name.json: item 0 has no metadata.name",
		"cluster-resources/odd: name.json: widgets.example.com is not in discovery; its 2 objects are not served",
		"cluster-resources/nodes.json: invalid JSON: x",
		"the bundle does not tell its Kubernetes version",
	}
	want := []string{
		"trailing garbage after the archive",
		"cluster-resources/pods/a.json: no table: invalid JSON: unexpected end of JSON input; the entry occurs more than once in the archive",
		"cluster-resources/odd: name.json: no table: item 0 has no metadata.name; widgets.example.com is not in discovery; its 2 objects are not served",
		"cluster-resources/nodes.json: invalid JSON: x",
		"the bundle does not tell its Kubernetes version",
	}
	if got := upgradeWarnings("b.tgz", problems, warnings); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
