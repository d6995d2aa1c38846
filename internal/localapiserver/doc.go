// Package localapiserver provides the live cluster of the conformance gate without
// containers (the gate's --local flag): a real kube-apiserver and etcd,
// started as child processes on 127.0.0.1. kube-apiserver is the pinned
// release (Version) or any other of Releases (Options.KubeVersion: one per
// minor, listed with what each needs in releases.txt); etcd is always
// EtcdVersion. The binaries are built once per release from the Go module
// proxy into BinDir(DefaultCacheDir(), release) by the build script this
// package embeds (scripts/build-local-apiserver.sh is a symlink to it);
// Create runs it when they are missing, unless Options.NoBuild.
//
// What runs (and what does not), the admission plugins, the API surface,
// access and the processes are in docs/local-apiserver.md. Package
// localtest starts a server for one test.
package localapiserver
