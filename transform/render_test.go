package transform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// Rendering a chunk at a time must give the bytes of rendering the whole
// list at once, for every convertor: rows never depend on each other; and
// both must be the bytes encoding/json gives for the whole table, as the
// server encodes it.
func TestChunkedRenderingIsTheWholeTable(t *testing.T) {
	root := filepath.Join("..", "testdata", "example-bundle", "support-bundle-2025-11-20T10_00_00")
	crdData, err := os.ReadFile(filepath.Join(root, contract.CRDListPath))
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := newCRDIndex(crdData)
	whole := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), crds)
	whole.chunk = 1 << 30
	chunked := *whole
	chunked.chunk = 1
	convertors := map[Convertor]bool{}
	err = filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		c := contract.Classify(rel)
		if c.Class != contract.ClassResourceList || c.Format != contract.FormatJSON {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		l, err := contract.DecodeList(data, c.Format)
		if err != nil {
			return err
		}
		list := List{GVR: contract.ListGVR(c, l), Kind: contract.ListKind(c, l), Custom: c.Custom, ResourceVersion: l.ResourceVersion, Items: l.Items}
		a, conv, err := whole.Render(list)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		b, _, err := chunked.Render(list)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s (%s): chunked rendering differs:\n%s\n%s", rel, conv, a, b)
		}
		table, _, err := whole.table(context.Background(), list)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		encoded, err := encodeTable(table)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if !bytes.Equal(a, encoded) {
			t.Errorf("%s (%s): rendering differs from encoding/json's encoding of the table:\n%s\n%s", rel, conv, a, encoded)
		}
		convertors[conv] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, conv := range []Convertor{ConvertorPrinters, ConvertorCRD, ConvertorDefault} {
		if !convertors[conv] {
			t.Errorf("no list was rendered by the %s convertor", conv)
		}
	}
}

// A quantity the parser would spend hours on ("1e-999999999" computes
// 10^999999999 exactly) makes its list a problem at once instead of
// hanging the upgrade; found by FuzzRenderTable. Real quantities, dates,
// addresses and names that start with digits are not mistaken for it.
//
// The quantities of an autoscaling/v1 HorizontalPodAutoscaler's metrics
// are read from annotations by its conversion; a quantity escaped in a
// typed field is given to the parser as written, which refuses it at once.
func TestRenderRefusesRunawayQuantities(t *testing.T) {
	r := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), &crdIndex{})
	nodes := func(item string) List {
		return List{GVR: nodesGVR, Kind: "Node", Items: []json.RawMessage{json.RawMessage(item)}}
	}
	hpas := func(item string) List {
		return List{GVR: schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"},
			Kind: "HorizontalPodAutoscaler", Items: []json.RawMessage{json.RawMessage(item)}}
	}
	for _, c := range []struct {
		list List
		want string
	}{
		{nodes(`{"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"1e-999999999"}}}`), "quantity"},
		{nodes(`{"metadata":{"name":"a"},"status":{"capacity":{"cpu":1e-999999999}}}`), "quantity"},
		{nodes(`{"metadata":{"name":"a"},"status":{"capacity":{"memory":"\u0031e-999999999"}}}`), "quantities must match"},
		{nodes(`{"metadata":{"name":"a"},"status":{"capacity":{"memory":"` + strings.Repeat("9", 5000) + `e-9"}}}`), "quantity"},
		{hpas(`{"metadata":{"name":"a","namespace":"d","annotations":{"autoscaling.alpha.kubernetes.io/metrics":` +
			`"[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"targetAverageValue\":\"1e-999999999\"}}]"}},` +
			`"spec":{"scaleTargetRef":{"kind":"Deployment","name":"x"},"maxReplicas":3}}`), "annotation autoscaling.alpha.kubernetes.io/metrics"},
		{hpas(`{"metadata":{"name":"a","namespace":"d","annotations":{"autoscaling.alpha.kubernetes.io/current-metrics":` +
			`"[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageValue\":\"\\u0031e-999999999\"}}]"}},` +
			`"spec":{"scaleTargetRef":{"kind":"Deployment","name":"x"},"maxReplicas":3}}`), "quantity"},
	} {
		item := string(c.list.Items[0])
		done := make(chan error, 1)
		go func() {
			_, _, err := r.Render(c.list)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "item 0 (") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%.80s: %v", item, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%.80s: still rendering after 10 s", item)
		}
	}
	for _, item := range []string{
		`{"metadata":{"name":"1e5","creationTimestamp":"2025-11-20T09:00:00Z"},"status":{"capacity":{"cpu":"1e3","memory":"1.5Gi","pods":"110"},"addresses":[{"type":"InternalIP","address":"10.0.0.1"}],"nodeInfo":{"kubeletVersion":"v1.35.4"}}}`,
		`{"metadata":{"name":"b"},"status":{"capacity":{"cpu":"4","memory":"1e-3","ephemeral-storage":"1E"}}}`,
	} {
		if _, _, err := r.Render(nodes(item)); err != nil {
			t.Errorf("%.80s: %v", item, err)
		}
	}
}

// Cancelling the upgrade stops rendering between objects of a CRD whose
// printer columns are priced one object at a time, not only between
// chunks of 256.
func TestRenderStopsBetweenObjectsOfCostlyColumns(t *testing.T) {
	crds, problems := newCRDIndex([]byte(`{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[{"metadata":{"name":"widgets.example.com"},` +
		`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":[{"name":"Deep","type":"string","jsonPath":".spec..a..a"}]}]}}]}`))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	r := NewRenderer(time.Date(2025, 11, 20, 10, 0, 0, 0, time.UTC), crds)
	l := List{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Custom: true,
		Items: []json.RawMessage{json.RawMessage(`{"metadata":{"name":"w","namespace":"default"},"spec":{"a":{"a":1}}}`)}}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted")
	cancel(stop)
	table, err := crds.byResource[l.GVR.GroupResource()].convertor("v1")
	if err != nil || len(table.costly) != 1 {
		t.Fatalf("costly columns %v, %v", table.costly, err)
	}
	if _, _, err := r.table(ctx, l); !errors.Is(err, stop) {
		t.Errorf("rendered a list after the upgrade was cancelled: %v", err)
	}
	if _, _, err := r.Render(l); err != nil {
		t.Errorf("not cancelled: %v", err)
	}
}
