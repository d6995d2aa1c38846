package transform

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bundlectl/bundlectl/contract"
)

// builtinData holds, per Kubernetes minor captured, what a kube-apiserver
// of that release serves for its built-in APIs, read from a real one by
// the tests that check it (-update rewrites them; a minor's files are
// written when its server is built, internal/localapiserver):
//
//   - builtin/discovery-1.NN.json: the discovery of a server with the
//     release's defaults, which stands in for groups.json and
//     resources.json in bundles that lack them;
//   - builtin/openapi-1.NN.tar.zst: its OpenAPI documents, which make
//     `kubectl explain` work on a bundle that did not collect them.
//
// A bundle's minor takes its own release's files when they were captured,
// else those of the oldest captured release newer than it (an API a
// release has, the next one mostly still serves), else the pin's.
//
//go:generate go test -count=1 -run ^(TestBuiltinDiscoveryIsCurrent|TestBuiltinOpenAPIIsCurrent)$ . -update
//go:embed builtin
var builtinData embed.FS

func builtinDiscoveryFile(minor int) string {
	return fmt.Sprintf("builtin/discovery-1.%d.json", minor)
}

func builtinOpenAPIFile(minor int) string {
	return fmt.Sprintf("builtin/openapi-1.%d.tar.zst", minor)
}

// builtinMinors are the minors whose discovery was captured, oldest first.
var builtinMinors = sync.OnceValue(func() []int {
	entries, err := builtinData.ReadDir("builtin")
	if err != nil {
		panic("transform: the embedded builtin folder: " + err.Error())
	}
	var minors []int
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "discovery-")
		if !ok {
			continue
		}
		if m := contract.MinorNumber(strings.TrimSuffix(name, path.Ext(name))); m > 0 {
			minors = append(minors, m)
		}
	}
	slices.Sort(minors)
	if !slices.Contains(minors, pinnedMinor) {
		panic(fmt.Sprintf("transform: no built-in discovery of the pinned minor in %s", builtinDiscoveryFile(pinnedMinor)))
	}
	return minors
})

// builtinMinor is the captured minor whose data stands in for a cluster
// of minor.
func builtinMinor(minor int) int {
	for _, m := range builtinMinors() {
		if m >= minor {
			return m
		}
	}
	return pinnedMinor
}

// newBuiltinDiscovery returns a copy of the built-in discovery for a
// cluster of minor that the caller may change.
func newBuiltinDiscovery(minor int) *contract.Discovery {
	file := builtinDiscoveryFile(builtinMinor(minor))
	data, err := builtinData.ReadFile(file)
	if err != nil {
		panic("transform: " + err.Error())
	}
	d, err := contract.ParseDiscovery(data)
	if err != nil {
		panic("transform: the embedded " + file + " is invalid: " + err.Error())
	}
	return d
}

// builtinDiscoveries are the built-in discoveries shared for lookups, by
// captured minor; never change them.
var builtinDiscoveries sync.Map // int → func() *contract.Discovery

// builtinDiscovery is the built-in discovery for a cluster of minor,
// shared; never change it.
func builtinDiscovery(minor int) *contract.Discovery {
	m := builtinMinor(minor)
	load, _ := builtinDiscoveries.LoadOrStore(m, sync.OnceValue(func() *contract.Discovery { return newBuiltinDiscovery(m) }))
	return load.(func() *contract.Discovery)()
}
