package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/transform"
)

// Gate A: the transform. The collected bundle, stripped of its tables and
// _meta (which makes it a legacy bundle, as troubleshoot writes them), is
// upgraded by transform.Upgrade, and every table it synthesizes must be
// the one the server gave, cell by cell.

// tableCheck is the name of Gate A's cases in reports and the baseline:
// table/<resource folder>[/<namespace>].
const tableCheck = "table"

// tableGateOptions configure runTableGate.
type tableGateOptions struct {
	collected string // the collected bundle (a folder)
	workDir   string
	// ageSlack bounds how far a server age may be ahead of the
	// synthesized one: a second for timestamps finer than the Date
	// header, more when the collector could not render every table in
	// one second; zero means ages must be equal.
	ageSlack  time.Duration
	resources map[string]ResourceRule
}

// convertedCheck is the name of Gate A's cases of converted lists:
// converted/<group|core>.<version>.<resource>[/<namespace>], each the
// upgrade's conversion of a list compared, object by object, with the
// server's answer at that version, which the collector stored.
const convertedCheck = "converted"

// tableGateResult is Gate A's outcome.
type tableGateResult struct {
	Cases   []CaseResult
	Upgrade *transform.Summary
	// Upgraded is the folder of the upgraded bundle.
	Upgraded string
	Extra    []string // tables synthesized where the server gave none
	Duration time.Duration
}

func runTableGate(ctx context.Context, o tableGateOptions) (*tableGateResult, error) {
	start := time.Now()
	upgraded, sum, err := upgradeStripped(ctx, o.collected, o.workDir)
	if err != nil {
		return nil, err
	}
	res := &tableGateResult{Upgrade: sum, Upgraded: upgraded}
	server, err := bundleTables(o.collected)
	if err != nil {
		return nil, err
	}
	synth, err := bundleTables(upgraded)
	if err != nil {
		return nil, err
	}
	// Every table and list was read before now: no event's repeat in
	// them is later.
	until := time.Now()
	for _, rel := range sortedKeys(server) {
		c := classifyTable(rel)
		id := tableCheck + "/" + strings.TrimSuffix(strings.TrimPrefix(rel, contract.ClusterResourcesDir+"/"), contract.TableSuffix)
		cr := CaseResult{Case: Case{ID: id, Check: tableCheck, Resource: c}, Counts: map[string]int{}}
		converted := contract.Classify(rel).Converted
		norms := gateANormalizations(o.resources[c], converted)
		if o.ageSlack > 0 {
			norms = append(norms, NormAges)
		}
		if converted {
			// The server's table at another version was rendered by a
			// LIST of its own, at the revision of that moment; the
			// upgrade's has the revision of the list it converted.
			norms = append(norms, NormResourceVersion)
		}
		cr.Case.Normalize = norms
		got, ok := synth[rel]
		if !ok {
			cr.Divergences = []Divergence{{Output: "table", Diff: "the upgrade synthesized no table for " + rel}}
		} else {
			n := newNormalizer(norms, window{0, o.ageSlack}, window{})
			n.until = until
			cr.Divergences, err = compareTables(server[rel], got, n)
			if err != nil {
				cr.Divergences = []Divergence{{Output: "table", Diff: err.Error()}}
			}
			cr.Counts = n.counts
		}
		res.Cases = append(res.Cases, cr)
	}
	for _, rel := range sortedKeys(synth) {
		if _, ok := server[rel]; !ok {
			res.Extra = append(res.Extra, rel)
		}
	}
	converted, err := compareConverted(o.collected, upgraded, o.resources, until)
	if err != nil {
		return nil, err
	}
	res.Cases = append(res.Cases, converted...)
	res.Duration = time.Since(start)
	return res, nil
}

// gateANormalizations are what a resource rule adds to a case of Gate
// A. eventRepeats and statusWrites only where the server's answer was
// read at another revision than the list the upgrade read (a converted
// list or table, see contract/collect): a plain table is rendered from
// the very list the upgrade reads, so nothing in it can have been written
// between the two.
func gateANormalizations(rule ResourceRule, converted bool) []string {
	var out []string
	for _, k := range rule.Normalize {
		if k != NormEventRepeats && k != NormStatusWrites || converted {
			out = append(out, k)
		}
	}
	return out
}

// upgradeStripped strips the collected bundle of its contract into
// workDir/legacy (a troubleshoot bundle) and upgrades that into
// workDir/upgraded, whose path it returns.
func upgradeStripped(ctx context.Context, collected, workDir string) (string, *transform.Summary, error) {
	legacy := filepath.Join(workDir, "legacy")
	upgraded := filepath.Join(workDir, "upgraded")
	if err := stripContract(collected, legacy); err != nil {
		return "", nil, fmt.Errorf("making the legacy bundle: %w", err)
	}
	sum, err := transform.Upgrade(ctx, transform.Options{Source: legacy, Dest: upgraded, Limits: contract.DefaultLimits})
	if err != nil {
		return "", nil, fmt.Errorf("upgrading the legacy bundle: %w", err)
	}
	return upgraded, sum, nil
}

// compareConverted compares every list the collector stored under
// _meta/converted/ (the server's conversions) with the upgrade's. The
// server's was read at a revision of its own, so the events in it may
// have repeated since the list the upgrade converted, or before: where
// the resource's rule names eventRepeats, the later of the two (by
// revision) may hold repeats of the other's events, read before until.
func compareConverted(collected, upgraded string, rules map[string]ResourceRule, until time.Time) ([]CaseResult, error) {
	server, err := convertedLists(collected)
	if err != nil {
		return nil, err
	}
	synth, err := convertedLists(upgraded)
	if err != nil {
		return nil, err
	}
	var out []CaseResult
	for _, rel := range sortedKeys(server) {
		c := contract.Classify(rel)
		id := convertedCheck + "/" + strings.TrimSuffix(strings.TrimPrefix(rel, contract.ClusterResourcesDir+"/"+contract.MetaDir+"/"+contract.ConvertedDir+"/"), ".json")
		cr := CaseResult{Case: Case{ID: id, Check: convertedCheck, Resource: c.GR.String()}, Counts: map[string]int{}}
		got, ok := synth[rel]
		if !ok {
			cr.Divergences = []Divergence{{Output: "list", Diff: "the upgrade converted no list to " + rel}}
			out = append(out, cr)
			continue
		}
		if norms := gateANormalizations(rules[c.GR.String()], true); contains(norms, NormEventRepeats) {
			cr.Case.Normalize = []string{NormEventRepeats}
			n := newNormalizer(cr.Case.Normalize, window{}, window{})
			n.until = until
			n.forgiveConverted(server[rel], got)
			cr.Counts = n.counts
		}
		if diff := cmp.Diff(server[rel].items, got.items); diff != "" {
			cr.Divergences = []Divergence{{Output: "items", Diff: diff}}
		}
		out = append(out, cr)
	}
	return out, nil
}

// forgiveConverted forgives, in the later of two converted lists (by
// revision), the repeats of the other's events; lists of the same
// revision must be equal.
func (n *normalizer) forgiveConverted(server, synth convertedList) {
	switch revisionOrder(server.rv, synth.rv) {
	case 1:
		n.forgiveEvents(server.items, synth.items)
	case -1:
		n.forgiveEvents(synth.items, server.items)
	}
}

// convertedList is a converted list's items, decoded (numbers kept as
// written), and its revision; the rest of the list's metadata is left
// out, as the stored list it was converted from has its own.
type convertedList struct {
	items []any
	rv    string
}

// convertedLists reads the converted lists of a bundle folder by the path
// relative to the bundle root.
func convertedLists(dir string) (map[string]convertedList, error) {
	b, err := contract.Open(dir, contract.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	out := map[string]convertedList{}
	err = b.Walk(func(e *contract.Entry) error {
		if !e.Class.Converted || !b.IsListOfRecord(e) {
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			return fmt.Errorf("%s: %w", e.Rel, err)
		}
		items := make([]any, len(l.Items))
		for i, it := range l.Items {
			dec := json.NewDecoder(strings.NewReader(string(it)))
			dec.UseNumber()
			if err := dec.Decode(&items[i]); err != nil {
				return fmt.Errorf("%s: item %d: %w", e.Rel, i, err)
			}
		}
		out[e.Rel] = convertedList{items: items, rv: l.ResourceVersion}
		return nil
	})
	return out, err
}

// classifyTable names the resource of a table path: "pods", "deployments.apps".
func classifyTable(rel string) string {
	c := contract.Classify(rel)
	return c.GR.String()
}

// stripContract copies the bundle folder src to dest without what the
// contract adds: every *.table.json and cluster-resources/_meta.
func stripContract(src, dest string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(rel)
		if d.IsDir() {
			if path.Base(slash) == contract.MetaDir && path.Base(path.Dir(slash)) == contract.ClusterResourcesDir {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dest, rel), 0o755)
		}
		if strings.HasSuffix(slash, contract.TableSuffix) || !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, filepath.Join(dest, rel))
	})
}

func copyFile(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dest, fi.ModTime(), fi.ModTime())
}

// withConversionsOf copies the bundle folder collected to dest with the
// lists and tables under _meta/converted/, and the ranked rows under
// _meta/ranked-rows/, taken from the bundle folder upgraded instead: the
// upgrade's conversions in place of the server's, and the rows serve
// shows by what a request selects, which only the upgrade makes.
func withConversionsOf(collected, upgraded, dest string) error {
	ranked := "/" + path.Join(contract.ClusterResourcesDir, contract.MetaDir, contract.RankedRowsDir) + "/"
	fromUpgrade := func(slash string) bool { return isConverted(slash) || strings.Contains("/"+slash+"/", ranked) }
	err := copyTree(collected, dest, func(slash string) bool { return !fromUpgrade(slash) })
	if err == nil {
		err = copyTree(upgraded, dest, fromUpgrade)
	}
	return err
}

// isConverted says whether a path relative to a bundle folder (its root
// folder included) is under cluster-resources/_meta/converted.
func isConverted(slash string) bool {
	return strings.Contains("/"+slash+"/", "/"+path.Join(contract.ClusterResourcesDir, contract.MetaDir, contract.ConvertedDir)+"/")
}

// copyTree copies the regular files of src that keep selects to dest.
func copyTree(src, dest string, keep func(slash string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !keep(filepath.ToSlash(rel)) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dest, rel)), 0o755); err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dest, rel))
	})
}

// bundleTables reads every table of a bundle folder, keyed by its path
// relative to the bundle root.
func bundleTables(dir string) (map[string][]byte, error) {
	b, err := contract.Open(dir, contract.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	out := map[string][]byte{}
	err = b.Walk(func(e *contract.Entry) error {
		if e.Class.Class != contract.ClassTable || !e.IsRegular() {
			return nil
		}
		data, err := e.ReadAll()
		if err != nil {
			return err
		}
		out[e.Rel] = data
		return nil
	})
	return out, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// wireTable is a Table as JSON, numbers kept as written.
type wireTable struct {
	Kind              string          `json:"kind"`
	APIVersion        string          `json:"apiVersion"`
	Metadata          map[string]any  `json:"metadata"`
	ColumnDefinitions []any           `json:"columnDefinitions"`
	Rows              json.RawMessage `json:"rows"`
}

type wireRow struct {
	Cells      []any `json:"cells"`
	Conditions []any `json:"conditions,omitempty"`
	Object     any   `json:"object,omitempty"`
}

// compareTables compares the server's table with the synthesized one:
// type, list metadata, column definitions, the rows' encoding when empty
// (null or []), the rows' identity and order, and each row's cells,
// conditions and object. Diffs are "-server +synthesized".
func compareTables(server, synth []byte, n *normalizer) ([]Divergence, error) {
	var s, g wireTable
	if err := decodeJSON(server, &s); err != nil {
		return nil, fmt.Errorf("the server's table: %w", err)
	}
	if err := decodeJSON(synth, &g); err != nil {
		return nil, fmt.Errorf("the synthesized table: %w", err)
	}
	var out []Divergence
	add := func(what string, x, y any) {
		if d := cmp.Diff(x, y); d != "" {
			out = append(out, Divergence{Output: what, Diff: d})
		}
	}
	add("type", s.APIVersion+" "+s.Kind, g.APIVersion+" "+g.Kind)
	// Which side may hold repeats of the other's events: the one read at
	// the later revision (eventRepeats applies to converted tables only).
	later := 0
	cols, events := eventsTableColumns(s.ColumnDefinitions)
	if n.enabled[NormEventRepeats] && events {
		later = revisionOrder(s.Metadata["resourceVersion"], g.Metadata["resourceVersion"])
	}
	// The Table's revision, where resourceVersion applies (a converted
	// list: the server's LIST ran at a later revision than the one the
	// upgrade converted, and leases move it between the two).
	n.walk(map[string]any{"kind": "Table", "metadata": s.Metadata}, map[string]any{"kind": "Table", "metadata": g.Metadata}, nil)
	add("metadata", s.Metadata, g.Metadata)
	add("columnDefinitions", s.ColumnDefinitions, g.ColumnDefinitions)
	var sr, gr []wireRow
	if err := decodeRows(s.Rows, &sr); err != nil {
		return nil, fmt.Errorf("the server's rows: %w", err)
	}
	if err := decodeRows(g.Rows, &gr); err != nil {
		return nil, fmt.Errorf("the synthesized rows: %w", err)
	}
	if len(sr) == 0 && len(gr) == 0 {
		add("rows encoding", rowsEncoding(s.Rows), rowsEncoding(g.Rows))
		return out, nil
	}
	if n.enabled[NormUnorderedRows] {
		sa, ga := rowsAny(sr), rowsAny(gr)
		if sortByIdentity(sa) || sortByIdentity(ga) {
			n.count(NormUnorderedRows, 1)
		}
		sr, gr = anyRows(sa), anyRows(ga)
	}
	add("rows (identity and order)", rowIdentities(sr), rowIdentities(gr))
	if len(sr) != len(gr) {
		return out, nil
	}
	for i := range sr {
		id := rowIdentity(sr[i])
		if id != rowIdentity(gr[i]) {
			continue // reported as an order or identity difference
		}
		switch later {
		case 1:
			n.forgiveRow(cols, sr[i].Cells, sr[i].Object, gr[i].Cells, gr[i].Object, n.ages)
		case -1:
			// The upgrade's list is the later one: the server's table was
			// rendered no later than it.
			n.forgiveRow(cols, gr[i].Cells, gr[i].Object, sr[i].Cells, sr[i].Object, window{-n.ages.hi, 0})
		}
		// Ages: the server rendered later than the start of the second
		// the upgrade renders as of (see tableGateOptions.ageSlack).
		if n.enabled[NormAges] {
			n.walk(sr[i].Cells, gr[i].Cells, nil)
		}
		add("cells of "+id, sr[i].Cells, gr[i].Cells)
		add("conditions of "+id, sr[i].Conditions, gr[i].Conditions)
		add("object of "+id, sr[i].Object, gr[i].Object)
	}
	return out, nil
}

func decodeRows(raw json.RawMessage, rows *[]wireRow) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return decodeJSON(raw, rows)
}

func rowsEncoding(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); s {
	case "", "null":
		return "null"
	default:
		return s
	}
}

func rowIdentity(r wireRow) string {
	m, _ := r.Object.(map[string]any)
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		if len(r.Cells) > 0 {
			return fmt.Sprint(r.Cells[0])
		}
		return "?"
	}
	id := fmt.Sprint(meta["name"])
	if ns, ok := meta["namespace"].(string); ok && ns != "" {
		id = ns + "/" + id
	}
	return id
}

func rowIdentities(rows []wireRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		m, _ := r.Object.(map[string]any)
		meta, _ := m["metadata"].(map[string]any)
		out[i] = fmt.Sprintf("%s (uid %v)", rowIdentity(r), meta["uid"])
	}
	return out
}

func rowsAny(rows []wireRow) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{"cells": r.Cells, "conditions": r.Conditions, "object": r.Object}
	}
	return out
}

func anyRows(a []any) []wireRow {
	out := make([]wireRow, len(a))
	for i, v := range a {
		m := v.(map[string]any)
		out[i].Cells, _ = m["cells"].([]any)
		out[i].Conditions, _ = m["conditions"].([]any)
		out[i].Object = m["object"]
	}
	return out
}
