package localapiserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/localapiserver"
	"github.com/bundlectl/bundlectl/internal/test/localtest"
	"k8s.io/client-go/tools/clientcmd"
)

// A port taken between the probe and the child's bind: Create starts
// again on new ports.
func TestATakenPortIsRetried(t *testing.T) {
	binDir := localtest.RequireBinaries(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := taken.Addr().(*net.TCPAddr).Port
	calls := 0
	opts := localapiserver.WithPorts(localapiserver.Options{BinDir: binDir, WorkDir: t.TempDir(), NoBuild: true}, func(n int) ([]int, error) {
		calls++
		ports, err := localapiserver.FreePorts(n)
		if calls == 1 && err == nil {
			ports[0] = takenPort // etcd's client port
		}
		return ports, err
	})
	p := localapiserver.New(opts)
	c, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Delete(context.Background())
	if calls != 2 {
		t.Errorf("ports picked %d times, want 2", calls)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(cfg.Host, ":"+strconv.Itoa(takenPort)) {
		t.Errorf("server %s on the taken port", cfg.Host)
	}
}

func TestAPortTakenEveryTimeIsAnError(t *testing.T) {
	binDir := localtest.RequireBinaries(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	work := t.TempDir()
	calls := 0
	p := localapiserver.New(localapiserver.WithPorts(localapiserver.Options{BinDir: binDir, WorkDir: work, NoBuild: true}, func(n int) ([]int, error) {
		calls++
		ports, err := localapiserver.FreePorts(n)
		if err == nil {
			ports[0] = taken.Addr().(*net.TCPAddr).Port
		}
		return ports, err
	}))
	_, err = p.Create(context.Background())
	if err == nil {
		p.Delete(context.Background())
		t.Fatal("Create succeeded with etcd's port taken")
	}
	if calls != 3 || !strings.Contains(err.Error(), "etcd exited") || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("after %d attempts: %v", calls, err)
	}
	assertEmpty(t, work)
}

// The children die with the program that started them, even when it is
// killed outright and runs no cleanup (Pdeathsig). The work dir stays, as
// documented.
func TestChildrenDieWithTheirParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig is Linux only")
	}
	if os.Getenv("BUNDLECTL_LOCAL_PARENT") == "1" {
		parent()
		return
	}
	localtest.RequireBinaries(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildrenDieWithTheirParent$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_LOCAL_PARENT=1", "BUNDLECTL_LOCAL_WORKDIR="+t.TempDir())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f, ok := strings.CutPrefix(sc.Text(), "PIDS "); ok {
			for _, s := range strings.Fields(f) {
				pid, _ := strconv.Atoi(s)
				pids = append(pids, pid)
			}
			break
		}
	}
	if len(pids) != 2 {
		t.Fatalf("the parent reported PIDs %v", pids)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d is not running while its parent is", pid)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && !zombie(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) && !zombie(pid) {
			t.Errorf("process %d outlived its parent", pid)
		}
	}
}

// parent is the program TestChildrenDieWithTheirParent kills: it starts a
// cluster, reports the PIDs and waits.
func parent() {
	p := localapiserver.New(localapiserver.Options{WorkDir: os.Getenv("BUNDLECTL_LOCAL_WORKDIR"), NoBuild: true})
	if _, err := p.Create(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("PIDS %d %d\n", localapiserver.PIDs(p)[0], localapiserver.PIDs(p)[1])
	time.Sleep(time.Minute)
	os.Exit(1)
}

// zombie reports whether pid has exited but is not reaped yet (its parent,
// now init or a subreaper, may take a moment).
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// pid (comm) state ...
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] == 'Z'
}
