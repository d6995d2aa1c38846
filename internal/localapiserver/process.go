package localapiserver

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"time"
)

var errUnsupported = errors.New("the local provider runs kube-apiserver and etcd as processes on Linux or another Unix only")

// process is one child: etcd, kube-apiserver or the build script. It runs
// in a process group of its own, so a terminal's Ctrl-C reaches only
// bundlectl, which then stops it in order; on Linux it also gets SIGKILL
// when bundlectl dies (Pdeathsig).
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed once the child has exited and been reaped
	err  error         // cmd.Wait's result, set before done is closed
}

// startProcess starts path with args, its output going to out.
//
// Pdeathsig fires when the OS thread that forked the child exits, not when
// the process does, and the Go runtime may end threads (golang/go#27505).
// The child is therefore started from a goroutine locked to its thread
// until the child has been reaped: a thread locked to a live goroutine is
// never ended.
func startProcess(name, path string, args []string, out io.Writer) (*process, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return p, nil
}

// pid is the child's process id (and its process group id).
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the child has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the child's process group, then SIGKILL if it has
// not exited after grace, and returns once the child has been reaped.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = terminateGroup(p.pid())
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = killGroup(p.pid())
		<-p.done
	}
}
