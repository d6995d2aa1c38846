// Package testenv is what the tests ask of the machine they run on, each
// question answered once: whether a missing tool or corpus is a skip (on a
// laptop) or a failure (in CI, CI=true, where a skip would silently turn
// the most important tests off); which kubectl clients there are; and
// whether a test rewrites its golden files (-update).
package testenv

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// CI reports whether the tests run in CI (CI=true): there nothing they
// need may be missing.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing ends t for want of something the test needs, which the message
// names: a skip, or with CI=true a failure.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		t.Fatalf("%s (CI=true makes this a failure)", msg)
	}
	t.Skip(msg)
}

var update = flag.Bool("update", false, "rewrite the golden files (the testscripts' too) from what the code does now")

// Update reports whether the test rewrites its golden files instead of
// comparing with them: `go test -update`, the one switch of every golden
// test.
func Update() bool { return *update }
