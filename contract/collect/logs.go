package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"sync"
	"time"

	"github.com/bundlectl/bundlectl/contract"
)

// Bounds of log collection: the last logTailLines lines of each container,
// at most logLimitBytes, with logTimeout per request (a dead kubelet can
// keep the server's proxy waiting).
const (
	logTailLines   = 10000
	logLimitBytes  = 5 << 20
	logTimeout     = 30 * time.Second
	logConcurrency = 16
)

// podLogs is the part of a pod that says which logs exist.
type podLogs struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		NodeName            string      `json:"nodeName"`
		InitContainers      []container `json:"initContainers"`
		Containers          []container `json:"containers"`
		EphemeralContainers []container `json:"ephemeralContainers"`
	} `json:"spec"`
	Status struct {
		InitContainerStatuses      []containerStatus `json:"initContainerStatuses"`
		ContainerStatuses          []containerStatus `json:"containerStatuses"`
		EphemeralContainerStatuses []containerStatus `json:"ephemeralContainerStatuses"`
	} `json:"status"`
}

type container struct {
	Name string `json:"name"`
}

type containerStatus struct {
	Name         string `json:"name"`
	RestartCount int32  `json:"restartCount"`
}

// logRequest is one container log, current or previous.
type logRequest struct {
	namespace, pod, container string
	previous                  bool
}

// file is where the log goes in the bundle, beside troubleshoot's.
func (l logRequest) file() string {
	name := l.container
	if l.previous {
		name += "-previous"
	}
	return path.Join(contract.ClusterResourcesDir, "pods", "logs", l.namespace, l.pod, name+".log")
}

// errorFile is where troubleshoot records a log it could not get.
func (l logRequest) errorFile() string {
	name := l.container
	if l.previous {
		name += "-previous"
	}
	return path.Join(contract.ClusterResourcesDir, "pods", "logs", l.namespace, l.pod, name+"-logs-errors.log")
}

// logRequests lists the logs of scheduled pods (an unscheduled pod has
// none): every init, app and ephemeral container, and the previous log of
// each that restarted.
func logRequests(items []json.RawMessage) ([]logRequest, error) {
	var out []logRequest
	for i, it := range items {
		var p podLogs
		if err := json.Unmarshal(it, &p); err != nil {
			return nil, fmt.Errorf("pods item %d: %w", i, err)
		}
		if p.Spec.NodeName == "" {
			continue
		}
		restarted := map[string]bool{}
		for _, statuses := range [][]containerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses, p.Status.EphemeralContainerStatuses} {
			for _, s := range statuses {
				restarted[s.Name] = s.RestartCount > 0
			}
		}
		for _, cs := range [][]container{p.Spec.InitContainers, p.Spec.Containers, p.Spec.EphemeralContainers} {
			for _, c := range cs {
				r := logRequest{namespace: p.Metadata.Namespace, pod: p.Metadata.Name, container: c.Name}
				out = append(out, r)
				if restarted[c.Name] {
					r.previous = true
					out = append(out, r)
				}
			}
		}
	}
	return out, nil
}

// fetchLogs gets every log; a failure is kept in its fetched.
func (c *client) fetchLogs(ctx context.Context, reqs []logRequest) []fetched {
	out := make([]fetched, len(reqs))
	sem := make(chan struct{}, logConcurrency)
	var wg sync.WaitGroup
	for i, r := range reqs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(ctx, logTimeout)
			defer cancel()
			// With the kubelet's timestamps, which serve shows only when
			// asked for and needs for --since.
			q := url.Values{"container": {r.container}, "tailLines": {strconv.Itoa(logTailLines)}, "limitBytes": {strconv.Itoa(logLimitBytes)}, "timestamps": {"true"}}
			if r.previous {
				q.Set("previous", "true")
			}
			out[i] = c.fetch(ctx, path.Join("/api/v1/namespaces", r.namespace, "pods", r.pod, "log"), q, "*/*")
		})
	}
	wg.Wait()
	return out
}
