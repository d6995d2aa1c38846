package contracttest

import (
	"fmt"
	"strings"
)

const (
	// ItemsDefault is the number of items of the many-items cases in
	// the default suite; issue #30 measured a million (make
	// hostile-long).
	ItemsDefault = 200_000
	// EntriesDefault is the number of entries of the many-entries case
	// in the default suite; issue #30 measured 500,000 (make
	// hostile-long).
	EntriesDefault = 100_000
)

// itemCases are the shapes whose memory follows their number of items
// or entries rather than their bytes: a list of n minimal pods and one of
// n minimal events (which the upgrade also converts to events.k8s.io),
// each named p0, p1, ... out of storage order, as no server lists them;
// and a bundle of entries empty entries. Big is what each costs
// uncompressed: the list, or the archive's headers (512 bytes an entry).
func itemCases(base []File, n, entries int) ([]built, error) {
	var out []built
	for _, c := range []struct {
		name, rel, kind, table, list string
		versions                     int
	}{
		{"many-pods", "cluster-resources/pods/default.json", "Pod", "/api/v1/namespaces/default/pods?limit=500", "/api/v1/pods", 1},
		{"many-events", "cluster-resources/events/default.json", "Event", "/api/v1/namespaces/default/events?limit=500", "/apis/events.k8s.io/v1/events", 2},
	} {
		list := minimalList(c.kind, n)
		files := []File{{Name: HostileRoot + "/" + c.rel, Body: list}}
		for _, f := range base {
			if f.Name != files[0].Name { // the good pod's list, in the pods case
				files = append(files, f)
			}
		}
		data, err := tgzFast(files)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, built{Hostile{Name: c.name, Want: fmt.Sprintf("%d %s objects in a list of %d bytes", n, c.kind, len(list)), Accepted: true,
			TablePath: c.table, Big: int64(len(list)), BigList: c.list, Items: n * c.versions}, data})
	}
	files := append([]File(nil), base...)
	for i := range entries {
		files = append(files, File{Name: fmt.Sprintf("%s/extra/e%07d.txt", HostileRoot, i)})
	}
	data, err := tgzFast(files)
	if err != nil {
		return nil, fmt.Errorf("many-entries: %w", err)
	}
	out = append(out, built{Hostile{Name: "many-entries", Want: fmt.Sprintf("%d empty entries", entries), Accepted: true,
		TablePath: "/api/v1/pods", Big: int64(entries) * 512, Ratios: map[string]float64{}}, data})
	return out, nil
}

// minimalList is a list of n objects of kind in the default namespace,
// each with nothing but its name and namespace, named out of storage
// order.
func minimalList(kind string, n int) string {
	var b strings.Builder
	b.Grow(n * 56)
	fmt.Fprintf(&b, `{"kind":"%sList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`, kind)
	prefix := strings.ToLower(kind[:1])
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"%s%d","namespace":"default"}}`, prefix, i)
	}
	b.WriteString(`]}`)
	return b.String()
}
