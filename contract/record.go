package contract

import (
	"errors"
	"strings"
)

// IsListOfRecord says whether e is one of the bundle's lists of record:
// the raw lists every reader reads (inspect counts them, upgrade tables
// them, serve serves them), so that all of them see the same objects.
// An entry is one when it is
//
//   - under the bundle root, and classified as a resource list;
//   - a regular file, or a link read as the file it names (HasContent):
//     extracting gives that file at the link's path;
//   - not superseded by a later entry of the same name: extracting an
//     archive keeps the last copy, and so does every reader;
//   - not a YAML list whose JSON twin the bundle also holds:
//     troubleshoot v0.76–v0.132 wrote both, and redaction could break
//     the YAML, so the JSON is preferred.
func (b *Bundle) IsListOfRecord(e *Entry) bool {
	return e.InRoot && e.Class.Class == ClassResourceList && e.HasContent() && !e.Superseded &&
		!(e.Class.Format == FormatYAML && b.Names[strings.TrimSuffix(e.Rel, ".yaml")+".json"])
}

// LocalError is the problem err, returned by e.ReadAll, is with e alone
// (an entry over the decode limit), which a reader reports and skips; it
// is nil when err breaks the bundle (a truncated or corrupt archive) and
// must end the walk.
func (e *Entry) LocalError(err error) error {
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Entry != e.Name {
		return nil
	}
	if msg := err.Error(); strings.Contains(msg, "truncated") || strings.Contains(msg, "corrupt") {
		return nil
	}
	return ee.Err
}
