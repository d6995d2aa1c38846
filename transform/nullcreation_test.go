package transform

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A CronJob converted for a 1.24 bundle carries null creationTimestamps in
// its job template's and pod template's metadata, as 1.24 wrote them
// (the live 1.24 server's batch/v1beta1 answer); for 1.34 on, none.
func TestMarshalForMinor(t *testing.T) {
	cronJob := func() *batchv1.CronJob {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cleanup", CreationTimestamp: metav1.Unix(1700000000, 0)}}
		cj.Spec.JobTemplate.Labels = map[string]string{"app": "cleanup"}
		cj.Spec.JobTemplate.Spec.Template.Labels = map[string]string{"app": "cleanup"}
		return cj
	}
	old, err := marshalForMinor(cronJob(), 24)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(old), `"metadata":{"creationTimestamp":null,"labels":{"app":"cleanup"}}`); n != 2 {
		t.Errorf("1.24: %d templates with a null creationTimestamp in %s", n, old)
	}
	if !strings.Contains(string(old), `"metadata":{"name":"cleanup","creationTimestamp":"2023-11-14T22:13:20Z"}`) {
		t.Errorf("1.24: the object's own metadata changed: %s", old)
	}
	cj := cronJob()
	if _, err := marshalForMinor(cj, 24); err != nil || !cj.Spec.JobTemplate.CreationTimestamp.IsZero() {
		t.Errorf("the object keeps the sentinel: %v %v", cj.Spec.JobTemplate.CreationTimestamp, err)
	}
	cur, err := marshalForMinor(cronJob(), 34)
	if err != nil || strings.Contains(string(cur), `"creationTimestamp":null`) {
		t.Errorf("1.34: %s %v", cur, err)
	}
	// The sentinel's text elsewhere: the object is encoded as the pin does.
	odd := cronJob()
	odd.Spec.JobTemplate.Annotations = map[string]string{"creationTimestamp": creationSentinel.UTC().Format("2006-01-02T15:04:05Z")}
	got, err := marshalForMinor(odd, 24)
	if err != nil || strings.Contains(string(got), `"creationTimestamp":null`) || !strings.Contains(string(got), `"creationTimestamp":"0001-01-01T00:00:01Z"`) {
		t.Errorf("with the sentinel in an annotation: %s %v", got, err)
	}
}
