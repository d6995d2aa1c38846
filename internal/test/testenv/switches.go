package testenv

import "os"

// The switches the tests read from the environment, all of them (the make
// targets set them; docs/development.md lists them too). Each either
// turns on a run too long for the default suite or names something the
// machine has. Variables a test sets for a child process of its own are
// plumbing, not switches, and stay with the test.
const (
	// LongEnv=1 runs the long versions: the hostile cases at the sizes
	// the issues measured (make hostile-long), the 30 s load run (make
	// load), the 1 GB upgrade's peak RSS (make bench-long) and the
	// benchmark against the peers (make bench-peers).
	LongEnv = "BUNDLECTL_LONG"
	// BinEnv is a built bundlectl that tests run as a user would,
	// instead of building one each.
	BinEnv = "BUNDLECTL_BIN"
	// CorpusEnv is the folder of real troubleshoot bundles (default
	// ../shared/bundles beside the repo).
	CorpusEnv = "BUNDLECTL_CORPUS"
	// KubectlsEnv names the kubectl clients Kubectls returns instead of
	// KubectlDir's (paths separated by spaces; make serve-clients sets
	// it to 1.27 to 1.37).
	KubectlsEnv = "BUNDLECTL_KUBECTLS"
	// PeersKubectlEnv is the kubectl the peers benchmark runs (default:
	// Kubectl).
	PeersKubectlEnv = "BUNDLECTL_PEERS_KUBECTL"
	// K9sEnv is the k9s TestK9s drives ("1" for the one scripts/k9s.sh
	// builds; make k9s).
	K9sEnv = "BUNDLECTL_K9S"
	// KindImageEnv is the kind node image the real kind tests run
	// (make conformance-kind sets it; without it they skip).
	KindImageEnv = "BUNDLECTL_KIND_IMAGE"
	// RecordLiveEnv names the minor whose live Tables TestRecordLive
	// records (make record-live).
	RecordLiveEnv = "BUNDLECTL_RECORD_LIVE"
)

// Long reports whether the long versions run (LongEnv=1).
func Long() bool { return os.Getenv(LongEnv) == "1" }
