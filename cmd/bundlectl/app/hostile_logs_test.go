//go:build linux

package app_test

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// manyLogsMaxRSS bounds serve's peak on a bundle of 100,000 tiny logs:
// what it keeps of a log is its place in one spool and its names. On 28
// November 2026 the peak was 292 to 299 MB, 169 MB for the same bundle
// without its logs: about 1.2 KB per log entry, while loading (issue #30
// wants per-entry overhead down; this bound keeps it from growing).
const manyLogsMaxRSS = 384 << 20

// TestServeManyLogs serves a legacy bundle of 20,000 pods of 5
// containers, each with a log of one line: 100,000 logs. serve never has
// more than a handful of entries in the temporary folder (it had one
// file per log: 100,003 files and 500 MB for 100k tiny logs), keeps its
// peak memory under manyLogsMaxRSS, and serves each log as collected.
func TestServeManyLogs(t *testing.T) {
	const pods, containers = 20000, 5
	root := "support-bundle-2025-11-20T10_00_00/"
	var items []string
	files := []contracttest.File{{Name: root + "version.yaml", Body: "spec:\n  versionNumber: v0.100.0\n"}}
	for p := range pods {
		var cs []string
		for c := range containers {
			cs = append(cs, fmt.Sprintf(`{"name":"c%d","image":"x"}`, c))
			files = append(files, contracttest.File{Name: fmt.Sprintf("%scluster-resources/pods/logs/default/pod-%05d/c%d.log", root, p, c), Body: fmt.Sprintf("pod %d container %d\n", p, c)})
		}
		items = append(items, fmt.Sprintf(`{"metadata":{"name":"pod-%05d","namespace":"default","creationTimestamp":"2025-11-20T09:00:00Z"},"spec":{"nodeName":"n","containers":[%s]},"status":{"phase":"Running"}}`, p, strings.Join(cs, ",")))
	}
	files = append(files, contracttest.File{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[` + strings.Join(items, ",") + `]}`})
	bundle := contracttest.WriteTarGz(t, t.TempDir(), "many-logs.tar.gz", files)

	tmp := t.TempDir()
	r := start(t, bundlectlCmd(t, t.TempDir(), []string{"TMPDIR=" + tmp}, "serve", bundle))
	most := 0
	var kubeconfig string
	for deadline := time.Now().Add(5 * time.Minute); kubeconfig == ""; time.Sleep(20 * time.Millisecond) {
		n := 0
		filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != tmp {
				n++
			}
			if err == nil && d.Name() == "kubeconfig" {
				kubeconfig = p
			}
			return nil
		})
		most = max(most, n)
		select {
		case <-r.done:
			t.Fatalf("serve ended:\n%s", r.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start in 5 minutes:\n%s", r.stderr)
		}
	}
	if most > 5 {
		t.Errorf("%d entries in the temporary folder at once, want a handful", most)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range [][2]int{{0, 0}, {12345, 3}, {pods - 1, containers - 1}} {
		resp, err := client.Get(fmt.Sprintf("%s/api/v1/namespaces/default/pods/pod-%05d/log?container=c%d", cfg.Host, pc[0], pc[1]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("pod %d container %d\n", pc[0], pc[1]); string(body) != want {
			t.Errorf("log of pod-%05d c%d: %d %q, want %q", pc[0], pc[1], resp.StatusCode, body, want)
		}
	}
	r.cmd.Process.Signal(syscall.SIGINT)
	r.wait(t, "serve")
	peak := peakRSS(r.cmd)
	t.Logf("serve of 100,000 logs: peak RSS %d MB, at most %d entries in TMPDIR", peak>>20, most)
	if peak > manyLogsMaxRSS {
		t.Errorf("peak RSS %d MB, over %d MB", peak>>20, manyLogsMaxRSS>>20)
	}
	checkEmpty(t, "serve", tmp)
}
