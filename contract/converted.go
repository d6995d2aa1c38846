package contract

import "k8s.io/apimachinery/pkg/runtime/schema"

// cohabitants are the group resources kube-apiserver stores as one, each
// pair's first the one troubleshoot collects: a request to either reads
// the same objects (AddCohabitatingResources in k8s.io/kubernetes
// v1.37.1 pkg/kubeapiserver/default_storage_factory_builder.go). Events
// are served at events.k8s.io as they are in the core group.
var cohabitants = [][2]schema.GroupResource{
	{{Group: "networking.k8s.io", Resource: "networkpolicies"}, {Group: "extensions", Resource: "networkpolicies"}},
	{{Group: "apps", Resource: "deployments"}, {Group: "extensions", Resource: "deployments"}},
	{{Group: "apps", Resource: "daemonsets"}, {Group: "extensions", Resource: "daemonsets"}},
	{{Group: "apps", Resource: "replicasets"}, {Group: "extensions", Resource: "replicasets"}},
	{{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"}},
	{{Resource: "replicationcontrollers"}, {Group: "extensions", Resource: "replicationcontrollers"}},
	{{Group: "policy", Resource: "podsecuritypolicies"}, {Group: "extensions", Resource: "podsecuritypolicies"}},
	{{Group: "networking.k8s.io", Resource: "ingresses"}, {Group: "extensions", Resource: "ingresses"}},
}

// Cohabitants are the other group resources whose objects are gr's,
// stored once by the server (events.k8s.io events for core events).
func Cohabitants(gr schema.GroupResource) []schema.GroupResource {
	var out []schema.GroupResource
	for _, p := range cohabitants {
		switch gr {
		case p[0]:
			out = append(out, p[1])
		case p[1]:
			out = append(out, p[0])
		}
	}
	return out
}

// CohabitantOf is the group resource troubleshoot collects of the objects
// gr also serves (core events for events.k8s.io events), and false when
// gr is not the second of a cohabiting pair.
func CohabitantOf(gr schema.GroupResource) (schema.GroupResource, bool) {
	for _, p := range cohabitants {
		if gr == p[1] {
			return p[0], true
		}
	}
	return schema.GroupResource{}, false
}
