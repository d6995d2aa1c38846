// Package collect is the reference collector of the bundle contract: it
// reads a live cluster with client-go's transport and writes a bundle in
// troubleshoot's layout with everything the contract adds. It knows
// nothing of the command line and never imports k8s.io/kubernetes.
//
// What a bundle it collects holds, and how it reads the cluster (one second
// for every table, namespaces, secrets, failures, selectable fields, logs),
// is in docs/collect.md.
package collect
