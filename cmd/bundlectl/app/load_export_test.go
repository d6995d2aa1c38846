package app

import "testing"

// ServeForLoad serves a bundle as `bundlectl serve BUNDLE` does (upgraded
// on load when legacy, HTTPS on 127.0.0.1) until the test ends, and
// returns the kubeconfig: exported for TestLoad, in package app_test.
func ServeForLoad(t *testing.T, bundle string) (kubeconfig string) {
	t.Helper()
	kubeconfig, _ = serveForTest(t, &serveOptions{address: "127.0.0.1"}, bundle)
	return kubeconfig
}
