package contracttest

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// pullError is what containerd says when the registry does not answer.
func pullError(image string) string {
	ref, tag, _ := strings.Cut(image, ":")
	host, repo, _ := strings.Cut(ref, "/")
	return fmt.Sprintf("rpc error: code = DeadlineExceeded desc = failed to pull and unpack image %q: failed to resolve reference %q: failed to do request: Head \"https://%s/v2/%s/manifests/%s\": dial tcp 140.82.121.34:443: i/o timeout",
		image, image, host, repo, tag)
}

func (g *generator) podLogs(p *gPod) map[string][]byte {
	if g.spec.LogBytesPerPod == 0 {
		return nil
	}
	app := p.d.template.Spec.Containers[0].Name
	switch p.state {
	case stCrashLoop:
		return map[string][]byte{
			app + ".log":           g.logText(p, 0, p.lastStart, p.lastFinish, true),
			app + "-previous.log":  g.logText(p, 1, p.lastStart.Add(-6*time.Minute), p.lastStart.Add(-5*time.Minute), true),
			p.d.side.name + ".log": g.logText(p, 2, p.started, g.at, false),
		}
	case stNotReady:
		return map[string][]byte{
			app + ".log":           g.logText(p, 0, p.ready, g.at, false),
			p.d.side.name + ".log": g.logText(p, 2, p.started, g.at, false),
		}
	}
	return nil
}

var logPaths = []string{"/api/v1/orders", "/api/v1/items", "/api/v1/cart", "/healthz", "/readyz", "/metrics", "/api/v1/users/me", "/graphql"}

func (g *generator) logText(p *gPod, n uint64, from, to time.Time, crash bool) []byte {
	r := g.rng(streamLog, uint64(p.d.idx), uint64(p.k), n)
	limit := g.spec.LogBytesPerPod
	var b bytes.Buffer
	var tail []string
	if crash {
		tail = []string{
			"ERROR failed to connect to database: dial tcp 10.96.41.7:5432: connect: connection refused",
			"ERROR giving up after 5 attempts",
			"FATAL shutting down: startup check failed",
		}
	}
	tailLen := 0
	for _, l := range tail {
		tailLen += 31 + len(l)
	}
	span := to.Sub(from)
	if span <= 0 {
		span = time.Second
	}
	t := from
	for i := 0; ; i++ {
		t = t.Add(time.Duration(r.Int64N(int64(span)/40 + 1)))
		if t.After(to) {
			t = to
		}
		var line string
		switch x := r.IntN(10); {
		case x < 7:
			line = fmt.Sprintf("%s INFO  http request method=GET path=%s status=%d duration=%dms request_id=%s\n",
				t.UTC().Format("2006-01-02T15:04:05.000000Z"), pick(r, logPaths), pick(r, []int{200, 200, 200, 204, 304, 404, 503}), 1+r.IntN(400), r.hex(16))
		case x < 9:
			line = fmt.Sprintf("%s WARN  slow upstream call upstream=%s.%s.svc duration=%dms\n",
				t.UTC().Format("2006-01-02T15:04:05.000000Z"), pick(r, components), p.d.ns.name, 500+r.IntN(4000))
		default:
			line = fmt.Sprintf("%s INFO  cache refreshed entries=%d\n", t.UTC().Format("2006-01-02T15:04:05.000000Z"), r.IntN(100000))
		}
		if b.Len()+len(line)+tailLen > limit {
			break
		}
		b.WriteString(line)
	}
	for _, l := range tail {
		line := to.UTC().Format("2006-01-02T15:04:05.000000Z") + " " + l + "\n"
		if b.Len()+len(line) > limit {
			break
		}
		b.WriteString(line)
	}
	return b.Bytes()
}
