//go:build unix

package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/contract/termtext"
	"github.com/bundlectl/bundlectl/internal/test/contracttest"
)

// hostileText takes over a terminal that prints it: it erases the line
// and returns to its start (CSI 2K, \r), backs up (\b), sets the window
// title (OSC 0), writes the clipboard (OSC 52), starts a CSI with the C1
// control U+009B and reverses the text after it (U+202E).
const hostileText = "\x1b[2K\rPASS\b\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u009b31m\u202eevil"

// hostileShown is how hostileText reads once escaped.
var hostileShown = termtext.Escape(hostileText)

// rawControl returns the first character of out a terminal would act on
// (anything Escape changes but a line break), or "".
func rawControl(out string) string {
	if !utf8.ValidString(out) {
		return "a byte that is not UTF-8"
	}
	for _, r := range out {
		if r != '\n' && termtext.Escape(string(r)) != string(r) {
			return termtext.Escape(string(r))
		}
	}
	return ""
}

// hostileTextBundle is a legacy bundle whose versions, analysis, entry
// names, object names and problems all hold hostileText.
func hostileTextBundle(t *testing.T, dir string) string {
	root := "support-bundle-2025-01-02T03_04_05/"
	js, err := json.Marshal(hostileText)
	if err != nil {
		t.Fatal(err)
	}
	h := string(js[1 : len(js)-1]) // hostileText in a JSON string
	return contracttest.WriteTarGz(t, dir, "hostile-text.tgz", []contracttest.File{
		{Name: root + "cluster-info/cluster_version.json", Body: `{"info":{"gitVersion":"v1.31.2+` + h + `"}}`},
		{Name: root + "analysis.json", Body: `[{"name":"a","insight":{"primary":"` + h + `","detail":"` + h + `","severity":"error"}}]`},
		{Name: root + "cluster-resources/pods/default.json", Body: `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"web","namespace":"default"},"spec":{"nodeName":"n1","containers":[{"name":"app"}]}},{"metadata":{"name":"` + h + `","namespace":"default"}}]}`},
		{Name: root + hostileText + "/web/app.log", Body: "a log line\n"}, // the logs collector's before v0.48.0
		{Name: root + "cluster-resources/pods/logs/default/" + hostileText + "/app.log", Body: "a log line\n"},
		{Name: root + "cluster-resources/nodes-" + hostileText + ".json", Body: `not JSON`},
		{Name: root + "cluster-resources/services/" + hostileText + ".json", Body: `{"kind":"ServiceList","items":[`},
		{Name: root + "cluster-resources/services/" + hostileText + ".json", Body: `{"kind":"ServiceList","items":[`},
	})
}

// Every command prints what a bundle holds escaped: entry names,
// versions, analysis titles and messages, problems, warnings and the
// access log; -o json escapes it in JSON and keeps its value.
func TestHostileTextIsEscaped(t *testing.T) {
	work := t.TempDir()
	bundle := hostileTextBundle(t, work)
	env := []string{"HOME=" + work, "SHELL=/bin/sh"}
	check := func(what, out string, shown bool) {
		t.Helper()
		if c := rawControl(out); c != "" {
			t.Errorf("%s printed %s raw:\n%s", what, c, termtext.Escape(out))
		}
		if shown && !strings.Contains(out, hostileShown) {
			t.Errorf("%s did not print the hostile text escaped (%s):\n%s", what, hostileShown, out)
		}
	}
	run := func(shown bool, args ...string) childResult {
		t.Helper()
		r := runBundlectl(t, work, env, args...)
		check(strings.Join(args, " ")+": stdout", r.stdout, shown)
		check(strings.Join(args, " ")+": stderr", r.stderr, false)
		return r
	}

	r := run(true, "inspect", bundle)
	for _, want := range []string{"FAIL  " + hostileShown + ": " + hostileShown, "default/" + hostileShown + " app, 11 bytes"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect: no %q in\n%s", want, r.stdout)
		}
	}
	r = run(false, "inspect", "-o", "json", bundle)
	var rep struct {
		Analysis []struct{ Title string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Analysis) != 1 || rep.Analysis[0].Title != hostileText {
		t.Errorf("inspect -o json: %v, %+v: the title is not the bundle's", err, rep)
	}
	run(true, "upgrade", bundle, "new.tgz")
	run(true, "upgrade", bundle, "new")
	run(false, "upgrade", "-o", "json", bundle, "new2.tgz")
	r = run(false, "inspect", filepath.Join(work, hostileText+".tgz"))
	if !strings.Contains(r.stderr, hostileShown) {
		t.Errorf("the error does not name the file escaped:\n%s", r.stderr)
	}

	// serve upgrades on load and warns; -v logs the file a log was read from.
	kubeconfig := filepath.Join(work, "kubeconfig")
	s := startServe(t, work, env, kubeconfig, "-v", bundle) // cobra takes flags after arguments
	if s.exited != nil {
		t.Fatalf("serve: exit %d:\n%s", s.exited.code, s.exited.stderr)
	}
	if code := getFrom(t, kubeconfig, "/api/v1/namespaces/default/pods/web/log?container=app"); code != 200 {
		t.Errorf("the log of web: %d", code)
	}
	r = s.stop(t)
	check("serve -v: stdout", r.stdout, false)
	check("serve -v: stderr", r.stderr, true)
	if !strings.Contains(r.stderr, "GET /api/v1/namespaces/default/pods/web/log?container=app 200 ") || !strings.Contains(r.stderr, " log="+hostileShown+"/web/app.log\n") {
		t.Errorf("serve -v: no access log line naming the log file:\n%s", r.stderr)
	}

	r = run(false, "shell", bundle, "-c", "true")
	check("shell: stderr", r.stderr, true)
	if err := os.RemoveAll(filepath.Join(work, "new")); err != nil {
		t.Fatal(err)
	}
}
