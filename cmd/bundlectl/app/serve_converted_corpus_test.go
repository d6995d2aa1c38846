package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestServeCorpusEventsAPIGroup serves every real bundle, which stores
// core/v1 Events only, and checks that events.k8s.io/v1 (k9s's :events
// view asks for it) lists the same events as the core group, with the
// same table: on a live server the two are views of one stored object,
// and the upgrade converts the bundle's list to the other group.
func TestServeCorpusEventsAPIGroup(t *testing.T) {
	corpus := contracttest.CorpusDir(t)
	kubectl := testenv.Kubectl(t)
	for _, rb := range contracttest.RealBundles {
		t.Run(rb.Name, func(t *testing.T) {
			t.Parallel()
			in := filepath.Join(corpus, rb.Path)
			kubeconfig, _ := serveCorpusForTest(t, in)
			get := func(args ...string) string {
				t.Helper()
				stdout, stderr, err := runKubectl(t, kubectl, kubeconfig, append([]string{"get"}, args...)...)
				if err != nil || stderr != "" {
					t.Fatalf("kubectl get %s: %v\n%s", strings.Join(args, " "), err, stderr)
				}
				return stdout
			}
			core := get("events", "-A")
			if lines := strings.Count(core, "\n"); lines != rb.Counts["events"]+1 {
				t.Fatalf("kubectl get events -A printed %d lines for %d events:\n%s", lines, rb.Counts["events"], core)
			}
			if group := get("events.events.k8s.io", "-A"); group != core {
				t.Errorf("kubectl get events.events.k8s.io -A:\n%s\nkubectl get events -A:\n%s", group, core)
			}
			// The same objects, as events.k8s.io/v1 Events.
			names := get("events.v1.events.k8s.io", "-A", "-o", "jsonpath={range .items[*]}{.apiVersion} {.metadata.namespace}/{.metadata.name}{'\\n'}{end}")
			coreNames := get("events", "-A", "-o", "jsonpath={range .items[*]}events.k8s.io/v1 {.metadata.namespace}/{.metadata.name}{'\\n'}{end}")
			if names != coreNames {
				t.Errorf("events.k8s.io/v1 lists\n%s\nthe core group lists\n%s", names, coreNames)
			}
		})
	}
}
