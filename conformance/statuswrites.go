package conformance

import (
	"maps"
	"reflect"
)

// forgiveStatusWrite rewrites the object l as s where l is s with its
// status written again since (NormStatusWrites), and counts it: the same
// object at a later revision whose only writes since were to its status
// subresource. What such a write changes takes s's value: status,
// metadata.resourceVersion, and the time and fields of the status
// subresource's managedFields entries (later, up to the end of the live
// run). Everything else must already be equal; otherwise l is left as it
// is and diverges.
func (n *normalizer) forgiveStatusWrite(l, s map[string]any) {
	lm, _ := l["metadata"].(map[string]any)
	sm, _ := s["metadata"].(map[string]any)
	if lm == nil || sm == nil || !sameObject(l, s) || revisionOrder(lm["resourceVersion"], sm["resourceVersion"]) <= 0 {
		return
	}
	if _, ok := s["status"]; !ok {
		return
	}
	var r repeat
	lf, _ := lm["managedFields"].([]any)
	sf, _ := sm["managedFields"].([]any)
	if len(lf) != len(sf) {
		return
	}
	statusEntries := 0
	for i := range lf {
		lfm, _ := lf[i].(map[string]any)
		sfm, _ := sf[i].(map[string]any)
		if lfm == nil || sfm == nil {
			return
		}
		if sfm["subresource"] != "status" {
			if !reflect.DeepEqual(lfm, sfm) {
				return
			}
			continue
		}
		statusEntries++
		if !equalBut(lfm, sfm, "time", "fieldsV1") {
			return
		}
		r.time(lfm, sfm, "time", n.until)
		sv := sfm["fieldsV1"]
		r.set(func() { lfm["fieldsV1"] = sv })
	}
	if r.bad || statusEntries == 0 {
		return
	}
	sv, svStatus := sm["resourceVersion"], s["status"]
	r.set(func() { lm["resourceVersion"] = sv })
	r.set(func() { l["status"] = svStatus })
	for _, fix := range r.fixes {
		fix()
	}
	n.count(NormStatusWrites, 1)
}

// equalBut says whether two maps are equal but for the given keys.
func equalBut(a, b map[string]any, keys ...string) bool {
	a, b = maps.Clone(a), maps.Clone(b)
	for _, k := range keys {
		delete(a, k)
		delete(b, k)
	}
	return reflect.DeepEqual(a, b)
}
