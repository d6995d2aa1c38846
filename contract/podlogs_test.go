package contract_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

// Every rule of MapPodLogs, one file each: where the namespace comes
// from, when "-previous" is a previous log and when a container's name,
// which file wins when two hold the same log, and what cannot be placed.
func TestMapPodLogs(t *testing.T) {
	pods, files := mapPodLogsCase()
	res := contract.MapPodLogs(files, pods)
	var got []string
	for _, l := range res.Logs {
		got = append(got, fmt.Sprintf("%s/%s/%s prev=%v err=%v in=%v %s %v %v", l.Namespace, l.Pod, l.Container, l.Previous, l.Error, l.PodInBundle, l.Path, l.Links, l.Ambiguous))
	}
	want := []string{
		"a/pair/helper prev=false err=false in=true logs/pair/helper.log [] []",
		"a/pair/main prev=false err=false in=true logs/pair/main.log [] [b/pair]",
		"a/twin/db prev=false err=false in=true twin.log [] [b/twin]",
		"b/pair/main prev=false err=false in=true logs/pair/main.log [] [a/pair]",
		"b/twin/cache prev=false err=false in=true twin.log [] [a/twin]",
		"c/dup/app prev=false err=false in=true cluster-resources/pods/logs/c/dup/app.log [] []",
		"d/dup/app prev=false err=false in=true coll/dup.log [] [c/dup]",
		"default/gone/run prev=false err=false in=false cluster-resources/pods/logs/default/gone/run.log [] []",
		"default/gone/run prev=true err=false in=false cluster-resources/pods/logs/default/gone/run-previous.log [] []",
		"web/api/app prev=false err=false in=true cluster-resources/pods/logs/web/api/app.log [all-logs/api/app.log] []",
		"web/api/app prev=true err=false in=true cluster-resources/pods/logs/web/api/app-previous.log [] []",
		"web/api/migrate prev=false err=false in=true cluster-resources/pods/logs/web/cluster-resources/pods/logs/web/api/migrate.log [] []",
		"web/api/migrate prev=false err=true in=true app-logs/api/migrate-errors.json [] []",
		"web/api/sidecar prev=false err=true in=true cluster-resources/pods/logs/web/api/sidecar-logs-errors.log [] []",
		"web/api/sidecar prev=true err=false in=true app-logs/api/sidecar-previous.log [] []",
		"web/odd/x-previous prev=false err=false in=true cluster-resources/pods/logs/web/odd/x-previous.log [] []",
		"web/one/only prev=false err=false in=true kots/admin/one.log [] []",
		"web/one/only prev=true err=false in=true kots/admin/one-previous.log [] []",
	}
	if !slices.Equal(got, want) {
		t.Errorf("logs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	unmapped := map[string]string{}
	for _, u := range res.Unmapped {
		unmapped[u.Path] = u.Reason
	}
	for p, why := range map[string]string{
		"app-logs/api/app.log": "the same log as cluster-resources/pods/logs/web/api/app.log",
		"coll/dup.log":         "the same log as cluster-resources/pods/logs/c/dup/app.log",
		"daemonset/node-1.log": "no pod of the bundle",
		"dangling.log":         "does not hold",
		"escaping.log":         "outside the bundle",
	} {
		if !strings.Contains(unmapped[p], why) {
			t.Errorf("%s: unmapped as %q, want %q", p, unmapped[p], why)
		}
	}
	if len(unmapped) != 5 {
		t.Errorf("unmapped %d files, want 5: %v", len(unmapped), unmapped)
	}
}

// LogPodNames keeps every pod a log is mapped to, and drops the others:
// mapping the files of mapPodLogsCase to its pods kept by name gives
// what mapping them to every pod gives.
func TestLogPodNames(t *testing.T) {
	pods, files := mapPodLogsCase()
	pods = append(pods, contract.PodContainers{Namespace: "web", Name: "quiet", Containers: []string{"app"}})
	names := map[string]bool{"cluster-resources/pods/web.json": true}
	for _, f := range files {
		names[f.Rel] = true
		if f.Link != "" {
			names[f.Link] = true
		}
	}
	keep := contract.LogPodNames(names)
	var kept []contract.PodContainers
	for _, p := range pods {
		if keep[p.Name] {
			kept = append(kept, p)
		}
	}
	if len(kept) != len(pods)-1 || keep["quiet"] {
		t.Errorf("kept %d pods of %d (quiet: %v), want all but quiet", len(kept), len(pods), keep["quiet"])
	}
	if got, want := contract.MapPodLogs(files, kept), contract.MapPodLogs(files, pods); !reflect.DeepEqual(got, want) {
		t.Errorf("mapped to the pods kept:\n%+v\nto every pod:\n%+v", got, want)
	}
}

// mapPodLogsCase is a file of every rule of MapPodLogs and the pods they
// are mapped to.
func mapPodLogsCase() ([]contract.PodContainers, []contract.LogFile) {
	pods := []contract.PodContainers{
		{Namespace: "web", Name: "api", Containers: []string{"app", "sidecar"}, Init: []string{"migrate"}},
		{Namespace: "web", Name: "odd", Containers: []string{"x", "x-previous"}},
		{Namespace: "web", Name: "one", Containers: []string{"only"}},
		{Namespace: "a", Name: "twin", Containers: []string{"db"}},
		{Namespace: "b", Name: "twin", Containers: []string{"cache"}},
		{Namespace: "a", Name: "pair", Containers: []string{"main", "helper"}},
		{Namespace: "b", Name: "pair", Containers: []string{"main", "other"}},
		{Namespace: "c", Name: "dup", Containers: []string{"app"}},
		{Namespace: "d", Name: "dup", Containers: []string{"app"}},
	}
	files := []contract.LogFile{
		// legacy first in the input: the canonical copy must still win
		{Rel: "app-logs/api/app.log", Size: 1},
		{Rel: "cluster-resources/pods/logs/web/api/app.log", Size: 2},
		{Rel: "cluster-resources/pods/logs/web/api/app-previous.log", Size: 3},
		{Rel: "cluster-resources/pods/logs/web/api/sidecar-logs-errors.log", Size: 4},
		{Rel: "cluster-resources/pods/logs/web/odd/x-previous.log", Size: 5},
		{Rel: "cluster-resources/pods/logs/web/cluster-resources/pods/logs/web/api/migrate.log", Size: 6},
		{Rel: "cluster-resources/pods/logs/default/gone/run.log", Size: 7},
		{Rel: "cluster-resources/pods/logs/default/gone/run-previous.log", Size: 8},
		{Rel: "app-logs/api/sidecar-previous.log", Size: 9},
		{Rel: "app-logs/api/migrate-errors.json", Size: 10},
		{Rel: "kots/admin/one.log", Size: 11},
		{Rel: "kots/admin/one-previous.log", Size: 12},
		{Rel: "twin.log", Size: 13},
		{Rel: "logs/pair/helper.log", Size: 14},
		{Rel: "logs/pair/main.log", Size: 15},
		{Rel: "daemonset/node-1.log", Size: 16},
		{Rel: "all-logs/api/app.log", Symlink: true, Link: "cluster-resources/pods/logs/web/api/app.log"},
		{Rel: "dangling.log", Symlink: true, Link: "nowhere/x.log"},
		{Rel: "escaping.log", Symlink: true},
		{Rel: "exec/web/api/other-errors.json", Size: 17},
		{Rel: "coll/dup.log", Size: 18},
		{Rel: "cluster-resources/pods/logs/c/dup/app.log", Size: 19},
	}
	return pods, files
}
