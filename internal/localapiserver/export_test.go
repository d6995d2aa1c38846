package localapiserver

// Test-only access to the provider's insides, for package local_test.

// WithHook returns o with a function Create calls at named stages
// ("etcd-started", "apiserver-started").
func WithHook(o Options, hook func(stage string)) Options {
	o.hook = hook
	return o
}

// PIDs are the process ids of etcd and kube-apiserver while they run.
func PIDs(p *Provider) []int {
	var pids []int
	for _, proc := range []*process{p.etcd, p.apiserver} {
		if proc != nil {
			pids = append(pids, proc.pid())
		}
	}
	return pids
}

// WithPorts returns o with a function that picks the loopback ports.
func WithPorts(o Options, ports func(n int) ([]int, error)) Options {
	o.freePorts = ports
	return o
}

// FreePorts is the provider's own port picker.
var FreePorts = freePorts
