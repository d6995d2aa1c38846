package transform

import (
	"io"
	"os"
	"strings"
	"testing"
)

// A spooled table has no name in the temporary folder from the moment it
// is created: a killed upgrade cannot leave it behind.
func TestTableSpoolHasNoName(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	table, err := newEntryBody(spoolAbove + 1)
	if err != nil {
		t.Fatal(err)
	}
	defer table.discard()
	if table.file == nil {
		t.Fatal("a table of a large list is not spooled")
	}
	want := strings.Repeat("row,", 1<<18)
	if _, err := io.WriteString(table, want); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the spool is in the temporary folder: %v", entries)
	}
	r, err := table.reader()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != want || table.size != int64(len(want)) {
		t.Errorf("read back %d bytes (%v), size %d, want %d", len(got), err, table.size, len(want))
	}
}
