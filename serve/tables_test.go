package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/servetest"
)

func TestTableList(t *testing.T) {
	srv := testServer(t)
	r := get(t, srv, "/api/v1/pods?limit=500", tableAccept)
	if !strings.HasPrefix(r.body, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"`) {
		t.Fatalf("table: %.200s", r.body)
	}
	table := decode(t, r)
	// The columns are the stored table's, byte for byte.
	stored := storedTable(t, contract.TablePath("pods", "default"))
	cols, _ := json.Marshal(table["columnDefinitions"])
	want, _ := json.Marshal(stored["columnDefinitions"])
	if string(cols) != string(want) {
		t.Errorf("columns\n%s\nwant\n%s", cols, want)
	}
	if got := rowNames(t, table); !slices.Equal(got, []string{"default/web-1", "default/web-2", "kube-system/coredns-abc", "team-a/job-x", "team-a/web-3"}) {
		t.Errorf("rows %v", got)
	}
	rows := table["rows"].([]any)
	first := rows[0].(map[string]any)
	if cells, _ := json.Marshal(first["cells"]); string(cells) != `["web-1","2/2","Running",1,"5h","10.42.0.5","node-1","\u003cnone\u003e","\u003cnone\u003e"]` {
		t.Errorf("cells %s", cells)
	}
	obj := first["object"].(map[string]any)
	if obj["kind"] != "PartialObjectMetadata" || obj["apiVersion"] != "meta.k8s.io/v1" || obj["metadata"].(map[string]any)["labels"] == nil {
		t.Errorf("row object %v", obj)
	}
	if _, ok := first["conditions"]; ok {
		t.Errorf("a running pod's row has conditions")
	}
	completed := rows[3].(map[string]any)
	if c, _ := json.Marshal(completed["conditions"]); string(c) != `[{"reason":"Succeeded","status":"True","type":"Completed"}]` {
		t.Errorf("completed pod conditions %s", c)
	}

	beta := decode(t, get(t, srv, "/api/v1/pods", "Accept: application/json;as=Table;v=v1beta1;g=meta.k8s.io"))
	if beta["apiVersion"] != "meta.k8s.io/v1beta1" || beta["rows"].([]any)[0].(map[string]any)["object"].(map[string]any)["apiVersion"] != "meta.k8s.io/v1beta1" {
		t.Errorf("v1beta1 table %v", beta["apiVersion"])
	}
}

// storedTable reads a table file of the small bundle.
func storedTable(t *testing.T, rel string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(servetest.Small()[rel], &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTableIncludeObject(t *testing.T) {
	srv := testServer(t)
	none := decode(t, get(t, srv, "/api/v1/namespaces/default/pods?includeObject=None", tableAccept))
	if o := none["rows"].([]any)[0].(map[string]any)["object"]; o != nil {
		t.Errorf("includeObject=None: %v", o)
	}
	// kubectl --sort-by asks for whole objects in the rows.
	full := get(t, srv, "/api/v1/namespaces/default/pods?includeObject=Object", tableAccept)
	if !strings.Contains(full.body, `"object":{"kind":"Pod","apiVersion":"v1","metadata":{`) {
		t.Errorf("includeObject=Object: %.400s", full.body)
	}
	r := get(t, srv, "/api/v1/pods?includeObject=Everything", tableAccept)
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", "")
	if !strings.Contains(r.body, "Unable to convert to Table as requested: includeObject") {
		t.Errorf("message: %s", r.body)
	}
}

func TestTableSingleAndSelected(t *testing.T) {
	srv := testServer(t)
	one := decode(t, get(t, srv, "/api/v1/namespaces/default/pods/web-2", tableAccept))
	if one["kind"] != "Table" || len(one["rows"].([]any)) != 1 || one["metadata"].(map[string]any)["resourceVersion"] == load(t, smallBundle(t)).ResourceVersion {
		t.Errorf("single object table: %v", one)
	}
	if got := rowNames(t, one); !slices.Equal(got, []string{"default/web-2"}) {
		t.Errorf("rows %v", got)
	}
	sel := decode(t, get(t, srv, "/api/v1/pods?labelSelector=app%3Dweb&fieldSelector="+url.QueryEscape("spec.nodeName=node-1"), tableAccept))
	if got := rowNames(t, sel); !slices.Equal(got, []string{"default/web-1", "team-a/web-3"}) {
		t.Errorf("selected rows %v", got)
	}
	page := decode(t, get(t, srv, "/api/v1/pods?limit=2", tableAccept))
	if page["metadata"].(map[string]any)["continue"] == nil || len(page["rows"].([]any)) != 2 {
		t.Errorf("table page %v", page["metadata"])
	}
	crs := decode(t, get(t, srv, "/apis/example.com/v1/widgets", tableAccept))
	if cells, _ := json.Marshal(crs["rows"].([]any)[0].(map[string]any)["cells"]); string(cells) != `["w1","red","24h"]` {
		t.Errorf("custom resource cells %s", cells)
	}
}

func TestTableDefaultConvertor(t *testing.T) {
	srv := testServer(t)
	// Secrets have no stored table: the server's default convertor.
	table := decode(t, get(t, srv, "/api/v1/namespaces/default/secrets", tableAccept))
	cols := table["columnDefinitions"].([]any)
	if len(cols) != 2 || cols[0].(map[string]any)["name"] != "Name" || cols[1].(map[string]any)["name"] != "Created At" || cols[1].(map[string]any)["type"] != "date" {
		t.Errorf("columns %v", cols)
	}
	if cells, _ := json.Marshal(table["rows"].([]any)[0].(map[string]any)["cells"]); string(cells) != `["creds","2025-11-18T10:00:00Z"]` {
		t.Errorf("cells %s", cells)
	}
}

// A printer that orders rows itself (the FlowSchema list sorts by
// precedence) leaves its order in the stored table: tables keep it, the
// JSON list stays in key order.
func TestTableRowsKeepTheStoredOrder(t *testing.T) {
	files := servetest.Small()
	path := contract.TablePath("nodes", "")
	var table map[string]any
	if err := json.Unmarshal(files[path], &table); err != nil {
		t.Fatal(err)
	}
	rows := table["rows"].([]any)
	slices.Reverse(rows)
	data, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	files[path] = data
	srv := newHandlerServer(t, load(t, files.WriteDir(t, t.TempDir())))
	names := func(r response) []string {
		t.Helper()
		var doc struct {
			Rows []struct {
				Object struct{ Metadata struct{ Name string } }
			}
			Items []struct{ Metadata struct{ Name string } }
		}
		if err := json.Unmarshal([]byte(r.body), &doc); err != nil {
			t.Fatalf("%v: %s", err, r.body)
		}
		var out []string
		for _, row := range doc.Rows {
			out = append(out, row.Object.Metadata.Name)
		}
		for _, it := range doc.Items {
			out = append(out, it.Metadata.Name)
		}
		return out
	}
	tableNames := names(get(t, srv, "/api/v1/nodes", "Accept: application/json;as=Table;v=v1;g=meta.k8s.io"))
	listNames := names(get(t, srv, "/api/v1/nodes"))
	slices.Reverse(listNames)
	if len(tableNames) < 2 || !slices.Equal(tableNames, listNames) {
		t.Errorf("table rows %v, list items %v: the table must keep its own (reversed) order", tableNames, listNames)
	}
}

// includeObject answers a request without a query without decoding it:
// the answer must be what decoding no parameters gives.
func TestIncludeObjectWithoutQuery(t *testing.T) {
	decoded := &metav1.TableOptions{}
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(url.Values{}, metav1.SchemeGroupVersion, decoded); err != nil {
		t.Fatal(err)
	}
	got, err := includeObject(httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods/a", nil))
	if err != nil {
		t.Fatal(err)
	}
	if got != decoded.IncludeObject {
		t.Errorf("includeObject without a query = %q, decoding no parameters gives %q", got, decoded.IncludeObject)
	}
	got, err = includeObject(httptest.NewRequest(http.MethodGet, "/api/v1/pods?includeObject=None", nil))
	if err != nil || got != metav1.IncludeNone {
		t.Errorf("includeObject(includeObject=None) = %q, %v", got, err)
	}
}
