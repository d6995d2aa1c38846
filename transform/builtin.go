package transform

import (
	_ "embed"
	"sync"

	"github.com/bundlectl/bundlectl/contract"
)

// The captured data (builtin-discovery.json, builtin-openapi.tar.zst)
// is rewritten from a live kube-apiserver of the pinned release by the
// tests that check it:
//
//go:generate go test -count=1 -run ^(TestBuiltinDiscoveryIsCurrent|TestBuiltinOpenAPIIsCurrent)$ . -update

// builtinDiscoveryJSON is the discovery a kube-apiserver of the pinned
// release serves with its default configuration, read from a real one
// (TestBuiltinDiscoveryIsCurrent checks it and -update rewrites it). It
// stands in for groups.json and resources.json in bundles that lack them.
//
//go:embed builtin-discovery.json
var builtinDiscoveryJSON []byte

// newBuiltinDiscovery returns a copy of the built-in discovery that the
// caller may change.
func newBuiltinDiscovery() *contract.Discovery {
	d, err := contract.ParseDiscovery(builtinDiscoveryJSON)
	if err != nil {
		panic("transform: the embedded builtin-discovery.json is invalid: " + err.Error())
	}
	return d
}

// builtinDiscovery is the built-in discovery shared for lookups; never change it.
var builtinDiscovery = sync.OnceValue(newBuiltinDiscovery)
