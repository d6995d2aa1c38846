package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// objectsKey is where the objects go in the report's JSON, indented as
// encoding/json indents a key of the top level: a newline (which JSON
// only ever writes between tokens) and two spaces.
var objectsKey = []byte("\n  \"objects\": []")

// WriteJSON writes the report as indented JSON, the bytes encoding/json
// writes of the Report with all its objects, without holding them: the
// head is encoded with no object, and the objects are written in their
// place, each encoded as encoding/json indents an item of the list.
func (r *Result) WriteJSON(w io.Writer) error {
	head := r.Report
	head.Objects = []ObjectChange{}
	var doc bytes.Buffer
	enc := json.NewEncoder(&doc)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&head); err != nil {
		return err
	}
	at := bytes.Index(doc.Bytes(), objectsKey)
	if at < 0 {
		return fmt.Errorf("no %q in the report's JSON", objectsKey)
	}
	at += len(objectsKey) - 1 // before the list's "]"
	bw := bufio.NewWriterSize(w, 256<<10)
	bw.Write(doc.Bytes()[:at])
	for i := range r.count {
		o, err := r.object(i)
		if err != nil {
			return err
		}
		item, err := json.MarshalIndent(o, "    ", "  ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(item)
	}
	if r.count > 0 {
		bw.WriteString("\n  ")
	}
	bw.Write(doc.Bytes()[at:])
	return bw.Flush()
}
