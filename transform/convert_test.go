package transform_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/transform"
)

// convertedCRDs are two CRDs of two served versions: widgets convert with
// the None strategy, gadgets by webhook.
const convertedCRDs = `{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[
{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
 "conversion":{"strategy":"None"},
 "versions":[
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
   "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}]},
  {"name":"v1beta1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
   "additionalPrinterColumns":[{"name":"Old Size","type":"integer","jsonPath":".spec.size"}]}]},
 "status":{"acceptedNames":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"storedVersions":["v1"]}},
{"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},
 "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://gadgets.example.com/convert"}}},
 "versions":[
  {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
  {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]},
 "status":{"acceptedNames":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},"storedVersions":["v1"]}}]}`

// The upgrade writes every other served version of what the bundle
// holds: HorizontalPodAutoscalers stored at autoscaling/v2 are
// autoscaling/v1 ones by the upstream conversion (the CPU target moves to
// targetCPUUtilizationPercentage), a custom resource whose CRD converts
// with the None strategy is the same object at the other version, and one
// whose CRD converts by webhook is reported, not converted.
func TestUpgradeConvertsToOtherVersions(t *testing.T) {
	dir := t.TempDir()
	root := "support-bundle-2025-12-10T17_27_09/"
	hpa := `{"kind":"HorizontalPodAutoscalerList","apiVersion":"autoscaling/v2","metadata":{"resourceVersion":"9"},"items":[
	 {"metadata":{"name":"web","namespace":"default","creationTimestamp":"2025-12-10T17:00:00Z"},
	  "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":1,"maxReplicas":5,
	   "metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]},
	  "status":{"currentReplicas":2,"desiredReplicas":2}}]}`
	widgets := `{"kind":"WidgetList","apiVersion":"example.com/v1","items":[
	 {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"blue","namespace":"default","creationTimestamp":"2025-12-10T17:00:00Z"},"spec":{"size":12345678901234567890}}]}`
	gadgets := `{"kind":"GadgetList","apiVersion":"example.com/v1","items":[
	 {"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default","creationTimestamp":"2025-12-10T17:00:00Z"}}]}`
	p := contracttest.WriteTarGz(t, dir, "old.tgz", []contracttest.File{
		{Name: root + "cluster-info/cluster_version.json", Body: `{"info":{"major":"1","minor":"37","gitVersion":"v1.37.1"},"string":"v1.37.1"}`},
		{Name: root + "cluster-resources/custom-resource-definitions.json", Body: convertedCRDs},
		{Name: root + "cluster-resources/horizontalpodautoscalers.autoscaling/default.json", Body: hpa},
		{Name: root + "cluster-resources/custom-resources/widgets.example.com/default.json", Body: widgets},
		{Name: root + "cluster-resources/custom-resources/gadgets.example.com/default.json", Body: gadgets},
	})
	out := filepath.Join(dir, "new.tgz")
	sum := upgrade(t, p, out, transform.Options{})
	if got := sum.ListsConverted; got["autoscaling/v1 horizontalpodautoscalers"] != 1 || got["example.com/v1beta1 widgets"] != 1 || len(got) != 2 {
		t.Errorf("lists converted: %v", got)
	}
	for _, pr := range sum.Problems {
		t.Errorf("problem: %s: %s", pr.Path, pr.Message)
	}
	var webhook []string
	for _, pr := range sum.NotConverted {
		if strings.Contains(pr.Message, "not converted to example.com/v2") && strings.Contains(pr.Message, "Webhook") {
			webhook = append(webhook, pr.Path)
		} else {
			t.Errorf("not converted: %s: %s", pr.Path, pr.Message)
		}
	}
	if len(webhook) != 1 || webhook[0] != "cluster-resources/custom-resources/gadgets.example.com/default.json" {
		t.Errorf("the webhook CRD is reported at %v", webhook)
	}

	b, err := contract.Open(out, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	files := map[string][]byte{}
	if err := b.Walk(func(e *contract.Entry) error {
		if e.Class.Converted {
			data, err := e.ReadAll()
			files[e.Rel] = data
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	converted := func(gvr schema.GroupVersionResource) (list, table map[string]any) {
		t.Helper()
		dir := contract.ConvertedListDir(gvr)
		for rel, into := range map[string]*map[string]any{contract.ResourcePath(dir, "default"): &list, contract.TablePath(dir, "default"): &table} {
			if err := json.Unmarshal(files[rel], into); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
		}
		return list, table
	}
	if rel := contract.ResourcePath(contract.ConvertedListDir(schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "gadgets"}), "default"); files[rel] != nil {
		t.Errorf("%s was written", rel)
	}

	list, table := converted(schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"})
	item := list["items"].([]any)[0].(map[string]any)
	if list["apiVersion"] != "autoscaling/v1" || list["kind"] != "HorizontalPodAutoscalerList" || item["apiVersion"] != nil ||
		item["spec"].(map[string]any)["targetCPUUtilizationPercentage"] != 70.0 {
		t.Errorf("autoscaling/v1 list: %s", files[contract.ResourcePath(contract.ConvertedListDir(schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}), "default")])
	}
	if cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any); cells[0] != "web" || cells[1] != "Deployment/web" {
		t.Errorf("autoscaling/v1 table row %v", cells)
	}

	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1beta1", Resource: "widgets"}
	if got, want := string(files[contract.ResourcePath(contract.ConvertedListDir(gvr), "default")]), `{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"creationTimestamp":"2025-12-10T17:00:00Z","name":"blue","namespace":"default"},"spec":{"size":12345678901234567890}}`; !strings.Contains(got, want) {
		t.Errorf("example.com/v1beta1 list:\n%s\nwant the item\n%s", got, want)
	}
	_, table = converted(gvr)
	if col := table["columnDefinitions"].([]any)[1].(map[string]any)["name"]; col != "Old Size" {
		t.Errorf("example.com/v1beta1 table has column %v, not v1beta1's", col)
	}
}
