//go:build pin

// This file is never built. It exists so that `go mod tidy` keeps every
// Kubernetes staging module in go.mod at the version matching
// k8s.io/kubernetes. k8s.io/kubernetes's own go.mod requires the staging
// modules at v0.0.0 and replaces them with local folders; replace lines are
// ignored in dependencies, so without explicit requirements here the build
// list would be unresolvable for `go install ...@latest`.
package bundlectl

import (
	_ "k8s.io/api"
	_ "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	_ "k8s.io/apimachinery"
	_ "k8s.io/apiserver"
	_ "k8s.io/cli-runtime"
	_ "k8s.io/client-go"
	_ "k8s.io/cloud-provider"
	_ "k8s.io/cluster-bootstrap"
	_ "k8s.io/code-generator"
	_ "k8s.io/component-base"
	_ "k8s.io/component-helpers"
	_ "k8s.io/controller-manager"
	_ "k8s.io/cri-api"
	_ "k8s.io/cri-client/pkg"
	_ "k8s.io/cri-streaming/pkg/streaming"
	_ "k8s.io/csi-translation-lib"
	_ "k8s.io/dynamic-resource-allocation"
	_ "k8s.io/endpointslice"
	_ "k8s.io/externaljwt"
	_ "k8s.io/kms"
	_ "k8s.io/kube-aggregator/pkg/apis/apiregistration"
	_ "k8s.io/kube-controller-manager"
	_ "k8s.io/kube-proxy"
	_ "k8s.io/kube-scheduler"
	_ "k8s.io/kubectl"
	_ "k8s.io/kubelet"
	_ "k8s.io/kubernetes/pkg/printers/internalversion"
	_ "k8s.io/metrics"
	_ "k8s.io/mount-utils"
	_ "k8s.io/pod-security-admission"
	_ "k8s.io/sample-apiserver/pkg/apis/wardle"
	_ "k8s.io/sample-cli-plugin"
	_ "k8s.io/sample-controller/pkg/apis/samplecontroller/v1alpha1"
	_ "k8s.io/streaming/pkg/httpstream"
)
