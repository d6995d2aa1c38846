package transform

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/contract/termtext"
)

// Summary is what an upgrade did, for people (WriteText) and scripts (WriteJSON).
type Summary struct {
	Source string `json:"source"`
	Dest   string `json:"dest"`
	// CollectionTime is the time every age is computed at, and how it
	// was found.
	contract.CollectionTime
	// NothingToRender says why the upgrade only copied the bundle
	// (contract.NoClusterResources); "" when it rendered what it holds.
	NothingToRender string `json:"nothingToRender,omitempty"`
	// EntriesCopied counts input entries written unchanged: all of them
	// when the upgrade succeeds.
	EntriesCopied int `json:"entriesCopied"`
	// TablesSynthesized counts the tables made, per resource.
	TablesSynthesized map[string]int `json:"tablesSynthesized"`
	// RenderedFor is the Kubernetes minor ("1.31") the synthesized
	// tables were rendered for: they are what a server of it returns.
	// It is the minor of RenderedForVersion, read from
	// RenderedForSource; RenderedForNote says why it is another when the
	// release is newer or older than any bundlectl renders for. With no
	// version known it is the pinned minor, and a problem says so.
	RenderedFor        string `json:"renderedFor"`
	RenderedForVersion string `json:"renderedForVersion,omitempty"`
	RenderedForSource  string `json:"renderedForSource,omitempty"`
	RenderedForNote    string `json:"renderedForNote,omitempty"`
	// ListsConverted counts the lists written under _meta/converted/
	// (each with its table, not counted in TablesSynthesized), per group
	// version resource they were converted to.
	ListsConverted map[string]int `json:"listsConverted,omitempty"`
	// NotConverted are the group versions discovery serves that a list
	// could not be converted to (a CRD converted by webhook, a version the
	// pinned release does not know), one entry per version, at the first
	// list: the bundle is whole, but serve has nothing to answer there.
	NotConverted []contract.Problem `json:"notConverted,omitempty"`
	// RankedRows are the resources whose rows depend on the rest of the
	// list, for which _meta/ranked-rows/ tells serve how
	// (contract.RankedRows).
	RankedRows []string `json:"rankedRows,omitempty"`
	// TablesKept counts tables the bundle already had (collected from a
	// live server), which are never replaced.
	TablesKept int `json:"tablesKept"`
	// Discovery is "synthesized" or "kept".
	Discovery string `json:"discovery"`
	// OpenAPI is "synthesized" (OpenAPIDocuments /openapi/v3 documents
	// made, and /openapi/v2 when OpenAPIV2), "kept", or "" when none could
	// be made.
	OpenAPI          string `json:"openapi"`
	OpenAPIDocuments int    `json:"openapiDocuments"`
	OpenAPIV2        bool   `json:"openapiV2"`
	// Problems are files whose table could not be made, or metadata that
	// could not be read; their raw entries are copied all the same.
	Problems []contract.Problem `json:"problems"`

	// convertedFrom says where writeConverted read the lists it
	// converted: "spool", "bundle", or "" when it read none.
	convertedFrom string

	mu sync.Mutex
}

func newSummary(b *contract.Bundle, w *contract.Writer, at contract.CollectionTime) *Summary {
	return &Summary{Source: b.Path, Dest: w.Dest(), CollectionTime: at,
		TablesSynthesized: map[string]int{}, RenderedFor: contract.PinnedMinor, Problems: append([]contract.Problem{}, b.Warnings...)}
}

func (s *Summary) problem(path string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Problems = append(s.Problems, contract.Problem{Path: path, Message: err.Error()})
}

func (s *Summary) copied() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.EntriesCopied++
}

func (s *Summary) kept() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.TablesKept++
}

func (s *Summary) made(resource string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.TablesSynthesized[resource]++
}

func (s *Summary) converted(gvr schema.GroupVersionResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ListsConverted == nil {
		s.ListsConverted = map[string]int{}
	}
	s.ListsConverted[gvr.GroupVersion().String()+" "+gvr.Resource]++
}

func (s *Summary) rankedRows(gr schema.GroupResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.RankedRows = append(s.RankedRows, gr.String())
}

func (s *Summary) notConverted(path string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.NotConverted = append(s.NotConverted, contract.Problem{Path: path, Message: err.Error()})
}

func (s *Summary) finish() {
	sort.SliceStable(s.Problems, func(i, j int) bool { return s.Problems[i].Path < s.Problems[j].Path })
}

// Tables is the number of tables made.
func (s *Summary) Tables() int {
	n := 0
	for _, c := range s.TablesSynthesized {
		n += c
	}
	return n
}

// WriteJSON writes the summary as one JSON document.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes the summary for people, every string the bundle gave
// escaped (termtext).
func (s *Summary) WriteText(w io.Writer) error {
	esc := termtext.Escape
	var b strings.Builder
	fmt.Fprintf(&b, "Upgraded %s to %s\n", esc(s.Source), esc(s.Dest))
	fmt.Fprintf(&b, "  collected at:       %s\n", esc(fmt.Sprint(s.CollectionTime)))
	fmt.Fprintf(&b, "  entries copied:     %d, unchanged\n", s.EntriesCopied)
	if s.NothingToRender != "" {
		fmt.Fprintf(&b, "  nothing to render:  %s\n", esc(s.NothingToRender))
		s.writeProblems(&b)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "  tables synthesized: %d\n", s.Tables())
	resources := make([]string, 0, len(s.TablesSynthesized))
	width := 0
	for r := range s.TablesSynthesized {
		resources = append(resources, r)
		width = max(width, len(esc(r)))
	}
	sort.Strings(resources)
	for _, r := range resources {
		fmt.Fprintf(&b, "    %-*s %d\n", width, esc(r), s.TablesSynthesized[r])
	}
	fmt.Fprintf(&b, "  rendered for:       Kubernetes %s", esc(s.RenderedFor))
	if s.RenderedForVersion != "" {
		fmt.Fprintf(&b, " (%s, from %s)", esc(s.RenderedForVersion), s.RenderedForSource)
	}
	b.WriteString("\n")
	if s.RenderedForNote != "" {
		fmt.Fprintf(&b, "                      %s\n", esc(s.RenderedForNote))
	}
	if len(s.ListsConverted) > 0 {
		gvrs := make([]string, 0, len(s.ListsConverted))
		n := 0
		for g, c := range s.ListsConverted {
			gvrs = append(gvrs, g)
			n += c
		}
		sort.Strings(gvrs)
		fmt.Fprintf(&b, "  lists converted:    %d\n", n)
		for _, g := range gvrs {
			fmt.Fprintf(&b, "    %s %d\n", esc(g), s.ListsConverted[g])
		}
	}
	if len(s.NotConverted) > 0 {
		fmt.Fprintf(&b, "  not converted:      %d\n", len(s.NotConverted))
		for _, p := range s.NotConverted {
			fmt.Fprintf(&b, "    %s: %s\n", esc(p.Path), esc(p.Message))
		}
	}
	if len(s.RankedRows) > 0 {
		fmt.Fprintf(&b, "  ranked rows:        %s\n", esc(strings.Join(s.RankedRows, ", ")))
	}
	fmt.Fprintf(&b, "  tables kept:        %d\n", s.TablesKept)
	fmt.Fprintf(&b, "  discovery.json:     %s\n", s.Discovery)
	switch s.OpenAPI {
	case "synthesized":
		v2 := "and v2"
		if !s.OpenAPIV2 {
			v2 = "without v2"
		}
		fmt.Fprintf(&b, "  openapi:            synthesized, %d documents %s\n", s.OpenAPIDocuments, v2)
	case "":
		fmt.Fprintf(&b, "  openapi:            none\n")
	default:
		fmt.Fprintf(&b, "  openapi:            %s\n", s.OpenAPI)
	}
	s.writeProblems(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *Summary) writeProblems(b *strings.Builder) {
	if len(s.Problems) == 0 {
		b.WriteString("Problems: none\n")
		return
	}
	fmt.Fprintf(b, "Problems: %d (raw entries copied all the same)\n", len(s.Problems))
	for _, p := range s.Problems {
		fmt.Fprintf(b, "  %s: %s\n", termtext.Escape(p.Path), termtext.Escape(p.Message))
	}
}
