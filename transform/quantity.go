package transform

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kubernetes/pkg/apis/autoscaling"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// Bounds on what an item may hold where a resource.Quantity could be
// read. The apimachinery parser computes 10^|exponent| exactly, so
// "1e-999999999" in a node's capacity runs for hours and takes gigabytes
// (1e-100000 takes a millisecond), and rendering a quantity of 100,000
// digits takes seconds; no real quantity comes near either bound (kube-apiserver stores them in
// canonical form, a few characters long).
const (
	maxQuantityExponent = 100000
	maxQuantityDigits   = 1000
)

// readQuantity decodes one quantity of a typed object as its
// UnmarshalJSON method does, once the value has been found within the
// bounds: the method is given the value as it is written, quotes and
// escapes included.
func readQuantity(dec *jsontext.Decoder, q *resource.Quantity) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	text := []byte(v)
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		text = text[1 : len(text)-1]
	}
	if err := checkQuantity(text); err != nil {
		return err
	}
	return q.UnmarshalJSON(v)
}

// quantityAnnotations are the annotations whose JSON the conversion of an
// autoscaling/v1 HorizontalPodAutoscaler decodes into metrics that hold
// quantities (pkg/apis/autoscaling/v1/conversion.go); they are the only
// quantities read from anything but a typed field.
var quantityAnnotations = []string{autoscaling.MetricSpecsAnnotation, autoscaling.MetricStatusesAnnotation}

// checkConvertedQuantities bounds the quantities the conversion of obj
// to its internal version will read from its annotations.
func checkConvertedQuantities(obj any) error {
	hpa, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	if !ok {
		return nil
	}
	for _, name := range quantityAnnotations {
		if v, ok := hpa.Annotations[name]; ok {
			if err := checkQuantities([]byte(v)); err != nil {
				return fmt.Errorf("annotation %s: %w", name, err)
			}
		}
	}
	return nil
}

// checkQuantities refuses JSON text holding a string or a number that the
// quantity parser would spend unbounded time on. Other values are not
// looked at closely, so the scan costs one pass over the bytes.
func checkQuantities(raw []byte) error {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			next := rawjson.SkipString(raw, i)
			content := raw[i+1 : max(next-1, i+1)]
			if bytes.IndexByte(content, '\\') >= 0 {
				content = []byte(rawjson.String(raw[i:next]))
			} else if !mayBeQuantity(content) {
				content = nil
			}
			if err := checkQuantity(content); err != nil {
				return err
			}
			i = next
		case c == '-' || c >= '0' && c <= '9':
			end := i
			for end < len(raw) && numberByte[raw[end]] {
				end++
			}
			if err := checkQuantity(raw[i:end]); err != nil {
				return err
			}
			i = end
		default:
			i++
		}
	}
	return nil
}

// numberByte marks the bytes of a JSON number.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true,
	'7': true, '8': true, '9': true, '.': true, 'e': true, 'E': true, '+': true, '-': true}

// mayBeQuantity says whether an unescaped string could start with a
// number once trimmed: most strings (names, labels, images) cannot, and
// are passed over without a copy.
func mayBeQuantity(b []byte) bool {
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			continue
		case c >= 0x80:
			return true // Unicode space, as strings.TrimSpace trims it: let checkQuantity look
		}
		return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
	}
	return false
}

// checkQuantity looks at one value as the quantity parser would: a
// number, then a suffix that may be an exponent. It reads the bytes in
// place: most values it sees are timestamps and small numbers.
func checkQuantity(v []byte) error {
	v = bytes.TrimSpace(v)
	n := bytes.TrimLeft(v, "+-")
	digits := 0
	for digits < len(n) && (n[digits] >= '0' && n[digits] <= '9' || n[digits] == '.') {
		digits++
	}
	if digits == 0 {
		return nil
	}
	if digits > maxQuantityDigits {
		return fmt.Errorf("the value %.40q... has %d digits, more than a quantity can have", v, digits)
	}
	suffix := n[digits:]
	if len(suffix) < 2 || suffix[0] != 'e' && suffix[0] != 'E' {
		return nil
	}
	exp := bytes.TrimLeft(bytes.TrimLeft(suffix[1:], "+-"), "0")
	e := 0
	for _, c := range exp {
		if c < '0' || c > '9' {
			return nil // not a number the parser reads as an exponent
		}
		if e <= maxQuantityExponent {
			e = e*10 + int(c-'0')
		}
	}
	if e > maxQuantityExponent {
		return fmt.Errorf("the value %.40q has an exponent beyond ±%d, which no quantity can have", v, maxQuantityExponent)
	}
	return nil
}
