package kind

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCreateFailsAtOnceWithoutARuntime(t *testing.T) {
	var probed []string
	p := New(Options{probe: func(ctx context.Context, cli string) error {
		probed = append(probed, cli)
		return errors.New("engine not reachable: Cannot connect to the Docker daemon")
	}})
	_, err := p.Create(context.Background())
	if !errors.Is(err, ErrNoContainerRuntime) {
		t.Fatalf("err = %v, want ErrNoContainerRuntime", err)
	}
	for _, want := range []string{"--local", "docker: engine not reachable: Cannot connect to the Docker daemon"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Join(probed, ",") != "docker,podman,nerdctl" {
		t.Errorf("probed %v", probed)
	}
	if err := p.Delete(context.Background()); err != nil {
		t.Errorf("Delete after a failed Create: %v", err)
	}
}

// On this machine the docker CLI exists but no daemon runs: the real probe
// must say so rather than let kind try.
func TestProbeEngineRefusesAClientWithoutDaemon(t *testing.T) {
	err := probeEngine(context.Background(), "docker")
	if err == nil {
		t.Skip("a docker engine is running here")
	}
	if !strings.Contains(err.Error(), "not installed") && !strings.Contains(err.Error(), "engine not reachable") {
		t.Errorf("probe error %q", err)
	}
}
