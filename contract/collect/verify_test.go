package collect_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/rest"

	"github.com/bundlectl/bundlectl/contract"
)

// collected is a bundle read back: every file by its path under the root.
type collected struct {
	root   string
	files  map[string][]byte
	class  map[string]contract.Classification
	report *contract.Report
}

func readBundle(t *testing.T, dest string) *collected {
	t.Helper()
	b, err := contract.Open(dest, contract.DefaultLimits)
	if err != nil {
		t.Fatalf("the bundle does not open: %v", err)
	}
	defer b.Close()
	c := &collected{root: b.Root, files: map[string][]byte{}, class: map[string]contract.Classification{}}
	err = b.Walk(func(e *contract.Entry) error {
		if !e.InRoot || !e.IsRegular() {
			return nil
		}
		data, err := e.ReadAll()
		c.files[e.Rel], c.class[e.Rel] = data, e.Class
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.report, err = contract.Inspect(b); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *collected) discovery(t *testing.T) *contract.Discovery {
	t.Helper()
	d, err := contract.ParseDiscovery(c.files[contract.DiscoveryPath()])
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// server reads the live server directly, as the collector's reference.
type server struct {
	t    *testing.T
	http *http.Client
	host string
}

func newServer(t *testing.T, cfg *rest.Config) *server {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &server{t: t, http: hc, host: strings.TrimSuffix(cfg.Host, "/")}
}

func (s *server) get(path string, query url.Values, accept string) []byte {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.host+path+"?"+query.Encode(), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s?%s: %d %v %s", path, query.Encode(), resp.StatusCode, err, body)
	}
	return body
}

// at lists path as it was at resourceVersion rv.
func (s *server) at(path, rv, accept string) []byte {
	q := url.Values{}
	if rv != "" {
		q = url.Values{"resourceVersion": {rv}, "resourceVersionMatch": {"Exact"}}
	}
	return s.get(path, q, accept)
}

// listPath is the server path of a list file of the bundle.
func listPath(gv schema.GroupVersion, resource, ns string) string {
	p := "/apis/" + gv.String()
	if gv.Group == "" {
		p = "/api/" + gv.Version
	}
	if ns != "" {
		p += "/namespaces/" + ns
	}
	return p + "/" + resource
}

type rawList struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Metadata   metav1.ListMeta   `json:"metadata"`
	Items      []json.RawMessage `json:"items"`
}

// table is the part of a Table the checks read.
type table struct {
	ColumnDefinitions []struct {
		Name string `json:"name"`
	} `json:"columnDefinitions"`
	Rows []struct {
		Cells  []json.RawMessage `json:"cells"`
		Object json.RawMessage   `json:"object"`
	} `json:"rows"`
}

func decode(t *testing.T, what string, data []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// checkLists compares every list and table file of the bundle with what
// the server returns for the same list (one namespace, or the cluster) at
// the same resourceVersion: same items; same columns, rows, objects and
// cells, except that ages must be those of collectedAt, which proves the
// tables were rendered in collectedAt's second.
//
// componentstatuses are compared in name order: the server lists them in
// random order. They are also the one list the server computes afresh on
// every request (it probes etcd, the scheduler and the controller manager
// again; a resourceVersion does not hold them), so a busy machine can make
// one probe answer otherwise than it did a moment before: they are asked
// again, a few times, before a difference counts.
func checkLists(t *testing.T, c *collected, srv *server, collectedAt time.Time, masked bool) (lists int) {
	t.Helper()
	for rel, cl := range c.class {
		if cl.Class != contract.ClassResourceList {
			continue
		}
		lists++
		var file rawList
		decode(t, rel, c.files[rel], &file)
		gv, err := schema.ParseGroupVersion(file.APIVersion)
		if err != nil {
			t.Fatalf("%s: apiVersion %q: %v", rel, file.APIVersion, err)
		}
		path := listPath(gv, cl.GR.Resource, cl.Key.Namespace)
		tableRel := contract.TablePathFor(rel)
		if c.files[tableRel] == nil {
			t.Errorf("%s has no table", rel)
		}
		probed := cl.GR == schema.GroupResource{Resource: "componentstatuses"}
		var problems []string
		for attempt := 0; ; attempt++ {
			var live rawList
			decode(t, path, srv.at(path, file.Metadata.ResourceVersion, "application/json"), &live)
			problems = compareItems(t, rel, file, live, masked && cl.GR == schema.GroupResource{Resource: "secrets"}, probed)
			if c.files[tableRel] != nil {
				problems = append(problems, compareTable(t, tableRel, c.files[tableRel], srv.at(path, file.Metadata.ResourceVersion, "application/json;as=Table;v=v1;g=meta.k8s.io"))...)
			}
			if len(problems) == 0 || !probed || attempt == 4 {
				break
			}
			time.Sleep(time.Second)
		}
		for _, p := range problems {
			t.Error(p)
		}
		if c.files[tableRel] != nil {
			checkTableFile(t, tableRel, c.files[tableRel], file.Metadata.ResourceVersion, collectedAt)
		}
	}
	return lists
}

// compareItems says how the list file differs from the server's list.
func compareItems(t *testing.T, rel string, file, live rawList, masked, unordered bool) []string {
	t.Helper()
	var problems []string
	if file.Kind != live.Kind || file.APIVersion != live.APIVersion || file.Metadata.ResourceVersion != live.Metadata.ResourceVersion {
		problems = append(problems, fmt.Sprintf("%s: %s %s at %q, the server says %s %s at %q", rel, file.Kind, file.APIVersion, file.Metadata.ResourceVersion, live.Kind, live.APIVersion, live.Metadata.ResourceVersion))
	}
	if len(file.Items) != len(live.Items) {
		return append(problems, fmt.Sprintf("%s: %d items, the server has %d", rel, len(file.Items), len(live.Items)))
	}
	if unordered {
		sortByName(t, file.Items)
		sortByName(t, live.Items)
	}
	for i := range file.Items {
		want := live.Items[i]
		if masked {
			want = maskedLike(t, want)
		}
		if !jsonEqual(file.Items[i], want) {
			problems = append(problems, fmt.Sprintf("%s: item %d differs:\n%s\nserver:\n%s", rel, i, file.Items[i], want))
		}
	}
	return problems
}

// maskedLike is what the collector must make of a Secret: every data value
// masked (jsonEqual leaves the last-applied annotation to checkSecrets).
func maskedLike(t *testing.T, item json.RawMessage) json.RawMessage {
	t.Helper()
	var s map[string]any
	decode(t, "secret", item, &s)
	for k := range s["data"].(map[string]any) {
		s["data"].(map[string]any)[k] = "KioqSElEREVOKioq"
	}
	out, _ := json.Marshal(s)
	return out
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	stripLastApplied(x)
	stripLastApplied(y)
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// stripLastApplied removes a Secret's last-applied annotation, which
// checkSecrets verifies on its own.
func stripLastApplied(v any) {
	obj, _ := v.(map[string]any)
	md, _ := obj["metadata"].(map[string]any)
	if ann, ok := md["annotations"].(map[string]any); ok {
		if s, _ := ann["kubectl.kubernetes.io/last-applied-configuration"].(string); strings.Contains(s, `"kind":"Secret"`) {
			delete(ann, "kubectl.kubernetes.io/last-applied-configuration")
		}
	}
}

func sortByName(t *testing.T, elems []json.RawMessage) {
	t.Helper()
	name := func(e json.RawMessage) string {
		var o struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Object   struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			} `json:"object"`
		}
		decode(t, "element", e, &o)
		return o.Metadata.Name + o.Object.Metadata.Name
	}
	sort.Slice(elems, func(i, j int) bool { return name(elems[i]) < name(elems[j]) })
}

// compareTable says how the table file differs from the server's Table
// beyond ages.
func compareTable(t *testing.T, rel string, fileData, liveData []byte) []string {
	t.Helper()
	if a, b := comparable(t, rel, fileData), comparable(t, rel, liveData); !bytes.Equal(a, b) {
		return []string{fmt.Sprintf("%s differs from the server's table beyond ages:\n%s\nserver:\n%s", rel, a, b)}
	}
	return nil
}

// checkTableFile: the table has its list's resourceVersion and the ages of
// collectedAt.
func checkTableFile(t *testing.T, rel string, fileData []byte, rv string, collectedAt time.Time) {
	t.Helper()
	var meta struct {
		Metadata metav1.ListMeta `json:"metadata"`
	}
	decode(t, rel, fileData, &meta)
	if meta.Metadata.ResourceVersion != rv {
		t.Errorf("%s: resourceVersion %q, its list has %q", rel, meta.Metadata.ResourceVersion, rv)
	}
	var file table
	decode(t, rel, fileData, &file)
	for i := range file.Rows {
		checkAges(t, fmt.Sprintf("%s row %d", rel, i), file, i, collectedAt)
	}
}

// checkAges: every Age cell is the age at collectedAt.
func checkAges(t *testing.T, what string, tb table, i int, collectedAt time.Time) {
	t.Helper()
	var obj metav1.PartialObjectMetadata
	decode(t, what, tb.Rows[i].Object, &obj)
	for c, col := range tb.ColumnDefinitions {
		if col.Name != "Age" {
			continue
		}
		want := duration.HumanDuration(collectedAt.Sub(obj.CreationTimestamp.Time))
		if got := strings.Trim(string(tb.Rows[i].Cells[c]), `"`); got != want {
			t.Errorf("%s: age %s, at collectedAt %s it is %s", what, got, collectedAt.Format(time.RFC3339), want)
		}
	}
}

// comparable is a Table with its ages blanked (Age cells, and cells with no
// column: the 1.35 IPAddress printer adds an age cell it declares no column
// for) and a Secret's last-applied annotation dropped: everything else must
// be the server's. "rows": null and [] stay distinct.
func comparable(t *testing.T, what string, data []byte) []byte {
	t.Helper()
	var tb struct {
		ColumnDefinitions []map[string]any  `json:"columnDefinitions"`
		Rows              []json.RawMessage `json:"rows"`
	}
	var all map[string]any
	decode(t, what, data, &tb)
	decode(t, what, data, &all)
	if strings.Contains(what, "componentstatuses") {
		sortByName(t, tb.Rows)
	}
	rows := []map[string]any{}
	for _, raw := range tb.Rows {
		var row map[string]any
		decode(t, what, raw, &row)
		cells := row["cells"].([]any)
		for c := range cells {
			if c >= len(tb.ColumnDefinitions) || tb.ColumnDefinitions[c]["name"] == "Age" {
				cells[c] = ""
			}
		}
		stripLastApplied(row["object"])
		rows = append(rows, row)
	}
	if all["rows"] != nil {
		all["rows"] = rows
	}
	out, _ := json.Marshal(all)
	return out
}
