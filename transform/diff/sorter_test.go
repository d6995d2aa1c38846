package diff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// sortAll adds n records of random keys (few, so that many are equal),
// each carrying its number, to two sorters that share budget, and reads
// the first back.
func sortAll(t *testing.T, n, budget int) (got [][2]uint64, runs int) {
	t.Helper()
	sp, err := newSpill()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	buffers := int64(0)
	all := &sorters{spill: sp, budget: budget, buffers: func(n int64) { buffers += n }}
	s, other := all.new(), all.new()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		k := r.Uint64N(50)
		s.add(keyed(digits8(k)).uint(uint64(i)))
		other.add(keyed(digits8(k)).bytes(make([]byte, 40)))
		if all.total > budget+2*(recordCost+60) {
			t.Fatalf("%d bytes held past a budget of %d", all.total, budget)
		}
	}
	m, err := s.merge()
	if err != nil {
		t.Fatal(err)
	}
	runs = len(s.runs)
	if all.total != other.size {
		t.Errorf("%d bytes counted in the budget once merging, want the other sorter's %d", all.total, other.size)
	}
	if want := int64(runs) * runBuffer; buffers != want {
		t.Errorf("merging %d runs adds %d bytes to the limit, want %d", runs, buffers, want)
	}
	for {
		rec, err := m.peek()
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		p := payload(rec)
		got = append(got, [2]uint64{uint64FromKey(keyOf(rec)), p.uint()})
		m.pop()
	}
	m.close()
	if buffers != 0 {
		t.Errorf("%d bytes of buffers left on the limit once merged", buffers)
	}
	return got, runs
}

func digits8(n uint64) []byte { return []byte(fmt.Sprintf("%08d", n)) }

func uint64FromKey(k []byte) uint64 {
	var n uint64
	fmt.Sscanf(string(k), "%d", &n)
	return n
}

// A sorter gives back every record, by key, those of one key in the
// order they were added, whether they stayed in memory or went to the
// spill as many runs.
func TestSorter(t *testing.T) {
	const n = 3000
	inMemory, runs := sortAll(t, n, 1<<30)
	if runs != 0 {
		t.Fatalf("%d runs within the budget", runs)
	}
	spilled, runs := sortAll(t, n, 4000)
	if runs < 10 {
		t.Fatalf("%d runs: the test needs many", runs)
	}
	for name, got := range map[string][][2]uint64{"in memory": inMemory, "spilled": spilled} {
		if len(got) != n {
			t.Fatalf("%s: %d records back, want %d", name, len(got), n)
		}
		for i := 1; i < n; i++ {
			a, b := got[i-1], got[i]
			if a[0] > b[0] || a[0] == b[0] && a[1] > b[1] {
				t.Fatalf("%s: record %d %v after %v", name, i, b, a)
			}
		}
	}
}

// reportKey orders as the report does, string by string, whatever NULs
// the strings hold, and two identities never share a key.
func TestReportKey(t *testing.T) {
	d := &differ{resources: map[groupKind]string{{"", "Pod"}: "pods"}}
	pod := groupKind{"", "Pod"}
	keys := []objectKey{
		{pod, "a", "b"},
		{pod, "a", "b\x00"},
		{pod, "a", "b\x00c"},
		{pod, "a", "b\x01"},
		{pod, "a", "ba"},
		{pod, "a\x00", "a"},
		{pod, "a\x00b", "c"},
		{pod, "ab", ""},
	}
	for i := 1; i < len(keys); i++ {
		if a, b := d.reportKey(keys[i-1]), d.reportKey(keys[i]); bytes.Compare(a, b) >= 0 {
			t.Errorf("key of %q is not before that of %q", keys[i-1], keys[i])
		}
	}
	if bytes.Equal(d.reportKey(objectKey{pod, "a\x00b", "c"}), d.reportKey(objectKey{pod, "a", "b\x00c"})) {
		t.Error("two identities share a key")
	}
}
