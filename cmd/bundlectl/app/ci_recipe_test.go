package app

import (
	"bytes"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/bundlectl/bundlectl/conformance/kind"
)

// currentMajors are the majors the CI recipe pins its actions to: each
// action's newest major release (read from the actions' own tags in
// 2026-11). A test keeps the recipe from drifting back to older ones.
var currentMajors = map[string]string{
	"actions/checkout":        "v7",
	"actions/setup-go":        "v7",
	"actions/upload-artifact": "v7",
	"azure/setup-kubectl":     "v5",
}

// The workflow shape the test reads.
type ciWorkflow struct {
	Name string
	Jobs map[string]struct {
		Name     string
		RunsOn   string `json:"runs-on"`
		Strategy struct {
			FailFast *bool `json:"fail-fast"`
			Matrix   struct {
				Include []map[string]string
			}
		}
		Steps []struct {
			Name, Uses, Run, If string
			With                map[string]string
		}
	}
}

// gatePage is the page of the docs that holds the CI recipe.
const gatePage = "../../../docs/conformance.md"

// recipeBlock returns the fenced block of the gate's page whose first
// line is first.
func recipeBlock(t *testing.T, first string) []byte {
	t.Helper()
	data, err := os.ReadFile(gatePage)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("```yaml\n"+first+"\n"))
	if i < 0 {
		t.Fatalf("%s has no yaml block starting %q", gatePage, first)
	}
	block := data[i+len("```yaml\n"):]
	end := bytes.Index(block, []byte("\n```\n"))
	if end < 0 {
		t.Fatal("the block is not closed")
	}
	return block[:end+1]
}

// The docs' GitHub Actions recipe is valid YAML of the right shape: one
// job per node image of the kind release bundlectl is built with, each
// running the gate on its image with flags bundlectl has, uploading the
// reports it writes, and every action pinned to its current major.
func TestCIRecipe(t *testing.T) {
	block := recipeBlock(t, "# .github/workflows/bundlectl-conformance.yml")
	var wf ciWorkflow
	if err := yaml.Unmarshal(block, &wf); err != nil {
		t.Fatalf("the recipe is not YAML: %v", err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("jobs %v, want one", wf.Jobs)
	}
	for name, job := range wf.Jobs {
		if !strings.HasPrefix(job.RunsOn, "ubuntu-") {
			t.Errorf("job %s runs on %q: kind needs a Linux runner with Docker", name, job.RunsOn)
		}
		if job.Strategy.FailFast == nil || *job.Strategy.FailFast {
			t.Errorf("job %s: fail-fast must be false, so that every minor reports", name)
		}

		// The matrix is the list, one entry per minor, kubectl of the
		// image's release.
		got := map[string]string{}
		for _, e := range job.Strategy.Matrix.Include {
			got[e["minor"]] = e["image"]
			if !strings.HasPrefix(e["image"], "kindest/node:"+e["kubectl"]+"@") {
				t.Errorf("matrix entry %v: kubectl %q is not the image's release", e, e["kubectl"])
			}
		}
		if len(got) != len(job.Strategy.Matrix.Include) || !maps.Equal(got, kind.Images.Images) {
			t.Errorf("matrix %v, want kind %s's images %v", job.Strategy.Matrix.Include, kind.Images.KindRelease, kind.Images.Images)
		}

		pinned := regexp.MustCompile(`^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)@(v[0-9]+)$`)
		var gate []string
		var uploaded []string
		for _, s := range job.Steps {
			if s.Uses != "" {
				m := pinned.FindStringSubmatch(s.Uses)
				if m == nil {
					t.Errorf("%s is not pinned to a major version (owner/action@vN)", s.Uses)
					continue
				}
				if want, ok := currentMajors[m[1]]; !ok || m[2] != want {
					t.Errorf("%s: want %s@%s (the current major; update currentMajors with the recipe)", s.Uses, m[1], want)
				}
				if m[1] == "actions/upload-artifact" {
					uploaded = strings.Fields(s.With["path"])
					if s.If != "always()" || !strings.Contains(s.With["name"], "${{ matrix.minor }}") {
						t.Errorf("upload step %+v: want if: always() and a name per minor", s)
					}
				}
			}
			if strings.HasPrefix(strings.TrimSpace(s.Run), "bundlectl conformance") {
				gate = strings.Fields(strings.NewReplacer(`"`, "", "${{ matrix.image }}", kind.Images.Images["1.36"]).Replace(s.Run))[2:]
			}
		}
		if gate == nil {
			t.Fatal("no step runs bundlectl conformance")
		}
		cmd := newConformanceCommand(IOStreams{})
		if err := cmd.ParseFlags(gate); err != nil {
			t.Fatalf("bundlectl conformance %s: %v", strings.Join(gate, " "), err)
		}
		f := cmd.Flags()
		if on, _ := f.GetBool("kind"); !on {
			t.Error("the gate does not run with --kind")
		}
		if img, _ := f.GetString("kind-image"); img != kind.Images.Images["1.36"] {
			t.Errorf("--kind-image %q is not the matrix image", img)
		}
		md, _ := f.GetString("report-md")
		junit, _ := f.GetString("junit")
		if md == "" || junit == "" || !slices.Contains(uploaded, md) || !slices.Contains(uploaded, junit) {
			t.Errorf("reports --report-md %q --junit %q, uploaded %v", md, junit, uploaded)
		}
	}

	// The page's table of images is the list too.
	page, _ := os.ReadFile(gatePage)
	for minor, image := range kind.Images.Images {
		if bytes.Count(page, []byte(image)) < 2 {
			t.Errorf("%s does not list %s's image %s beside the recipe", gatePage, minor, image)
		}
	}
}
