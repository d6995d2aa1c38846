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
// # What runs
//
// Only etcd and kube-apiserver. There is no kube-controller-manager, no
// scheduler and no kubelet, so nothing reconciles: pods stay Pending with
// no node, Deployments get no ReplicaSets, no Endpoints or EndpointSlices
// are made for Services (except the apiserver's own "kubernetes"
// Service), namespace deletion never finishes (a deleted namespace stays
// Terminating), the garbage collector does not run, ResourceQuota status
// is never computed. Status that a controller would write must be written
// by the caller (the status subresources accept it).
//
// The apiserver itself creates what it always creates: the default,
// kube-system, kube-public and kube-node-lease namespaces, the
// "kubernetes" Service (10.96.0.1, from ServiceClusterIPRange) with its
// Endpoints and EndpointSlice (AdvertiseAddress, a TEST-NET-1 address,
// because the Endpoints API refuses loopback), the bootstrap RBAC roles,
// priority classes, FlowSchemas and PriorityLevelConfigurations, and its
// identity Leases.
//
// # Admission: what callers can rely on
//
// Two default admission plugins need a controller this provider does not
// run, so they are disabled (DefaultDisabledAdmissionPlugins):
//
//   - ServiceAccount: it rejects every pod in a namespace that has no
//     "default" ServiceAccount, and only the service-account controller
//     creates that (not even the "default" namespace has one here). With the plugin off, pods are created in any existing
//     namespace without further ado, and stored as posted: spec.
//     serviceAccountName is not defaulted to "default" and no
//     kube-api-access projected volume is injected. Fixtures that want a
//     pod to look like one on a real cluster set those fields themselves.
//   - ResourceQuota: it rejects creates in a namespace with a quota whose
//     status the quota controller has not computed yet, which here is
//     forever. With the plugin off, ResourceQuotas are plain objects.
//
// Every other default plugin runs (NamespaceLifecycle, LimitRanger,
// PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass,
// the webhook and admission-policy plugins…). Options.DisabledAdmissionPlugins
// changes the list.
//
// # API surface
//
// The apiserver serves every API version of the release
// (--runtime-config=api/all=true) with the feature gates of its line in
// releases.txt (Release.FeatureGates): each is a gate that release's
// pkg/registry/*/rest checks before it serves a kind of the table
// printers. For the pinned release every kind the Kubernetes 1.37 table
// printers know is served (the package's tests check each one). Four kinds
// need a gate besides the runtime config:
//
//   - GenericWorkload: scheduling.k8s.io v1beta1 Workload and PodGroup
//   - CompositePodGroup: scheduling.k8s.io v1alpha3 CompositePodGroup; it
//     depends on TopologyAwareWorkloadScheduling, which is on as well
//   - EvictionRequestAPI: lifecycle.k8s.io v1alpha1 EvictionRequest and Eviction
//   - DRAResourcePoolStatus: resource.k8s.io v1alpha3 ResourcePoolStatusRequest
//
// Served by the runtime config alone, with no gate: coordination.k8s.io
// v1alpha2/v1beta1 LeaseCandidate, internal.apiserver.k8s.io v1alpha1
// StorageVersion, resource.k8s.io v1alpha3 DeviceTaintRule, the
// admissionregistration v1alpha1/v1beta1 MutatingAdmissionPolicies, and the
// alpha and beta versions of every other group. ClusterTrustBundle,
// PodCertificateRequest, StorageVersionMigration, MutatingAdmissionPolicy
// and DRA device taints are GA in 1.37 and on by default.
//
// Every printer kind could be enabled. Gates deliberately left off,
// although they relate to those kinds:
//
//   - CoordinatedLeaderElection: not needed to serve LeaseCandidate, and it
//     starts controllers inside the apiserver that elect leaders into
//     Leases and garbage-collect LeaseCandidates not renewed lately, which
//     would change or delete a caller's fixtures under it.
//   - StorageVersionAPI: not needed to serve StorageVersion, and it makes
//     the apiserver write a StorageVersion for every resource, and refuse
//     writes until it has, at each start.
//   - AllAlpha, AllBeta: every kind is served without them; they would
//     also turn on field-level gates that change how objects are defaulted
//     and stored, which the gate's fixtures do not need.
//
// Pass Options.FeatureGates (an empty slice for the release defaults) or
// Options.APIServerFlags to change any of this.
//
// # Access
//
// The kubeconfig Create writes (mode 0600, in the work dir) authenticates
// with a random static token of the user bundlectl-admin in the group
// system:masters; authorization is RBAC. The serving certificate, for
// 127.0.0.1, ::1 and localhost, is signed by a CA made for the run.
//
// # Processes and files
//
// Create makes a work dir of its own (under Options.WorkDir) for the
// certificates, keys, token file, etcd data, kubeconfig and, unless
// Options.LogDir says otherwise, etcd.log and kube-apiserver.log. The
// children run in process groups of their own (a terminal's Ctrl-C reaches
// bundlectl, which stops them in order) and, on Linux, are killed by the
// kernel if bundlectl dies (Pdeathsig). If Create fails or its context is
// cancelled, it stops what it started and removes the work dir before
// returning; after a successful Create the processes run until Delete,
// which stops them (SIGTERM, then SIGKILL after Options.StopGrace), waits
// for them, and removes the work dir unless Options.Keep. A program that
// is killed outright leaves its work dir behind but no process.
//
// Package localtest starts a server for one test.
package localapiserver
