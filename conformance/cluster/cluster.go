// Package cluster is the small interface between the conformance gate and
// the providers of its live cluster, in the style of kind's providers:
// each implementation knows how to start and stop one kind of cluster and
// nothing about the gate.
package cluster

import "context"

// Cluster is a live cluster the gate runs against.
type Cluster struct {
	Name       string
	Kubeconfig string // path to a kubeconfig whose current context is the cluster
	Version    string // the Kubernetes version the provider started, when it knows
	// Created says the provider created the cluster for the run (kind),
	// so that all of it is the run's to collect: not a user's cluster,
	// whose Secrets the gate must not copy.
	Created bool
}

// Provider starts and stops a live cluster.
type Provider interface {
	Name() string
	Create(ctx context.Context) (*Cluster, error)
	Delete(ctx context.Context) error
}
