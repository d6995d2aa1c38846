package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// encodeTable encodes a table as the server's codec does, type included.
func encodeTable(table *metav1.Table) ([]byte, error) {
	table.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("Table"))
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(table); err != nil {
		return nil, fmt.Errorf("encoding the table: %w", err)
	}
	return buf.Bytes(), nil
}

// tableEncoder writes a table whose rows come in chunks: the first chunk
// gives everything but the rows, each row is encoded as encoding/json
// encodes the elements of an array.
type tableEncoder struct {
	w    io.Writer
	tail []byte
	rows int
	row  bytes.Buffer
	// nullCreation writes a row object's zero creationTimestamp as null,
	// as servers up to lastMinorWithNullCreation did.
	nullCreation bool
}

// lastMinorWithNullCreation is the last minor whose ObjectMeta wrote a
// zero creationTimestamp as null: k8s.io/apimachinery v0.34 tagged it
// omitzero (pkg/apis/meta/v1/types.go), and its servers leave it out.
// Rows of objects without one (ComponentStatuses, made up per request)
// show it.
const lastMinorWithNullCreation = 33

// creationSentinel stands in for a zero creationTimestamp while a row
// object is marshalled, to be replaced by null: no object the server
// stored carries it, and the key is the first of its name in a
// PartialObjectMetadata, where no string can hold it unescaped.
var creationSentinel = metav1.NewTime(time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC))

func (e *tableEncoder) add(table *metav1.Table) error {
	if e.tail == nil {
		rows := table.Rows
		table.Rows = []metav1.TableRow{}
		head, err := encodeTable(table)
		table.Rows = rows
		if err != nil {
			return err
		}
		const empty = `"rows":[]}`
		i := bytes.LastIndex(head, []byte(empty))
		if i < 0 {
			return fmt.Errorf("encoding the table: no rows member in %.100s", head)
		}
		n := i + len(`"rows":[`)
		e.tail = head[n:]
		if _, err := e.w.Write(head[:n]); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(&e.row)
	for i := range table.Rows {
		e.row.Reset()
		if e.rows > 0 {
			e.row.WriteByte(',')
		}
		if err := e.encodeRow(enc, &table.Rows[i]); err != nil {
			return fmt.Errorf("encoding the table: %w", err)
		}
		if _, err := e.w.Write(bytes.TrimSuffix(e.row.Bytes(), []byte("\n"))); err != nil {
			return err
		}
		e.rows++
	}
	return nil
}

// encodeRow writes a row to e.row as enc encodes it. encoding/json
// compacts what RawExtension.MarshalJSON returns, a second pass over the
// row's object, which is most of a row's bytes; the object, encoded
// compact, goes in place of a null object instead.
func (e *tableEncoder) encodeRow(enc *json.Encoder, row *metav1.TableRow) error {
	obj := row.Object
	if obj.Raw != nil || obj.Object == nil {
		return enc.Encode(row)
	}
	row.Object = runtime.RawExtension{}
	err := enc.Encode(row)
	row.Object = obj
	if err != nil {
		return err
	}
	const null = `null}` + "\n"
	b := e.row.Bytes()
	if !bytes.HasSuffix(b, []byte(null)) {
		return fmt.Errorf("no object member in %.100s", b)
	}
	e.row.Truncate(len(b) - len(null))
	if err := e.writeObject(obj.Object); err != nil {
		return err
	}
	e.row.WriteString("}\n")
	return nil
}

// writeObject appends a row object's JSON, as the rendered minor's server
// wrote it, to e.row: encoded in place, not into a buffer of its own.
func (e *tableEncoder) writeObject(obj runtime.Object) error {
	p, ok := obj.(*metav1.PartialObjectMetadata)
	if !e.nullCreation || !ok || !p.CreationTimestamp.IsZero() {
		return marshalTo(&e.row, obj)
	}
	withSentinel := *p
	withSentinel.CreationTimestamp = creationSentinel
	data, err := marshal(&withSentinel)
	if err != nil {
		return err
	}
	key := []byte(`"creationTimestamp":`)
	sentinel, err := marshal(creationSentinel)
	if err != nil {
		return err
	}
	e.row.Write(bytes.Replace(data, append(key, sentinel...), append(key, "null"...), 1))
	return nil
}

func (e *tableEncoder) finish() error {
	_, err := e.w.Write(e.tail)
	return err
}
