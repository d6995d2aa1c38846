# bundlectl's build, test and demo entry points. Every target installs what
# it needs through the Go module proxy; nothing else is assumed.

GO        ?= go
BIN       := bin/bundlectl
EXAMPLE   := testdata/example-bundle/support-bundle-2025-11-20T10_00_00
OUT       := out

.PHONY: all build test lint bench bench-long bench-peers bench-get load hostile-long fuzz demo conformance conformance-clients conformance-matrix conformance-kind kind-node-image record-live serve-clients k9s clean apiserver generate record-printers

all: build

build:
	$(GO) build -o $(BIN) ./cmd/bundlectl

# The default suite: unit, golden, testscript, real-kubectl and live
# kube-apiserver tests.
test: apiserver
	$(GO) test -count=1 -timeout 30m ./...

# A real kube-apiserver and etcd of the pinned release, built from the Go
# module proxy into ~/.cache/bundlectl once (several minutes); the tests
# and the conformance gate's --local provider start them.
apiserver:
	scripts/build-local-apiserver.sh

# Data captured from a live kube-apiserver of the pinned release (the
# built-in discovery and OpenAPI documents), rewritten from one.
generate: apiserver
	$(GO) generate ./...

# What each supported minor's own printers make of testdata/printers'
# objects (testdata/printers/1.NN.json.gz, which TestMinorTables compares
# bundlectl's tables with), each rendered by a program built against that
# release's k8s.io/kubernetes and cached under ~/.cache/bundlectl/printers
# (the first run builds 18 releases, one at a time, about 8 minutes each).
# MINORS="1.31 1.24" records only those. After changing the objects, first
# run: go test ./transform -run TestMinorTables -update
MINORS ?=
record-printers:
	scripts/minor-printers.sh $(MINORS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Benchmarks print their figures next to a baseline measured in the same
# run: the upgrade against a gzip round trip of the same archive.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./transform/... ./serve/...

# The long benchmarks: the upgrade's peak RSS on a generated 1 GB bundle.
bench-long: build
	BUNDLECTL_LONG=1 BUNDLECTL_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench 'PeakRSS' -benchtime 1x -count 1 -timeout 60m ./transform/

# bundlectl against its real peers in one run (about 10 minutes): a
# generated 10k-pod bundle served by bundlectl and loaded into the pinned
# kube-apiserver, measured alternately; upgrade against a gzip round trip.
# Prints `name bundlectl=<v> peer=<v> ratio=<peer/bundlectl>` per figure
# and rewrites BENCHMARKS.md.
bench-peers: apiserver build
	BUNDLECTL_LONG=1 BUNDLECTL_BIN=$(CURDIR)/$(BIN) BENCHMARKS_MD=$(CURDIR)/BENCHMARKS.md \
		$(GO) test -count=1 -run '^TestBenchPeers$$' -timeout 15m ./internal/test/peers/

# Single Table GETs of `bundlectl serve` against the floor alone (a few
# minutes): percentiles, CPU and page faults per GET. GETFLOOR_ARGS passes
# the benchmark's flags, e.g. GETFLOOR_ARGS="-getfloor.peer -getfloor.n=6000".
GETFLOOR_ARGS ?=
bench-get: build
	BUNDLECTL_BIN=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkGetFloor$$' -benchtime 1x -timeout 20m ./internal/test/peers/ -args $(GETFLOOR_ARGS)

# The long load run: 200 concurrent clients for 30 s against a served
# 10k-pod bundle (the default suite runs a short one).
load:
	BUNDLECTL_LONG=1 $(GO) test -count=1 -run '^TestLoad$$' -v -timeout 20m ./cmd/bundlectl/app/

# The hostile cases of issues #18 and #30 at the sizes they measured, one
# at a time (about 20 minutes): one 400 MB object (a ConfigMap, a Secret,
# a custom resource), 300 MB decoys of the early-read files, 600 PAX
# records of 1 MB, a 200 MB CRD list (many CRDs, or two of huge schemas),
# lists of a million minimal pods and events, 500,000 empty entries. Logs each
# command's peak RSS per case; the default suite runs the same cases
# scaled down.
hostile-long:
	BUNDLECTL_LONG=1 $(GO) test -count=1 -run '^TestHostileBundles$$' -v -timeout 60m ./cmd/bundlectl/app/

# Every fuzz target for FUZZTIME each (10 minutes by default), one after
# the other; a crasher is written under the package's testdata/fuzz and
# fails the run (commit it: it is then a regression input of the default
# suite). FUZZ_PARALLEL caps the fuzzer's workers; go test's 10-minute
# default timeout would end a 10-minute run, hence -timeout 0.
FUZZTIME      ?= 10m
FUZZ_PARALLEL ?= 2
FUZZ_TARGETS  := contract:FuzzOpenArchive contract:FuzzDecodeList internal/rawjson:FuzzScan serve:FuzzSelectors serve:FuzzHandler transform:FuzzRenderTable transform:FuzzJSONPathCost transform:FuzzCRDPrinterColumns transform:FuzzDecodeIsTheServersDecode
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t#*:}; \
		echo "== $$fn ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -parallel $(FUZZ_PARALLEL) -timeout 0 ./$$pkg/; \
	done

# The main job on the example bundle the repo ships: upgrade it, then show
# what the upgraded bundle holds.
demo: build
	@mkdir -p $(OUT)
	$(BIN) upgrade --force $(EXAMPLE) $(OUT)/example-upgraded.tar.gz
	$(BIN) inspect $(OUT)/example-upgraded.tar.gz

# The live-vs-served contract gate against a real kube-apiserver and etcd
# run as local processes (built into ~/.cache/bundlectl on first use):
# the report on stdout, and for CI in $(OUT)/conformance.md and .xml.
KUBECTL ?= kubectl
conformance: build
	@mkdir -p $(OUT)
	$(BIN) conformance --local --kubectl $(KUBECTL) --report-md $(OUT)/conformance.md --junit $(OUT)/conformance.xml

# The gate once per kubectl client, 1.27 to 1.37 (kubectl 1.34 to 1.37
# built from the module proxy into the cache on first use): a line per
# client, the reports in $(OUT)/clients. About 3 minutes per client.
conformance-clients: build
	OUT=$(OUT) scripts/conformance-clients.sh

# The gate against kube-apiserver of every supported minor (the newest
# patch of each, internal/localapiserver/releases.txt), one after the
# other: a line per minor, the reports in $(OUT)/matrix. Each release is
# built into the cache on first use (several minutes each); then about 3
# minutes per minor. MINORS="1.31 1.33" runs only those.
MINORS ?=
conformance-matrix: build
	OUT=$(OUT) KUBECTL=$(KUBECTL) scripts/live-matrix.sh $(MINORS)

# A kind node image of a Kubernetes release, built here without an image
# registry (Debian, kind's base recipe from the module cache, the
# release's binaries from the Go module proxy) and cached under
# ~/.cache/bundlectl/kind: bundlectl.local/kind-node:<release>. Needs a
# Docker daemon (../shared/tools/dockerd-here starts one).
# KIND_KUBE_VERSION=1.34 builds another minor (kind v0.33.0: 1.34-1.37).
KIND_KUBE_VERSION ?= 1.37
kind-node-image:
	scripts/kind-node-image.sh --kube-version $(KIND_KUBE_VERSION)

# The gate against real kind clusters, as GitHub Actions runs it
# (bundlectl conformance --kind --kind-image ...), on node images built
# here, at each of KIND_MINORS; then the kind provider's tests against real
# clusters. Starts Docker where none answers; the reports go to
# testdata/kind-report/<minor>/.
KIND_MINORS ?= 1.37 1.34
conformance-kind:
	scripts/conformance-kind.sh $(KIND_MINORS)

# Each supported minor's live Tables of the fixtures, recorded from its
# kube-apiserver into testdata/live/<minor>/bundle.tar.gz (the bundle the
# gate collects, gzipped); the default suite compares the upgrade with
# them. MINORS="1.31 1.33" records only those.
record-live: build
	OUT=$(OUT) KUBECTL=$(KUBECTL) scripts/live-matrix.sh --record $(MINORS)

# serve's kubectl tests with the same clients (the default suite runs the
# ones preinstalled at /usr/lib/google-cloud-sdk/bin).
serve-clients:
	BUNDLECTL_KUBECTLS="$$(scripts/conformance-clients.sh --list)" $(GO) test -count=1 -run '^TestKubectl$$' ./serve/

# k9s (scripts/k9s.sh builds it from the module proxy into the cache on
# first use) driven headless in tmux against served corpus bundles: its
# pods, deployments, events and nodes views, CPU and MEM from the
# bundle's node metrics, describe, YAML and logs (TestK9s). Needs tmux
# and the corpus (BUNDLECTL_CORPUS).
k9s:
	BUNDLECTL_K9S="$$(scripts/k9s.sh)" $(GO) test -count=1 -run '^TestK9s$$' -v ./cmd/bundlectl/app/

clean:
	rm -rf bin $(OUT)
