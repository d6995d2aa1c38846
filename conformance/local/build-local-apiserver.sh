#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd of the Kubernetes release bundlectl
# pins (k8s.io/kubernetes v1.35.4, and the etcd server that release
# requires) from the Go module proxy, into a cache folder. The conformance
# gate's --local provider (package conformance/local) starts them as
# processes on loopback.
#
# Usage: scripts/build-local-apiserver.sh [DEST]
#   DEST defaults to ${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/local-apiserver/v1.35.4
#
# This file is the only copy of the recipe: package conformance/local
# embeds it (so a `go install`ed bundlectl can build the binaries too) and
# scripts/build-local-apiserver.sh is a symlink to it.
#
# k8s.io/kubernetes and etcd's server module carry replace directives, so
# neither can be `go install`ed by version; each is built from a throwaway
# wrapper module that requires it (and, for Kubernetes, every staging
# module at the matching version). Built once: existing binaries that
# report the right version are kept.
#
# DEST is shared by every checkout and test on the machine. Builds are
# serialised with flock(1) where it exists (a second build waits, then finds
# the binaries); each binary is written under a name of its own and renamed
# into place, so even unlocked concurrent builds never leave a torn file.
set -euo pipefail

K8S_VERSION=v1.35.4
STAGING_VERSION=v0.35.4
ETCD_VERSION=v3.6.5 # go.etcd.io/etcd/server/v3 in k8s.io/kubernetes v1.35.4's go.mod

dest="${1:-${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/local-apiserver/$K8S_VERSION}"
mkdir -p "$dest"

# Versions are read whole into variables, not piped into grep -q or head:
# under pipefail, a reader that stops early makes the writer die of
# SIGPIPE and the check fail at random.
built() {
	[[ -x "$dest/kube-apiserver" && -x "$dest/etcd" ]] || return 1
	local k e
	k="$("$dest/kube-apiserver" --version 2>/dev/null)" || return 1
	e="$("$dest/etcd" --version 2>/dev/null)" || return 1
	has_line "$k" "Kubernetes $K8S_VERSION" && has_line "$e" "etcd Version: ${ETCD_VERSION#v}"
}
has_line() { [[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]]; }

if built; then
	echo "kube-apiserver $K8S_VERSION and etcd $ETCD_VERSION are in $dest"
	exit 0
fi

if command -v flock >/dev/null; then
	exec 9>"$dest/.build.lock"
	if ! flock -n 9; then
		echo "another build into $dest is running; waiting for it"
		flock 9
	fi
	if built; then
		echo "kube-apiserver $K8S_VERSION and etcd $ETCD_VERSION are in $dest"
		exit 0
	fi
fi

staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
	cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api
	cri-client csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms
	kube-aggregator kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics
	mount-utils pod-security-admission sample-apiserver sample-cli-plugin sample-controller)

work="$(mktemp -d)"
cleanup() { rm -rf "$work" "$dest"/.*.tmp.$$; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

build() { # build NAME MAIN_PACKAGE LDFLAGS REQUIREMENTS...
	local name=$1 pkg=$2 ldflags=$3
	shift 3
	local tmp="$dest/.$name.tmp.$$"
	mkdir -p "$work/$name"
	(
		cd "$work/$name"
		printf 'module bundlectl.local/%s\n\ngo 1.25.0\n' "$name" >go.mod
		printf 'package main\n\nimport _ "%s"\n' "$pkg" >tools.go
		go mod edit $(printf -- '-require=%s ' "$@")
		go mod tidy >/dev/null
		echo "building $name from $pkg"
		CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp" "$pkg"
	)
	mv -f "$tmp" "$dest/$name"
}

vpkg=k8s.io/component-base/version
minor=${K8S_VERSION#v1.}
minor=${minor%%.*}
k8s_ldflags="-s -w -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
reqs=("k8s.io/kubernetes@$K8S_VERSION")
for m in "${staging[@]}"; do reqs+=("k8s.io/$m@$STAGING_VERSION"); done
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$k8s_ldflags" "${reqs[@]}"

build etcd go.etcd.io/etcd/server/v3 "-s -w" \
	"go.etcd.io/etcd/server/v3@$ETCD_VERSION" "go.etcd.io/etcd/api/v3@$ETCD_VERSION" \
	"go.etcd.io/etcd/client/pkg/v3@$ETCD_VERSION" "go.etcd.io/etcd/client/v3@$ETCD_VERSION" \
	"go.etcd.io/etcd/pkg/v3@$ETCD_VERSION"

built || {
	echo "the binaries built in $dest do not report kube-apiserver $K8S_VERSION and etcd $ETCD_VERSION" >&2
	exit 1
}
echo "kube-apiserver $K8S_VERSION and etcd $ETCD_VERSION are in $dest"
