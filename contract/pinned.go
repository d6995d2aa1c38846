package contract

// PinnedVersion is the Kubernetes release bundlectl is built against:
// k8s.io/kubernetes in go.mod (a test holds the two together). The
// transform renders tables with its printers, the built-in selectable
// fields are its own, and the conformance gate's clusters run it.
const PinnedVersion = "v1.37.1"

// PinnedMinor is PinnedVersion's minor.
const PinnedMinor = "1.37"
