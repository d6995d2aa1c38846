package peakrss

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testenv"
)

// TestRunIsTheChilds holds 300 MB in the test process and measures a child
// that holds almost nothing: os/exec's own figure is the parent's peak,
// the launcher's the child's.
func TestRunIsTheChilds(t *testing.T) {
	launcher := testenv.Build(t, Launcher)
	held := make([]byte, 300<<20)
	for i := range held {
		held[i] = 1
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	direct := exec.Command(self, "-test.run=^$")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	inherited := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	peak, out, err := Run(context.Background(), launcher, self, "-test.run=^$")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("child's peak: %d MB through os/exec, %d MB through the launcher", inherited>>20, peak>>20)
	if inherited < 300<<20 {
		t.Logf("os/exec no longer reports the parent's peak as the child's (%d MB)", inherited>>20)
	}
	if peak <= 0 || peak > 150<<20 {
		t.Errorf("the launcher measured %d MB for a child that holds no more than its own executable", peak>>20)
	}
	_ = held[len(held)-1]
}

// TestRunFails reports a command's failure with its output.
func TestRunFails(t *testing.T) {
	launcher := testenv.Build(t, Launcher)
	if _, _, err := Run(context.Background(), launcher, "false"); err == nil {
		t.Error("false succeeded")
	}
}
