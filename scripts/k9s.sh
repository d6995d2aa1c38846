#!/usr/bin/env bash
# Builds k9s from the Go module proxy into ~/.cache/bundlectl/k9s once
# (k9s has no replace lines, so `go install` builds it as released) and
# prints the binary's path. K9S_VERSION picks another release.
set -euo pipefail
version="${K9S_VERSION:-v0.50.16}"
dir="${HOME}/.cache/bundlectl/k9s/${version}"
bin="${dir}/k9s"
if [ ! -x "${bin}" ]; then
	echo "building k9s ${version} into ${dir} (several minutes)" >&2
	mkdir -p "${dir}"
	GOBIN="${dir}" GOFLAGS=-mod=mod go install "github.com/derailed/k9s@${version}"
fi
echo "${bin}"
