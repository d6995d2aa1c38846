#!/usr/bin/env bash
# Runs the conformance gate (--local, the pinned kube-apiserver) once with
# each kubectl client, 1.27 to 1.37, and prints a line per client: Gate B
# runs every kubectl command against the live server and the served
# bundle, so a client that prints the two differently shows here.
#
# Usage: scripts/conformance-clients.sh [--list] [KUBECTL...]
#   --list  print the clients' paths, one line, and run nothing (for
#           BUNDLECTL_KUBECTLS: make serve-clients)
#   Without arguments: the clients 1.27 to 1.33 at $KUBECTL_DIR/kubectl.1.NN
#   (default /usr/lib/google-cloud-sdk/bin), and 1.34 to 1.37 (each
#   minor's newest patch on the module proxy, NEWER_CLIENTS) built from the
#   module proxy into the cache by build-local-apiserver.sh --kubectl-only
#   on first use (minutes each).
# Reports go to ${OUT:-out}/clients/<version>.{txt,md,xml}; the exit code is
# 0 only when the gate holds with every client.
set -euo pipefail
cd "$(dirname "$0")/.."

KUBECTL_DIR=${KUBECTL_DIR:-/usr/lib/google-cloud-sdk/bin}
NEWER_CLIENTS=${NEWER_CLIENTS:-v1.34.12 v1.35.8 v1.36.5 v1.37.2}
cache="${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/local-apiserver"
out="${OUT:-out}/clients"
bin=${BUNDLECTL_BIN:-bin/bundlectl}

list=false
if [[ ${1:-} == --list ]]; then
	list=true
	shift
fi
clients=("$@")
if [[ ${#clients[@]} -eq 0 ]]; then
	for minor in 27 28 29 30 31 32 33; do
		if [[ -x $KUBECTL_DIR/kubectl.1.$minor ]]; then
			clients+=("$KUBECTL_DIR/kubectl.1.$minor")
		else
			echo "no kubectl 1.$minor at $KUBECTL_DIR/kubectl.1.$minor; skipped" >&2
		fi
	done
	for v in $NEWER_CLIENTS; do
		scripts/build-local-apiserver.sh --kube-version "$v" --kubectl-only >&2
		clients+=("$cache/$v/kubectl")
	done
fi
if $list; then
	echo "${clients[*]}"
	exit 0
fi
[[ -x $bin ]] || go build -o "$bin" ./cmd/bundlectl
mkdir -p "$out"

failed=0
summary=()
for k in "${clients[@]}"; do
	v="$("$k" version --client -o json | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')"
	v=${v:-$(basename "$k")}
	echo "== kubectl $v ($k)"
	status=PASSED
	"$bin" conformance --local --kubectl "$k" \
		--report-md "$out/$v.md" --junit "$out/$v.xml" >"$out/$v.txt" || status=FAILED
	[[ $status == PASSED ]] || failed=1
	gates="$(grep -E '^Gate [AB]' "$out/$v.txt" | sed 's/ (.*)://' | paste -sd ';' - || true)"
	summary+=("kubectl $v: $status; ${gates:-the gate did not run, see $out/$v.txt}")
	echo "${summary[-1]}"
done
echo
printf '%s\n' "${summary[@]}"
exit $failed
