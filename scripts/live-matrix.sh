#!/usr/bin/env bash
# Runs the conformance gate (--local) against kube-apiserver of every
# Kubernetes minor the local provider supports, the newest patch of each,
# one after the other, and prints a line per minor: does it build, does
# the gate hold, and if not, what failed.
#
# Usage: scripts/live-matrix.sh [--record] [MINOR...]
#   MINOR     1.31 and so on; default every minor in
#             internal/localapiserver/releases.txt, newest first
#   --record  instead of the whole gate, record each minor's live Tables of
#             the fixtures (conformance's TestRecordLive): the bundle the
#             gate collects from the server (its objects and the server's
#             Tables) goes, gzipped, to testdata/live/<minor>/, where the
#             default suite compares the upgrade's Tables with it
#             (TestRecordedLiveTables). Gate B is not run.
# Each kube-apiserver is built into the cache on first use (minutes each;
# one at a time). Reports go to ${OUT:-out}/matrix/<minor>.{txt,md,xml} and
# the build logs to <minor>.build.log; the exit code is 0 only when every
# minor builds and, without --record, the gate holds at each.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OUT:-out}/matrix"
bin=${BUNDLECTL_BIN:-bin/bundlectl}
kubectl=${KUBECTL:-kubectl}
releases=internal/localapiserver/releases.txt

record=false
if [[ ${1:-} == --record ]]; then
	record=true
	shift
fi
minors=("$@")
if [[ ${#minors[@]} -eq 0 ]]; then
	while read -r m _; do
		[[ -n $m && $m != \#* ]] && minors+=("$m")
	done <"$releases"
fi
[[ -x $bin ]] || go build -o "$bin" ./cmd/bundlectl
mkdir -p "$out"
if $record; then
	# The recorder is a test of package conformance (it runs in that
	# folder), compiled once.
	go test -c -o "$out/conformance.test" ./conformance/
	recorder="$(cd "$out" && pwd)/conformance.test"
fi

failed=0
summary=()
for m in "${minors[@]}"; do
	v="$(awk -v m="$m" '$1 == m {print $2}' "$releases")"
	if [[ -z $v ]]; then
		summary+=("$m: not a minor $releases lists")
		failed=1
		echo "${summary[-1]}"
		continue
	fi
	echo "== Kubernetes $m ($v)"
	if ! scripts/build-local-apiserver.sh --kube-version "$v" >"$out/$m.build.log" 2>&1; then
		summary+=("$m $v: does not build; $(tail -n 1 "$out/$m.build.log") (see $out/$m.build.log)")
		failed=1
		echo "${summary[-1]}"
		continue
	fi
	if $record; then
		if (cd conformance && BUNDLECTL_RECORD_LIVE="$m" "$recorder" -test.run '^TestRecordLive$' -test.v -test.timeout 20m) >"$out/$m.record.log" 2>&1; then
			summary+=("$m $v: $(sed -n 's/.*recorded_test.go:[0-9]*: \(recorded .*\)/\1/p' "$out/$m.record.log")")
		else
			summary+=("$m $v: nothing recorded (see $out/$m.record.log)")
			failed=1
		fi
		echo "${summary[-1]}"
		continue
	fi
	status=PASSED
	"$bin" conformance --local --kube-version "$v" --kubectl "$kubectl" --report-md "$out/$m.md" --junit "$out/$m.xml" \
		>"$out/$m.txt" 2>"$out/$m.log" || status=FAILED
	[[ $status == PASSED ]] || failed=1
	if grep -q '^Gate A' "$out/$m.txt"; then
		gates="$(grep -E '^Gate [AB]' "$out/$m.txt" | sed 's/ (.*)://' | paste -sd ';' -)"
		# The resources of the tables and the checks that failed.
		what="$(sed -n 's/^--- FAIL \([^/]*\/[^/]*\).*/\1/p' "$out/$m.txt" | sort -u | paste -sd ' ' -)"
		summary+=("$m $v: $status; $gates${what:+; failed: $what}")
	else
		summary+=("$m $v: the gate did not run: $(tail -n 1 "$out/$m.log") (see $out/$m.log)")
	fi
	echo "${summary[-1]}"
done
echo
printf '%s\n' "${summary[@]}"
exit $failed
