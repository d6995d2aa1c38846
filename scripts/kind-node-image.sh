#!/usr/bin/env bash
# Builds a kind node image of a Kubernetes release without an image
# registry, for `bundlectl conformance --kind --kind-image TAG`:
#
#   scripts/kind-node-image.sh [--kube-version 1.NN|vX.Y.Z] [--force]
#
# and prints its tag, bundlectl.local/kind-node:<release>, as the last line.
# The release defaults to the pinned one; a minor means its newest patch as
# internal/localapiserver/releases.txt lists it. kind v0.33.0 (go.mod's)
# supports 1.34 to 1.37.
#
# What goes in, all from the Go module proxy and Debian's packages:
# - a Debian root file system (mmdebstrap) with kind's base packages, and
#   Debian's containerd and runc;
# - kind's base-image files (entrypoint, containerd config, kubelet unit),
#   read from the module cache, sigs.k8s.io/kind@<go.mod's version>/images/base;
# - kubeadm, kubelet, kubectl and the control-plane programs of the release
#   (scripts/build-local-apiserver.sh --with ...), the CNI plugins of kind's
#   base recipe, and the etcd, CoreDNS and pause that the release's kubeadm
#   names (`kubeadm config images list`), each as the image of that name,
#   imported into the node's containerd as kind's own builder does;
# - busybox (Debian's busybox-static) as docker.io/library/busybox:<its
#   version>, the image the conformance fixtures' workloads run;
# - what this machine needs, in the image's own files (scripts/kind/node):
#   a static CNI configuration (kindnetd is on no reachable registry), the
#   kubelet's --fail-cgroupv1=false and its cgroups in late-mounted v1
#   hierarchies, and containerd's restrict_oom_score_adj (no process here
#   may lower an oom_score_adj).
#
# Everything is cached under ${BUNDLECTL_CACHE:-~/.cache/bundlectl}/kind:
# a second run with the same inputs finds the image in Docker (or loads
# the saved archive into a new daemon) in seconds. The full log of each
# run is <cache>/kind/<release>/build.log. Needs a Docker daemon
# (../shared/tools/dockerd-here starts one), mmdebstrap, gcc and Go.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

kube_version=
force=false
while [[ $# -gt 0 ]]; do
	case $1 in
	--kube-version) kube_version=$2; shift 2 ;;
	--kube-version=*) kube_version=${1#*=}; shift ;;
	--force) force=true; shift ;;
	*) echo "usage: $0 [--kube-version 1.NN|vX.Y.Z] [--force]" >&2; exit 2 ;;
	esac
done

releases=internal/localapiserver/releases.txt
if [[ -z $kube_version ]]; then
	kube_version=$(sed -n 's/^PINNED_VERSION=//p' internal/localapiserver/build-local-apiserver.sh)
fi
if [[ $kube_version =~ ^v?(1\.[0-9]+)$ ]]; then
	kube_version=$(awk -v m="${BASH_REMATCH[1]}" '$1 == m {print $2}' "$releases")
	[[ -n $kube_version ]] || { echo "Kubernetes $kube_version: not a minor $releases lists" >&2; exit 2; }
fi
[[ $kube_version =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || { echo "--kube-version wants 1.NN or vX.Y.Z, not $kube_version" >&2; exit 2; }
minor=${BASH_REMATCH[1]}
tag=bundlectl.local/kind-node:$kube_version

cache=${BUNDLECTL_CACHE:-$HOME/.cache/bundlectl}
kcache=$cache/kind
rdir=$kcache/$kube_version
mkdir -p "$rdir" "$kcache/bin" "$kcache/rootfs" "$kcache/images"
log=$rdir/build.log
: >"$log"
exec 3>&1 >>"$log" 2>&1
start=$SECONDS
# say: a line for the terminal (fd 3) and the log; the rest goes to the log.
say() { printf '%s\n' "$*" >&3; printf '%s\n' "$*" >>"$log"; }
step() { say "kind-node-image: [$((SECONDS - start))s] $*"; }
trap 'rc=$?; if [[ $rc -ne 0 ]]; then echo "kind-node-image: failed (exit $rc); the last lines of $log:" >&3; tail -25 "$log" >&3; fi' EXIT

docker info >/dev/null 2>&1 || { say "kind-node-image: no Docker daemon answers (../shared/tools/dockerd-here starts one)"; exit 1; }

# kind's base-image recipe, from the module cache at go.mod's version.
go mod download sigs.k8s.io/kind
kind_version=$(go list -m -f '{{.Version}}' sigs.k8s.io/kind)
kind_base=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kind)/images/base
[[ -f $kind_base/Dockerfile ]] || { say "kind-node-image: $kind_base/Dockerfile is missing"; exit 1; }
kind_arg() { sed -n "s/^ARG $1=\"\\(.*\\)\"/\\1/p" "$kind_base/Dockerfile"; }
cni_version=$(kind_arg CNI_PLUGINS_VERSION)
[[ -n $cni_version ]] || { say "kind-node-image: no CNI_PLUGINS_VERSION in $kind_base/Dockerfile"; exit 1; }

# kind's base packages (images/base/Dockerfile), without those for network
# storage and rootless mode, with Debian's containerd and runc in place of
# the ones kind builds, and busybox-static for the fixtures' image.
suite=bookworm
node_packages=systemd,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,e2fsprogs,bash,ca-certificates,curl,jq,procps,containerd,runc,busybox-static
proxy_packages=iptables,nftables,conntrack,kmod,ipset

# The inputs the image is made of; a change to any of them builds it again.
inputs=$(
	{
		echo "$kube_version $kind_version $cni_version $suite $node_packages $proxy_packages"
		cat scripts/kind-node-image.sh scripts/kind/pause.c
		find scripts/kind/node -type f | LC_ALL=C sort | xargs cat
		find "$kind_base/files" -type f | LC_ALL=C sort | xargs cat
	} | sha256sum | cut -c1-16
)
label=dev.bundlectl.kind-node.inputs
archive=$kcache/images/kind-node-$kube_version.tar.zst

have_image() { [[ $(docker image inspect -f "{{index .Config.Labels \"$label\"}}" "$tag" 2>/dev/null) == "$inputs" ]]; }
if ! $force && have_image; then
	step "$tag is built (inputs $inputs)"
	echo "$tag" >&3
	exit 0
fi
if ! $force && [[ -f $archive && $(cat "$archive.inputs" 2>/dev/null) == "$inputs" ]]; then
	step "loading $tag from $archive"
	zstd -dc "$archive" | docker load
	if have_image; then
		step "$tag loaded"
		echo "$tag" >&3
		exit 0
	fi
fi

work=$(mktemp -d "$kcache/work.XXXXXX")
bake=bundlectl-kind-bake-$$
cleanup() {
	docker rm -f "$bake" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap 'rc=$?; cleanup; if [[ $rc -ne 0 ]]; then echo "kind-node-image: failed (exit $rc); the last lines of $log:" >&3; tail -25 "$log" >&3; fi' EXIT

step "building $tag (kind $kind_version, inputs $inputs); log: $log"

# 1. Kubernetes, from the module proxy (kept in the --local provider's
#    folder of the release, which holds its kube-apiserver).
step "Kubernetes $kube_version binaries"
scripts/build-local-apiserver.sh --kube-version "$kube_version" --kubectl \
	--with kubelet,kubeadm,kube-controller-manager,kube-scheduler,kube-proxy
kbin=$cache/local-apiserver/$kube_version

# 2. The images kubeadm of this release names.
images=$("$kbin/kubeadm" config images list --kubernetes-version "$kube_version")
image_of() { grep -E "^registry\.k8s\.io/($1):" <<<"$images" || { say "kind-node-image: kubeadm names no $1 image"; exit 1; }; }
etcd_image=$(image_of etcd)
coredns_image=$(image_of 'coredns/coredns|coredns')
pause_image=$(image_of pause)
etcd_version=v${etcd_image##*:}
etcd_version=${etcd_version%-*}
coredns_version=${coredns_image##*:}
say "kubeadm $kube_version names: $(tr '\n' ' ' <<<"$images")"

# 3. etcd, CoreDNS, the CNI plugins and pause.
gobin() { echo "$kcache/bin/$1"; }
etcd_bin=$(gobin "etcd-$etcd_version")/etcd
etcd_is() { [[ -x $1 ]] && [[ $("$1" --version 2>/dev/null) == *"etcd Version: ${etcd_version#v}"* ]]; }
if ! etcd_is "$etcd_bin" && etcd_is "$kbin/etcd"; then
	# The --local provider's etcd (the pinned release's) is the one.
	etcd_bin=$kbin/etcd
fi
if ! etcd_is "$etcd_bin"; then
	step "etcd $etcd_version"
	# etcd's server module carries replace directives: it is built from a
	# wrapper module that requires it and its sibling modules.
	ew=$work/etcd
	mkdir -p "$ew" "$(dirname "$etcd_bin")"
	(
		cd "$ew"
		printf 'module bundlectl.local/etcd\n\ngo 1.25.0\n' >go.mod
		printf 'package main\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >tools.go
		for m in server/v3 api/v3 client/pkg/v3 client/v3 pkg/v3; do
			go mod edit -require="go.etcd.io/etcd/$m@$etcd_version"
		done
		go mod tidy
		CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$etcd_bin.tmp" go.etcd.io/etcd/server/v3
	)
	mv -f "$etcd_bin.tmp" "$etcd_bin"
fi
coredns_bin=$(gobin "coredns-$coredns_version")/coredns
if ! [[ -x $coredns_bin ]]; then
	step "CoreDNS $coredns_version"
	GOBIN=$(dirname "$coredns_bin") CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$coredns_version"
fi
cni_dir=$(gobin "cni-plugins-$cni_version")
if ! [[ -x $cni_dir/ptp && -x $cni_dir/host-local && -x $cni_dir/loopback && -x $cni_dir/portmap ]]; then
	step "CNI plugins $cni_version"
	p=github.com/containernetworking/plugins/plugins
	GOBIN=$cni_dir CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
		"$p/main/ptp@$cni_version" "$p/ipam/host-local@$cni_version" "$p/main/loopback@$cni_version" "$p/meta/portmap@$cni_version"
fi
pause_bin=$work/pause
gcc -static -O2 -Wall -o "$pause_bin" scripts/kind/pause.c
strip "$pause_bin"

# 4. Debian root file systems, cached by their package lists.
rootfs() { # rootfs NAME PACKAGES: an imported image of a minbase with PACKAGES
	local name=$1 pkgs=$2 h tar img
	h=$(echo "$suite $pkgs" | sha256sum | cut -c1-12)
	tar=$kcache/rootfs/$name-$suite-$h.tar
	img=bundlectl.local/kind-$name-rootfs:$h
	if ! [[ -f $tar ]]; then
		step "Debian $suite root file system for $name (mmdebstrap)"
		mmdebstrap --variant=minbase --format=tar --include="$pkgs" \
			--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
			"$suite" "$tar.tmp" >&2
		mv -f "$tar.tmp" "$tar"
	fi
	if ! docker image inspect "$img" >/dev/null 2>&1; then
		docker import "$tar" "$img" >/dev/null
	fi
	echo "$img"
}
node_rootfs=$(rootfs node "$node_packages")
proxy_rootfs=$(rootfs proxy "$proxy_packages")
node_tar=$kcache/rootfs/node-$suite-$(echo "$suite $node_packages" | sha256sum | cut -c1-12).tar

# 5. The component images, named as kubeadm names them.
step "component images"
component() { # component IMAGE FROM [FILE DEST]... -- DOCKERFILE-LINES...
	local image=$1 from=$2 ctx
	shift 2
	ctx=$work/ctx-${image//[\/:]/_}
	mkdir -p "$ctx"
	{
		echo "FROM $from"
		while [[ $# -gt 0 && $1 != -- ]]; do
			cp "$1" "$ctx/$(basename "$2")"
			echo "COPY $(basename "$2") $2"
			shift 2
		done
		[[ $# -gt 0 ]] && shift
		echo 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin'
		printf '%s\n' "$@"
	} >"$ctx/Dockerfile"
	docker build -q -t "$image" "$ctx" >/dev/null
}
for c in kube-apiserver kube-controller-manager kube-scheduler; do
	component "registry.k8s.io/$c:$kube_version" scratch "$kbin/$c" "/usr/local/bin/$c" -- "ENTRYPOINT [\"/usr/local/bin/$c\"]"
done
component "registry.k8s.io/kube-proxy:$kube_version" "$proxy_rootfs" "$kbin/kube-proxy" /usr/local/bin/kube-proxy -- 'ENTRYPOINT ["/usr/local/bin/kube-proxy"]'
component "$etcd_image" scratch "$etcd_bin" /usr/local/bin/etcd -- 'ENTRYPOINT ["/usr/local/bin/etcd"]'
component "$coredns_image" scratch "$coredns_bin" /coredns -- 'ENTRYPOINT ["/coredns"]'
component "$pause_image" scratch "$pause_bin" /pause -- 'ENTRYPOINT ["/pause"]'
# busybox for the fixtures, named by the version Debian packages.
tar -xf "$node_tar" -C "$work" ./usr/bin/busybox ./var/lib/dpkg/status
busybox_version=$(awk '/^Package: busybox-static$/ {p = 1} p && /^Version:/ {print $2; exit}' "$work/var/lib/dpkg/status")
busybox_version=${busybox_version#*:}
busybox_version=${busybox_version%%-*}
busybox_image=docker.io/library/busybox:$busybox_version
component "$busybox_image" scratch "$work/usr/bin/busybox" /bin/busybox -- 'RUN ["/bin/busybox", "--install", "-s", "/bin"]' 'CMD ["sh"]'
all_images=$(printf '%s\n' $images "$busybox_image")

# 6. The node image without its images: kind's base files, then ours.
step "node base image"
nctx=$work/node
mkdir -p "$nctx/root/etc/containerd" "$nctx/root/usr/local/bin" "$nctx/root/usr/bin" "$nctx/root/opt/cni/bin" "$nctx/root/kind"
cp -r "$kind_base/files/etc" "$kind_base/files/kind" "$nctx/root/"
cp "$kind_base/files/usr/local/bin/"* "$nctx/root/usr/local/bin/"
# kind's containerd configuration with the pause image kubeadm names, no
# fuse-overlayfs snapshotter (rootless only; not built here), and
# restrict_oom_score_adj: containerd then never asks runc for an
# oom_score_adj below its own (critical pods ask for -997).
sed -e "s#sandbox_image = \".*\"#sandbox_image = \"$pause_image\"#" \
	-e 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' \
	-e '/^\[proxy_plugins\]/,/^  address = /d' \
	"$kind_base/files/etc/containerd/config.toml" >"$nctx/root/etc/containerd/config.toml"
grep -q 'restrict_oom_score_adj = true' "$nctx/root/etc/containerd/config.toml"
grep -q "sandbox_image = \"$pause_image\"" "$nctx/root/etc/containerd/config.toml"
rm -f "$nctx/root/etc/systemd/system/containerd-fuse-overlayfs.service"
cp -r scripts/kind/node/. "$nctx/root/"
cp "$kbin/kubeadm" "$kbin/kubelet" "$kbin/kubectl" "$nctx/root/usr/bin/"
cp "$cni_dir/ptp" "$cni_dir/host-local" "$cni_dir/loopback" "$cni_dir/portmap" "$nctx/root/opt/cni/bin/"
echo "$kube_version" >"$nctx/root/kind/version"
find "$nctx/root" -type d -exec chmod 755 {} +
find "$nctx/root" -type f -exec chmod 644 {} +
chmod 755 "$nctx/root/usr/local/bin/"* "$nctx/root/kind/bin/"* "$nctx/root/usr/bin/"* "$nctx/root/opt/cni/bin/"*
cat >"$nctx/Dockerfile" <<EOF
FROM $node_rootfs
COPY root/ /
# As kind's base image (images/base/Dockerfile): systemd's units for a
# container, kind's services, containerd's base OCI spec with kind's hook.
RUN set -e; \
	find /lib/systemd/system/sysinit.target.wants/ -name systemd-tmpfiles-setup.service -delete; \
	rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \
		/lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev* \
		/lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/*; \
	echo ReadKMsg=no >>/etc/systemd/journald.conf; \
	ln -sf /usr/lib/systemd/systemd /sbin/init; \
	ln -sf /usr/bin/containerd /usr/local/bin/containerd; \
	systemctl enable kubelet.service containerd.service undo-mount-hacks.service; \
	systemctl mask systemd-binfmt.service; \
	mkdir -p /etc/kubernetes/manifests; \
	ctr oci spec | jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
		| jq 'del(.process.rlimits)' >/etc/containerd/cri-base.json
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
EOF
docker build -q -t "bundlectl.local/kind-node-base:$inputs" "$nctx" >/dev/null

# 7. The images, into the node's containerd, as kind's node-image builder
#    imports them (pinned, not unpacked), then committed with kind's
#    entrypoint back in place.
step "importing $(wc -l <<<"$all_images") images into the node's containerd"
docker save -o "$work/images.tar" $all_images
docker run -d --name "$bake" --privileged --entrypoint /usr/bin/containerd \
	-v "$work/images.tar:/images.tar:ro" "bundlectl.local/kind-node-base:$inputs" >/dev/null
for _ in $(seq 1 60); do
	docker exec "$bake" ctr version >/dev/null 2>&1 && break
	sleep 0.5
done
docker exec "$bake" ctr -n k8s.io images import --label=io.cri-containerd.pinned=pinned \
	--all-platforms --no-unpack --digests /images.tar
listed=$(docker exec "$bake" ctr -n k8s.io images ls -q)
for i in $all_images; do
	grep -qxF "$i" <<<"$listed" || { say "kind-node-image: $i is not in the node's containerd after the import"; exit 1; }
done
docker kill -s TERM "$bake" >/dev/null
docker wait "$bake" >/dev/null
docker commit \
	--change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' \
	--change 'CMD []' \
	--change "LABEL $label=$inputs dev.bundlectl.kind-node.kind=$kind_version" \
	"$bake" "$tag" >/dev/null
docker rm "$bake" >/dev/null
have_image || { say "kind-node-image: $tag lacks its inputs label after the commit"; exit 1; }

# 8. The archive a new Docker daemon loads instead of building again.
step "saving $archive"
docker save "$tag" | zstd -q -T0 -3 -o "$archive.tmp" -f
mv -f "$archive.tmp" "$archive"
echo "$inputs" >"$archive.inputs"
docker rmi "bundlectl.local/kind-node-base:$inputs" >/dev/null 2>&1 || true
step "built $tag: $(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}'), archive $(du -m "$archive" | cut -f1) MB"
echo "$tag" >&3
