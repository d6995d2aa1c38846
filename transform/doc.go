// Package transform is `bundlectl upgrade`: one streaming pass that copies
// every entry of a legacy support bundle unchanged and adds what the bundle
// contract asks for, a meta.k8s.io/v1 Table beside every raw list and
// cluster-resources/_meta/discovery.json.
//
// It is the only package of bundlectl that knows about specific kinds, and
// all of that knowledge is upstream code: built-in objects are decoded with
// the legacy scheme, converted to their internal version and rendered by
// the kube-apiserver's own printers (k8s.io/kubernetes/pkg/printers/internalversion),
// custom resources by the apiextensions table convertor with their CRD's
// printer columns, and everything else by the apiserver's default
// convertor. Every time-relative cell (ages, "2h ago", durations of running
// jobs) is computed as of the bundle's collection time, never the time of
// the upgrade, so the result is deterministic.
package transform
