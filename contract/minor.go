package contract

import (
	"fmt"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// OldestMinor is the oldest Kubernetes minor whose tables bundlectl
// renders as that release's server did; PinnedMinor is the newest.
const OldestMinor = "1.20"

// TableMinor is the minor whose tables a bundle of a cluster at version
// v (a gitVersion such as "v1.31.2", "v1.24.4+k3s1", or a minor such as
// "1.31") gets: its own when bundlectl knows it; the pinned one for a
// newer release and the oldest for an older one, with a note saying so.
// An error means v is no Kubernetes version.
func TableMinor(v string) (minor, note string, err error) {
	parsed, err := utilversion.ParseGeneric(strings.TrimSpace(v))
	if err != nil || parsed.Major() != 1 {
		return "", "", fmt.Errorf("%q is not a Kubernetes 1.x version", v)
	}
	m := int(parsed.Minor())
	oldest, pinned := MinorNumber(OldestMinor), MinorNumber(PinnedMinor)
	switch {
	case m > pinned:
		return PinnedMinor, fmt.Sprintf("%s is newer than the newest release bundlectl renders for; tables are %s's", v, PinnedMinor), nil
	case m < oldest:
		return OldestMinor, fmt.Sprintf("%s is older than the oldest release bundlectl renders for; tables are %s's", v, OldestMinor), nil
	}
	return fmt.Sprintf("1.%d", m), "", nil
}

// MinorNumber is the minor number of a "1.NN" minor, 0 for anything else.
func MinorNumber(minor string) int {
	rest, ok := strings.CutPrefix(minor, "1.")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return 0
	}
	return n
}
