#!/usr/bin/env bash
# The conformance gate against kind clusters, as a user runs it in GitHub
# Actions (`bundlectl conformance --kind --kind-image IMAGE`, kubectl of the
# image's release first in PATH), on node images built here
# (scripts/kind-node-image.sh), then the kind provider's tests against
# real clusters (create, Ready, kubeconfig, --keep, deletion on success,
# failure and Ctrl-C).
#
#   scripts/conformance-kind.sh [MINOR...]     default: 1.37 1.34
#
# Starts a Docker daemon with ../shared/tools/dockerd-here where none
# answers. Each minor's report (Markdown and JUnit) is written to
# $REPORTS/<minor>/ (default testdata/kind-report, kept in the repo), and
# a line per minor says the time of each step. Exits non-zero when the
# gate fails at any minor or a provider test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
REPORTS=${REPORTS:-testdata/kind-report}
DOCKERD_HERE=${DOCKERD_HERE:-../shared/tools/dockerd-here}
minors=("$@")
[[ ${#minors[@]} -gt 0 ]] || minors=(1.37 1.34)

if ! docker info >/dev/null 2>&1; then
	if [[ ! -x $DOCKERD_HERE ]]; then
		echo "conformance-kind: no Docker daemon answers, and $DOCKERD_HERE (which starts one) is missing" >&2
		exit 1
	fi
	"$DOCKERD_HERE"
fi
go build -o bin/bundlectl ./cmd/bundlectl
bundlectl=$PWD/bin/bundlectl
cache=${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}

failed=0
summary=()
last_image= last_release=
for minor in "${minors[@]}"; do
	t0=$SECONDS
	image=$(scripts/kind-node-image.sh --kube-version "$minor" | tail -1)
	t_image=$((SECONDS - t0))
	release=${image##*:}
	dir=$REPORTS/${release#v}
	dir=${dir%.*}
	mkdir -p "$dir"
	t1=$SECONDS
	rc=0
	# kubectl of the cluster's release, first in PATH (the node image's
	# build made it), as the workflow's setup-kubectl step puts it.
	PATH="$cache/local-apiserver/$release:$PATH" "$bundlectl" conformance --kind --kind-image "$image" \
		--report-md "$dir/conformance.md" --junit "$dir/conformance.xml" >"$dir/conformance.txt" || rc=$?
	t_gate=$((SECONDS - t1))
	verdict=holds
	if [[ $rc -ne 0 ]]; then
		verdict="fails (exit $rc; $dir/conformance.txt)"
		failed=1
	fi
	summary+=("$minor: $image: node image ${t_image}s, gate ${t_gate}s: $(grep -m2 -E '^Gate [AB]' "$dir/conformance.txt" | tr '\n' ' ')$verdict")
	last_image=$image last_release=$release
done

# The provider against real clusters, with the last image.
t2=$SECONDS
if PATH="$cache/local-apiserver/$last_release:$PATH" BUNDLECTL_KIND_IMAGE=$last_image \
	go test -count=1 -run '^TestReal' -v -timeout 40m ./conformance/kind/ ./cmd/bundlectl/app/ >"$REPORTS/provider-tests.txt" 2>&1; then
	summary+=("provider tests with $last_image: pass, $((SECONDS - t2))s")
else
	summary+=("provider tests with $last_image: FAIL, $((SECONDS - t2))s ($REPORTS/provider-tests.txt)")
	failed=1
fi
printf 'conformance-kind: %s\n' "${summary[@]}"
left=$(docker ps -aq --filter label=io.x-k8s.kind.cluster)
if [[ -n $left ]]; then
	echo "conformance-kind: kind containers are left: $left" >&2
	failed=1
fi
exit $failed
