package collect

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bundlectl/bundlectl/contract/termtext"
)

// Summary tells what a collection got and what it could not.
type Summary struct {
	Dest              string    `json:"dest"`
	Root              string    `json:"root"`
	KubernetesVersion string    `json:"kubernetesVersion"`
	CollectedAt       time.Time `json:"collectedAt"`
	// TablesSameSecond is true when every table response carried the
	// same Date, so every age is relative to CollectedAt.
	TablesSameSecond bool    `json:"tablesSameSecond"`
	TableBursts      int     `json:"tableBursts"`
	Seconds          float64 `json:"seconds"`
	// SecretValues is "masked" or "included".
	SecretValues string          `json:"secretValues"`
	Resources    []ResourceCount `json:"resources"`
	Logs         int             `json:"logs"`
	LogFailures  int             `json:"logFailures"`
	// OpenAPIV3Documents counts the /openapi/v3 documents stored;
	// OpenAPIV2 says whether /openapi/v2 was.
	OpenAPIV3Documents int       `json:"openAPIV3Documents"`
	OpenAPIV2          bool      `json:"openAPIV2"`
	Problems           []Problem `json:"problems"`
}

// ResourceCount is what was collected of one resource.
type ResourceCount struct {
	Group      string `json:"group"`
	Version    string `json:"version"`
	Resource   string `json:"resource"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced"`
	// Converted is set for the server's conversion of another resource's
	// objects to this group version, written under _meta/converted/.
	Converted bool `json:"converted,omitempty"`
	Objects   int  `json:"objects"`
	Lists     int  `json:"lists"`
	Tables    int  `json:"tables"`
	// SelectableFields is nil when probing failed.
	SelectableFields []string `json:"selectableFields"`
}

// WriteJSON writes the summary for scripts.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes the summary for people, every string the server gave
// escaped (termtext).
func (s *Summary) WriteText(w io.Writer) error {
	esc := termtext.Escape
	fmt.Fprintf(w, "Collected %s into %s in %.1fs.\n", esc(s.Root), esc(s.Dest), s.Seconds)
	fmt.Fprintf(w, "Kubernetes %s, collected at %s by the server's clock; %s.\n", esc(s.KubernetesVersion), s.CollectedAt.Format(time.RFC3339), s.tableTiming())
	if s.SecretValues == "masked" {
		fmt.Fprintf(w, "Secret values are masked as %s (keys kept); --include-secret-values keeps them.\n", hidden)
	} else {
		fmt.Fprintln(w, "Secret values are included: handle this bundle as a secret.")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tVERSION\tRESOURCE\tOBJECTS\tLISTS\tTABLES\tSELECTABLE FIELDS")
	for _, r := range s.Resources {
		group, fields := esc(r.Group), "-"
		if group == "" {
			group = "core"
		}
		if r.SelectableFields != nil {
			fields = fmt.Sprint(len(r.SelectableFields))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", group, esc(r.Version), esc(r.Resource), r.Objects, r.Lists, r.Tables, fields)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nPod logs: %d collected, %d failed.\n", s.Logs, s.LogFailures)
	fmt.Fprintln(w, s.openAPISummary())
	fmt.Fprintf(w, "\nProblems: %d\n", len(s.Problems))
	for _, p := range s.Problems {
		fmt.Fprintf(w, "  %s: %s\n", esc(p.What), esc(strings.TrimSpace(p.Message)))
	}
	return nil
}

func (s *Summary) tableTiming() string {
	if s.TablesSameSecond {
		if s.TableBursts == 1 {
			return "every table was rendered in that second"
		}
		return fmt.Sprintf("every table was rendered in that second (on burst %d)", s.TableBursts)
	}
	return "tables were not all rendered in that second, so ages may differ by a second or more (see problems)"
}
