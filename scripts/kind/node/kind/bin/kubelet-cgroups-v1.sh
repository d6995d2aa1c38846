#!/bin/sh
# Creates the kubelet's cgroup root (/kubelet, and /kubelet.slice for the
# systemd driver) in every cgroup v1 hierarchy mounted now, including those
# systemd mounted after kind's entrypoint ran (see
# kubelet.service.d/20-cgroup-v1.conf). Nothing to do on cgroup v2.
set -eu
[ -f /sys/fs/cgroup/cgroup.controllers ] && exit 0
findmnt -lun -t cgroup -o target | while read -r dir; do
	mkdir -p "$dir/kubelet" "$dir/kubelet.slice"
done
