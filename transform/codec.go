package transform

import (
	"bytes"
	"io"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// decodeOptions make go-json-experiment/json (the encoding/json/v2 of Go
// 1.27) read an object exactly as the apiserver's JSON serializer does
// with sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts: the v1
// semantics (legacy methods, nulls, merges, duplicate names, invalid
// UTF-8) with member names matched case-sensitively. The v1 decoder
// validates an object in one pass and decodes it in another; this one
// does both in one pass, which makes the upgrade's decode about twice as
// fast. Errors are v2's (ReportErrorsWithLegacySemantics(false)): v1's
// semantics would validate each object again before decoding it, which
// its list's scan has done (contract.DecodeList), at a tenth of the
// decode; v2 stops at an object's first error where v1 goes on to report
// the same first one, and words it its own way. The other differences
// are in struct types with conflicting names or malformed tags, which no
// decoded type has (TestDecodedTypesHoldNoInterface). PreserveInts only
// changes numbers decoded into an interface value, which no decoded type
// holds either.
// Each quantity is bounded as it is read (readQuantity), and times and
// int-or-strings are read without a second decoder (readTime,
// readIntOrString).
var decodeOptions = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsonv2.MatchCaseInsensitiveNames(false),
	jsonv1.ReportErrorsWithLegacySemantics(false),
	jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
		jsonv2.UnmarshalFromFunc(readQuantity),
		jsonv2.UnmarshalFromFunc(readTime),
		jsonv2.UnmarshalFromFunc(readIntOrString),
	)),
)

// unmarshal decodes an object's JSON into its typed value with
// decodeOptions. It is a variable so that TestDecodeIsTheServersDecode can
// hold every object an upgrade reads to the serializer's own decoder.
var unmarshal = func(raw []byte, obj runtime.Object) error {
	return jsonv2.Unmarshal(raw, obj, decodeOptions)
}

// readTime decodes a metav1.Time as its UnmarshalJSON method does (a
// string parsed as RFC 3339, in the local zone), without the method's
// decoding of the string by encoding/json, which took a sixth of the
// decode. A string with escapes or bytes that are not UTF-8, null or
// anything else is left to the method.
func readTime(dec *jsontext.Decoder, t *metav1.Time) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if !plainString(v) {
		return t.UnmarshalJSON(v)
	}
	parsed, err := time.Parse(time.RFC3339, string(v[1:len(v)-1]))
	if err != nil {
		return err
	}
	t.Time = parsed.Local()
	return nil
}

// readIntOrString decodes an intstr.IntOrString as its UnmarshalJSON
// method does, a plain string without the method's second decoder; a
// string with escapes or bytes that are not UTF-8, and anything else,
// are left to the method.
func readIntOrString(dec *jsontext.Decoder, v *intstr.IntOrString) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if !plainString(raw) {
		return v.UnmarshalJSON(raw)
	}
	v.Type, v.StrVal = intstr.String, string(raw[1:len(raw)-1])
	return nil
}

// plainString says whether a JSON value is a string whose text is its
// bytes between the quotes: no escapes, valid UTF-8.
func plainString(v jsontext.Value) bool {
	return len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v)
}

// marshal encodes v exactly as encoding/json does, which is how the
// apiserver writes objects: the v2 encoder with every v1 semantic
// (jsonv1.DefaultOptionsV1), faster on the many objects of a table's
// rows. FuzzDecodeIsTheServersDecode holds it to encoding/json.
func marshal(v any) ([]byte, error) {
	return jsonv2.Marshal(v, jsonv1.DefaultOptionsV1())
}

// marshalTo is marshal writing into w.
func marshalTo(w io.Writer, v any) error {
	return jsonv2.MarshalWrite(w, v, jsonv1.DefaultOptionsV1())
}
