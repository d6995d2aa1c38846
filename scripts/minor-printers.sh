#!/usr/bin/env bash
# Records what the table printers of each Kubernetes minor bundlectl
# renders for make of one fixed set of objects: for every release below,
# scripts/minor-printers/main.go is built against that release's own
# k8s.io/kubernetes (newest patch of the minor) and renders
# testdata/printers/inputs.json.gz into testdata/printers/1.NN.json.gz.
# TestMinorTables renders the same objects with bundlectl for every minor
# and compares the tables cell by cell.
#
# Usage: scripts/minor-printers.sh [MINOR...]   (default every one; e.g. 1.31)
#
# Each release is built in a throwaway wrapper module, as
# scripts/build-local-apiserver.sh builds kube-apiserver: it requires
# k8s.io/kubernetes and every staging module the release's go.mod
# replaces, at the matching v0 version (and replaces each with it); a
# staging module the proxy lacks at that version (the printers never
# import it) is pointed at an empty local module, in the wrapper only. The programs are cached under
# ${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/printers/<release>, keyed by
# the program's source, so reruns only render. Releases build one at a
# time.
set -euo pipefail

RELEASES=(v1.20.15 v1.21.14 v1.22.17 v1.23.17 v1.24.17 v1.25.16 v1.26.15 v1.27.16
	v1.28.15 v1.29.15 v1.30.14 v1.31.14 v1.32.13 v1.33.7 v1.34.3 v1.35.8 v1.36.4 v1.37.1)

root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/scripts/minor-printers/main.go"
inputs="$root/testdata/printers/inputs.json.gz"
cache="${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/printers"
key="$(sha256sum "$src" | cut -c1-16)"

want=("$@")
selected() {
	[[ ${#want[@]} -eq 0 ]] && return 0
	local m
	for m in "${want[@]}"; do [[ $1 == "v$m."* ]] && return 0; done
	return 1
}

build() { # build RELEASE DEST
	local release=$1 dest=$2 work
	[[ $release =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]
	local staging_version="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
	work="$(mktemp -d)"
	trap 'rm -rf "$work"' RETURN
	local kdir
	kdir="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$release")"
	kdir="${kdir#*\"Dir\": \"}"
	kdir="${kdir%%\"*}"
	(
		cd "$work"
		printf 'module bundlectl.local/minor-printers\n\ngo 1.26.0\n' >go.mod
		sed '/^\/\/go:build ignore$/d' "$src" >main.go
		{
			printf '// The API groups %s installs.\npackage main\n\nimport (\n' "$release"
			for d in "$kdir"/pkg/apis/*/install; do
				printf '\t_ "k8s.io/kubernetes/pkg/apis/%s/install"\n' "$(basename "$(dirname "$d")")"
			done
			printf ')\n'
		} >install.go
		go mod edit -require="k8s.io/kubernetes@$release"
		local m
		for m in $(sed -n 's#^[[:space:]]*\(replace[[:space:]]*\)\{0,1\}\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\2#p' "$kdir/go.mod"); do
			if go mod download "$m@$staging_version" >/dev/null 2>&1; then
				# Replaced too: a release whose go.mod predates module
				# graph pruning (go 1.17) has the wrapper read the
				# go.mod of the v0.0.0 it requires, which does not exist.
				go mod edit -require="$m@$staging_version" -replace="$m=$m@$staging_version"
			else
				echo "$m@$staging_version is not on the module proxy; an empty module stands in for it"
				mkdir -p "$work/empty/$m"
				printf 'module %s\n' "$m" >"$work/empty/$m/go.mod"
				go mod edit -require="$m@$staging_version" -replace="$m=$work/empty/$m"
			fi
		done
		go mod tidy >/dev/null
		echo "building the printers of $release"
		go build -trimpath -o "$dest.tmp.$$" .
	)
	mv -f "$dest.tmp.$$" "$dest"
}

for release in "${RELEASES[@]}"; do
	selected "$release" || continue
	[[ $release =~ ^v1\.([0-9]+)\. ]]
	minor="1.${BASH_REMATCH[1]}"
	bin="$cache/$release/minor-printers-$key"
	if [[ ! -x $bin ]]; then
		mkdir -p "$cache/$release"
		rm -f "$cache/$release"/minor-printers-*
		build "$release" "$bin"
	fi
	"$bin" "$inputs" "$root/testdata/printers/$minor.json.gz" "$release"
	echo "testdata/printers/$minor.json.gz: the tables of $release"
done
