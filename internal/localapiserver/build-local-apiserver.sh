#!/usr/bin/env bash
# Builds a real kube-apiserver (and, on request, kubectl) of a Kubernetes
# release, and the etcd server bundlectl pins, from the Go module proxy
# into a cache folder. The conformance gate's --local provider (package
# internal/localapiserver) starts them as processes on loopback.
#
# Usage: scripts/build-local-apiserver.sh [--kube-version vX.Y.Z|1.NN] [--kubectl | --kubectl-only] [--with CMD,...] [DEST]
#   --kube-version  the release to build, default the pinned one (v1.37.1);
#                   a minor (1.31) means its newest patch, as releases.txt
#                   (beside this file) lists it
#   --kubectl       build kubectl of the same release too
#   --kubectl-only  build only kubectl of that release (a client to test
#                   against the pinned server; no kube-apiserver or etcd)
#   --with CMD,...  build these programs of k8s.io/kubernetes/cmd too
#                   (kubelet, kubeadm, kube-proxy, ...: what a kind node
#                   image holds; scripts/kind-node-image.sh asks for them)
#   DEST            defaults to ${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/local-apiserver/<release>
#
# This file is the only copy of the recipe: package internal/localapiserver
# embeds it with releases.txt (so a `go install`ed bundlectl can build the
# binaries too) and scripts/build-local-apiserver.sh is a symlink to it.
#
# k8s.io/kubernetes and etcd's server module carry replace directives, so
# neither can be `go install`ed by version; each is built from a throwaway
# wrapper module that requires it (and, for Kubernetes, every staging
# module its go.mod replaces, at the matching v0 version). A staging module
# the proxy does not have at that version (kube-apiserver never imports
# those) is pointed at an empty local module in the wrapper. Built once:
# existing binaries that report the right version are kept.
#
# DEST is shared by every checkout and test on the machine. Builds are
# serialised with flock(1) where it exists (a second build waits, then finds
# the binaries); each binary is written under a name of its own and renamed
# into place, so even unlocked concurrent builds never leave a torn file.
set -euo pipefail

PINNED_VERSION=v1.37.1
# etcd is the one k8s.io/kubernetes $PINNED_VERSION requires
# (go.etcd.io/etcd/server/v3 in its go.mod); every release is run with it.
ETCD_VERSION=v3.7.0

K8S_VERSION=$PINNED_VERSION
with_kubectl=false
with_server=true
with_cmds=()
dest=
while [[ $# -gt 0 ]]; do
	case $1 in
	--kube-version) K8S_VERSION=$2; shift 2 ;;
	--kube-version=*) K8S_VERSION=${1#*=}; shift ;;
	--kubectl) with_kubectl=true; shift ;;
	--kubectl-only) with_kubectl=true; with_server=false; shift ;;
	--with) IFS=, read -r -a with_cmds <<<"$2"; shift 2 ;;
	--with=*) IFS=, read -r -a with_cmds <<<"${1#*=}"; shift ;;
	-*) echo "unknown flag $1" >&2; exit 2 ;;
	*) dest=$1; shift ;;
	esac
done

# releases.txt: "1.NN vX.Y.Z key=value..." per supported minor.
releases="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/releases.txt"
if [[ ! -r $releases ]]; then
	echo "$releases is missing: the script reads the releases it supports from it" >&2
	exit 2
fi
release_line() { # release_line MINOR: that minor's line, or nothing
	local m rest
	while read -r m rest; do
		[[ $m == "$1" ]] && { echo "$m $rest"; return; }
	done <"$releases"
	return 0
}
if [[ $K8S_VERSION =~ ^v?1\.([0-9]+)$ ]]; then
	line="$(release_line "1.${BASH_REMATCH[1]}")"
	if [[ -z $line ]]; then
		echo "Kubernetes $K8S_VERSION is not a minor $releases lists" >&2
		exit 2
	fi
	read -r _ K8S_VERSION _ <<<"$line"
fi
if [[ ! $K8S_VERSION =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
	echo "--kube-version wants a release such as v1.31.14 or a minor such as 1.31, not $K8S_VERSION" >&2
	exit 2
fi
minor=${BASH_REMATCH[1]}
STAGING_VERSION=v0.$minor.${BASH_REMATCH[2]}
# Modules the wrapper needs newer than the release pins (require=), and
# build tags (tags=).
extra_reqs=()
build_tags=
for kv in $(release_line "1.$minor"); do
	case $kv in
	require=*) IFS=, read -r -a extra_reqs <<<"${kv#require=}" ;;
	tags=*) build_tags=${kv#tags=} ;;
	esac
done

dest="${dest:-${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}/local-apiserver/$K8S_VERSION}"
mkdir -p "$dest"

# Versions are read whole into variables, not piped into grep -q or head:
# under pipefail, a reader that stops early makes the writer die of
# SIGPIPE and the check fail at random.
built() {
	local k e c
	if $with_server; then
		[[ -x "$dest/kube-apiserver" && -x "$dest/etcd" ]] || return 1
		k="$("$dest/kube-apiserver" --version 2>/dev/null)" || return 1
		e="$("$dest/etcd" --version 2>/dev/null)" || return 1
		has_line "$k" "Kubernetes $K8S_VERSION" && has_line "$e" "etcd Version: ${ETCD_VERSION#v}" || return 1
	fi
	for c in "${with_cmds[@]}"; do
		cmd_built "$c" || return 1
	done
	$with_kubectl || return 0
	[[ -x "$dest/kubectl" ]] || return 1
	c="$("$dest/kubectl" version --client 2>/dev/null)" || return 1
	has_line "$c" "Client Version: $K8S_VERSION"
}
cmd_built() { # cmd_built NAME: a program of --with reports the release
	local v
	[[ -x "$dest/$1" ]] || return 1
	if [[ $1 == kubeadm ]]; then
		v="$("$dest/kubeadm" version -o short 2>/dev/null)" && [[ $v == "$K8S_VERSION" ]]
	else
		v="$("$dest/$1" --version 2>/dev/null)" && has_line "$v" "Kubernetes $K8S_VERSION"
	fi
}
has_line() { [[ $'\n'$1$'\n' == *$'\n'"$2"$'\n'* ]]; }
done_msg() {
	if $with_server; then
		echo "kube-apiserver $K8S_VERSION$($with_kubectl && echo ", kubectl $K8S_VERSION")${with_cmds[*]:+, ${with_cmds[*]}} and etcd $ETCD_VERSION are in $dest"
	else
		echo "kubectl $K8S_VERSION is in $dest"
	fi
}

if built; then
	done_msg
	exit 0
fi

if command -v flock >/dev/null; then
	exec 9>"$dest/.build.lock"
	if ! flock -n 9; then
		echo "another build into $dest is running; waiting for it"
		flock 9
	fi
	if built; then
		done_msg
		exit 0
	fi
fi

work="$(mktemp -d)"
cleanup() { rm -rf "$work" "$dest"/.*.tmp.$$; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The staging modules are the ones the release's go.mod replaces with
# ./staging/src/k8s.io/<name>: the list changes from release to release.
kmod="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION")"
kdir="${kmod#*\"Dir\": \"}"
kdir="${kdir%%\"*}"
kmod="${kmod#*\"GoMod\": \"}"
kmod="${kmod%%\"*}"
staging=()
while read -r m _; do
	staging+=("${m#k8s.io/}")
done < <(sed -n 's#^[[:space:]]*\(replace[[:space:]]*\)\{0,1\}\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*#\2 x#p' "$kmod")
if [[ ${#staging[@]} -eq 0 ]]; then
	echo "found no staging modules in $kmod" >&2
	exit 1
fi

# Releases before 1.24 do not ship pkg/generated/openapi/zz_generated.openapi.go
# in their module: their build generated it, as
# build/root/Makefile.generated_files says: kube-openapi's openapi-gen
# (at the version the release pins) over every package of the release and
# its staging modules, but code-generator's and sample-apiserver's, with a
# file holding a "// +k8s:" tag and a "+k8s:openapi-gen=" one. It is
# generated here the same way, in GOPATH mode over the wrapper's vendor
# folder (as the release's hack/run-in-gopath.sh did), into that folder.
openapi_pkgs() { # openapi_pkgs REQUIREMENTS...: the packages openapi-gen reads
	local req dir m
	for req in "$@"; do
		m=${req%@*}
		case $m in k8s.io/code-generator | k8s.io/sample-apiserver) continue ;; k8s.io/*) ;; *) continue ;; esac
		dir="$(go mod download -json "$req" 2>/dev/null | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || continue
		[[ -n $dir ]] || continue
		# A module or a batch of files without tags (cli-runtime) finds
		# nothing: not a failure.
		{ grep -rl --include='*.go' '^// *+k8s:' "$dir" || true; } |
			{ grep -v -e '/vendor/' -e '/testdata/' -e '_test\.go$' || true; } |
			{ xargs -r grep -l '+k8s:openapi-gen=' || true; } |
			xargs -r -n1 dirname | LC_ALL=C sort -u |
			sed "s#^$dir#$m#"
	done
}

generate_openapi() { # in the wrapper, after tidy
	echo "generating pkg/generated/openapi (the module of $K8S_VERSION lacks it) with openapi-gen"
	go build -mod=mod -o "$work/bin/openapi-gen" k8s.io/kube-openapi/cmd/openapi-gen
	go mod vendor
	local gopath="$work/gopath" self="bundlectl.local/$name"
	mkdir -p "$gopath/src/$(dirname "$self")"
	ln -sfn "$PWD" "$gopath/src/$self"
	printf '/*\nCopyright The Kubernetes Authors.\n*/\n\n' >"$work/boilerplate.go.txt"
	(
		cd "$gopath/src/$self"
		GO111MODULE=off GOPATH="$gopath" GOFLAGS= "$work/bin/openapi-gen" \
			-i "$(paste -sd, "$work/openapi-pkgs")" \
			-p k8s.io/kubernetes/pkg/generated/openapi -O zz_generated.openapi \
			-h "$work/boilerplate.go.txt" -o "$work/openapi" -r "$work/openapi/violations.report"
	)
	cp "$work/openapi/k8s.io/kubernetes/pkg/generated/openapi/zz_generated.openapi.go" vendor/k8s.io/kubernetes/pkg/generated/openapi/
}

build() { # build "NAME..." "MAIN_PACKAGE..." LDFLAGS REQUIREMENTS...: each NAME from its package, in one wrapper
	local -a names pkgs
	read -r -a names <<<"$1"
	read -r -a pkgs <<<"$2"
	local name=${names[0]} ldflags=$3
	shift 3
	mkdir -p "$work/$name"
	(
		cd "$work/$name"
		printf 'module bundlectl.local/%s\n\ngo 1.25.0\n' "$name" >go.mod
		printf 'package main\n\n' >tools.go
		printf 'import _ "%s"\n' "${pkgs[@]}" >>tools.go
		local req
		for req in "$@"; do
			local m=${req%@*} v=${req#*@}
			if go mod download "$req" >/dev/null 2>&1; then
				go mod edit -require="$req"
				# Up to 1.22 k8s.io/kubernetes's go.mod is not pruned
				# (go 1.16): the go command reads the go.mod of every
				# version it names, the staging modules' v0.0.0 too,
				# which no proxy serves. The wrapper maps it to the
				# release's.
				if [[ $m == k8s.io/* && $m != k8s.io/kubernetes ]]; then
					go mod edit -replace="$m@v0.0.0=$req"
				fi
			else
				# Not on the proxy at this version: an empty module stands
				# in; the program built never imports it.
				echo "$req is not on the module proxy; an empty module stands in for it"
				mkdir -p "$work/empty/$m"
				printf 'module %s\n' "$m" >"$work/empty/$m/go.mod"
				go mod edit -require="$m@$v" -replace="$m=$work/empty/$m"
			fi
		done
		local gen=false
		if [[ $name == kube-apiserver && ! -f $kdir/pkg/generated/openapi/zz_generated.openapi.go ]]; then
			gen=true
			# tools.go imports them, so that tidy and vendor keep them.
			openapi_pkgs "$@" >"$work/openapi-pkgs"
			sed 's/.*/import _ "&"/' "$work/openapi-pkgs" >>tools.go
		fi
		if [[ -n $build_tags ]]; then
			# tidy reads the files of every tag: the imports only the
			# files the tags leave out have (of a module the proxy lacks)
			# are not an error.
			go mod tidy -e >/dev/null 2>&1
		else
			go mod tidy >/dev/null
		fi
		local mod=mod
		if $gen; then
			generate_openapi
			mod=vendor
		fi
		local i
		for i in "${!names[@]}"; do
			echo "building ${names[$i]} from ${pkgs[$i]}"
			CGO_ENABLED=0 go build -mod=$mod -trimpath ${build_tags:+-tags "$build_tags"} -ldflags "$ldflags" -o "$dest/.${names[$i]}.tmp.$$" "${pkgs[$i]}"
		done
	)
	local n
	for n in "${names[@]}"; do
		mv -f "$dest/.$n.tmp.$$" "$dest/$n"
	done
}

# The version stamp, as the release's own build (hack/lib/version.sh) writes
# it into both version packages: kube-aggregator serves /version from
# client-go's up to 1.24 at least, the rest of the server from
# component-base's. A package the binary does not link is ignored.
k8s_ldflags="-s -w"
for vpkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	k8s_ldflags+=" -X $vpkg.gitVersion=$K8S_VERSION -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z"
done
reqs=("k8s.io/kubernetes@$K8S_VERSION")
for m in "${staging[@]}"; do
	# A staging module releases.txt requires at another version (the
	# proxy lacks the release's own) is required at that one only.
	for x in "${extra_reqs[@]}"; do
		[[ ${x%@*} == "k8s.io/$m" ]] && continue 2
	done
	reqs+=("k8s.io/$m@$STAGING_VERSION")
done
reqs+=("${extra_reqs[@]}")
apiserver_built() {
	local k
	k="$("$dest/kube-apiserver" --version 2>/dev/null)" && has_line "$k" "Kubernetes $K8S_VERSION"
}
if $with_server && ! apiserver_built; then
	build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$k8s_ldflags" "${reqs[@]}"
fi
cmds=() cmd_pkgs=()
if $with_kubectl; then
	cmds+=(kubectl) cmd_pkgs+=(k8s.io/kubernetes/cmd/kubectl)
fi
for c in "${with_cmds[@]}"; do
	cmd_built "$c" && continue
	cmds+=("$c") cmd_pkgs+=("k8s.io/kubernetes/cmd/$c")
done
if [[ ${#cmds[@]} -gt 0 ]]; then
	build "${cmds[*]}" "${cmd_pkgs[*]}" "$k8s_ldflags" "${reqs[@]}"
fi

etcd_built() {
	local e
	e="$("$dest/etcd" --version 2>/dev/null)" && has_line "$e" "etcd Version: ${ETCD_VERSION#v}"
}
# Every release runs the same etcd: one another release's folder holds is
# copied rather than built again.
if $with_server && ! etcd_built; then
	for other in "$(dirname "$dest")"/*/etcd; do
		e="$("$other" --version 2>/dev/null)" || continue
		if has_line "$e" "etcd Version: ${ETCD_VERSION#v}"; then
			echo "etcd $ETCD_VERSION copied from $other"
			cp "$other" "$dest/.etcd.tmp.$$"
			mv -f "$dest/.etcd.tmp.$$" "$dest/etcd"
			break
		fi
	done
fi
if $with_server && ! etcd_built; then
	build etcd go.etcd.io/etcd/server/v3 "-s -w" \
		"go.etcd.io/etcd/server/v3@$ETCD_VERSION" "go.etcd.io/etcd/api/v3@$ETCD_VERSION" \
		"go.etcd.io/etcd/client/pkg/v3@$ETCD_VERSION" "go.etcd.io/etcd/client/v3@$ETCD_VERSION" \
		"go.etcd.io/etcd/pkg/v3@$ETCD_VERSION"
fi

built || {
	echo "the binaries built in $dest do not report Kubernetes $K8S_VERSION (and etcd $ETCD_VERSION)" >&2
	exit 1
}
done_msg
