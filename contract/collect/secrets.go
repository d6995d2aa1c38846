package collect

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/internal/rawjson"
)

// hidden replaces secret values, as troubleshoot's redactors do; hiddenData
// is hidden base64-encoded, for data, so the object still decodes as a Secret.
const (
	hidden                = "***HIDDEN***"
	hiddenData            = "KioqSElEREVOKioq"
	lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
)

func isSecrets(gvr schema.GroupVersionResource) bool {
	return gvr.Group == "" && gvr.Resource == "secrets"
}

// maskSecret replaces every value of data and stringData, keeping the keys
// (the server's DATA column counts them), and the same values inside the
// last-applied-configuration annotation that `kubectl apply` leaves.
func maskSecret(item json.RawMessage) (json.RawMessage, error) {
	o, err := rawjson.ParseObject(item)
	if err != nil {
		return nil, err
	}
	for key, mask := range map[string]string{"data": hiddenData, "stringData": hidden} {
		if v := o.Get(key); v != nil {
			masked, err := maskValues(v, mask)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			o = o.With(key, masked)
		}
	}
	if md := o.Get("metadata"); md != nil {
		masked, changed, err := maskMetadata(md)
		if err != nil {
			return nil, err
		}
		if changed {
			o = o.With("metadata", masked)
		}
	}
	return o.Marshal(), nil
}

// maskRow masks the last-applied annotation of a Table row's object, the
// only place a server-rendered Secret table shows values. Other rows are
// returned unchanged.
func maskRow(row json.RawMessage) (json.RawMessage, error) {
	r, err := rawjson.ParseObject(row)
	if err != nil {
		return nil, err
	}
	obj := r.Get("object")
	if obj == nil || string(obj) == "null" {
		return row, nil
	}
	o, err := rawjson.ParseObject(obj)
	if err != nil {
		return nil, err
	}
	masked, changed, err := maskMetadata(o.Get("metadata"))
	if err != nil || !changed {
		return row, err
	}
	return r.With("object", o.With("metadata", masked).Marshal()).Marshal(), nil
}

// maskValues replaces every value of a JSON object of strings.
func maskValues(raw json.RawMessage, mask string) (json.RawMessage, error) {
	if string(raw) == "null" {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	masked, _ := json.Marshal(mask)
	for k := range m {
		m[k] = masked
	}
	return json.Marshal(m)
}

// maskMetadata masks the secret's values in the last-applied annotation;
// an annotation that is not JSON is replaced whole.
func maskMetadata(md json.RawMessage) (json.RawMessage, bool, error) {
	if md == nil {
		return nil, false, nil
	}
	o, err := rawjson.ParseObject(md)
	if err != nil {
		return nil, false, fmt.Errorf("metadata: %w", err)
	}
	var annotations map[string]string
	if raw := o.Get("annotations"); raw != nil {
		if err := json.Unmarshal(raw, &annotations); err != nil {
			return nil, false, fmt.Errorf("metadata.annotations: %w", err)
		}
	}
	applied, ok := annotations[lastAppliedAnnotation]
	if !ok {
		return md, false, nil
	}
	annotations[lastAppliedAnnotation] = maskLastApplied(applied)
	raw, err := json.Marshal(annotations)
	if err != nil {
		return nil, false, err
	}
	return o.With("annotations", raw).Marshal(), true, nil
}

func maskLastApplied(applied string) string {
	masked, err := maskSecret(json.RawMessage(strings.TrimSpace(applied)))
	if err != nil {
		return hidden
	}
	if strings.HasSuffix(applied, "\n") {
		return string(masked) + "\n"
	}
	return string(masked)
}
