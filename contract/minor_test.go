package contract_test

import (
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

func TestTableMinor(t *testing.T) {
	for _, tc := range []struct {
		version, minor string
		note, err      bool
	}{
		{version: "v1.31.2", minor: "1.31"},
		{version: "v1.24.4+k3s1", minor: "1.24"},
		{version: "v1.33.4-eks-a1b2c3", minor: "1.33"},
		{version: "1.20", minor: "1.20"},
		{version: contract.PinnedVersion, minor: contract.PinnedMinor},
		{version: "v1.38.0", minor: contract.PinnedMinor, note: true},
		{version: "v1.19.16", minor: contract.OldestMinor, note: true},
		{version: "v2.0.0", err: true},
		{version: "latest", err: true},
		{version: "", err: true},
	} {
		minor, note, err := contract.TableMinor(tc.version)
		if (err != nil) != tc.err || minor != tc.minor || (note != "") != tc.note {
			t.Errorf("TableMinor(%q) = %q, %q, %v; want %q, a note %v, an error %v", tc.version, minor, note, err, tc.minor, tc.note, tc.err)
		}
	}
}
