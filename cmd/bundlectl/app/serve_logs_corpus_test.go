package app

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
	"github.com/bundlectl/bundlectl/internal/test/testenv"
)

// TestServeCorpusLogs walks every real bundle of the corpus and asks the
// served bundle, with the real kubectl, for every container log the
// bundle holds, in whatever layout troubleshoot wrote it (the contract's
// map of them, contract.MapPodLogs): `kubectl logs` prints the file, and
// a file recording why a log could not be collected is the error's
// reason. Logs of pods the bundle does not list (troubleshoot's run and
// runPod pods, deleted before the collection ended: all the 2025
// bundles' logs) cannot be asked for; inspect lists them.
func TestServeCorpusLogs(t *testing.T) {
	// The logs of pods in the bundle, by layout: the 2021 bundle's are in
	// the logs collector's <name>/<pod>.log form (its fourth file,
	// kotsadm-postgres-0.log, fits the pods of that name in two
	// namespaces and is served for each with a Warning), the 2022 one's
	// in cluster-resources/ with all-logs/ links to them, sbctl's (a
	// velero pod's seven) in cluster-resources/.
	// k3s-pr1852's two Unschedulable pods have log files, each two empty
	// lines: the server answered their logs with nothing (no node ran
	// them), and troubleshoot wrote its own newlines.
	want := map[string]int{"v0.10.10-2021": 5, "v0.50.0-2022": 18, "sbctl-2022": 7, "k3s-pr1852-2025": 9}
	corpus := contracttest.CorpusDir(t)
	kubectl := testenv.Kubectl(t)
	for _, rb := range contracttest.RealBundles {
		t.Run(rb.Name, func(t *testing.T) {
			t.Parallel()
			in := filepath.Join(corpus, rb.Path)
			kubeconfig, _ := serveCorpusForTest(t, in)
			logs, contents := bundleLogs(t, in)
			unscheduled := unscheduledPods(t, in)
			asked := 0
			for _, l := range logs {
				if !l.PodInBundle {
					continue
				}
				asked++
				args := []string{"logs", "-n", l.Namespace, l.Pod, "-c", l.Container}
				if l.Previous {
					args = append(args, "--previous")
				}
				stdout, stderr, err := runKubectl(t, kubectl, kubeconfig, args...)
				if l.Error {
					if err == nil || !strings.Contains(stderr, "were not collected in this support bundle: ") {
						t.Errorf("kubectl %s (%s, a record of why it was not collected): %v\n%s", strings.Join(args, " "), l.Path, err, stderr)
					}
					continue
				}
				wantErr := ""
				if len(l.Ambiguous) > 0 {
					wantErr = "Warning: " + l.Path + ", the file this support bundle holds for this log, names no namespace and may be the log of pod " + strings.Join(l.Ambiguous, ", ") + " instead: troubleshoot wrote the logs of pods of the same name to one file, the last one winning\n"
				}
				wantOut := contents[l.Path]
				if unscheduled[l.Namespace+"/"+l.Pod] {
					wantOut = "" // the server's answer for a pod no node ran
				}
				if err != nil || stdout != wantOut || stderr != wantErr {
					t.Errorf("kubectl %s: %v, %d bytes, want the %d of %s\n%s", strings.Join(args, " "), err, len(stdout), len(contents[l.Path]), l.Path, stderr)
				}
			}
			if asked != want[rb.Name] {
				t.Errorf("%d logs of pods in the bundle, want %d", asked, want[rb.Name])
			}
			t.Logf("%d logs asked for and answered from their file", asked)
		})
	}
}

// unscheduledPods are the namespace/name of the bundle's pods that no
// node ran (no spec.nodeName).
func unscheduledPods(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out := map[string]bool{}
	err = b.Walk(func(e *contract.Entry) error {
		if !b.IsListOfRecord(e) || e.Class.GR.Resource != "pods" || e.Class.GR.Group != "" {
			return nil
		}
		l, err := e.DecodeList()
		if err != nil {
			return err
		}
		for _, raw := range l.Items {
			var pod struct {
				Metadata struct{ Namespace, Name string }
				Spec     struct{ NodeName string }
			}
			if err := json.Unmarshal(raw, &pod); err != nil {
				return err
			}
			if pod.Spec.NodeName == "" {
				out[pod.Metadata.Namespace+"/"+pod.Metadata.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bundleLogs maps the bundle's logs as the contract does, with the
// content of every regular file that may be a log.
func bundleLogs(t *testing.T, path string) ([]contract.PodLog, map[string]string) {
	t.Helper()
	b, err := contract.Open(path, contract.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rep, err := contract.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string]string{}
	err = b.Walk(func(e *contract.Entry) error {
		if f, ok := contract.LogFileOf(e); ok && e.InRoot && !f.Symlink {
			data, err := io.ReadAll(e.Reader())
			contents[f.Rel] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Logs, contents
}
