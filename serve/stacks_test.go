package serve

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"testing"
)

// After holdStacks and a collection, new goroutines start with 8 KB
// stacks (the runtime's own figure), where a process of a few small
// goroutines starts them with less (2 KB here). It runs in a process of its own: the
// goroutines other tests leave behind would count in the average.
func TestHoldStacks(t *testing.T) {
	if os.Getenv("BUNDLECTL_HOLD_STACKS_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHoldStacks$", "-test.v")
		cmd.Env = append(os.Environ(), "BUNDLECTL_HOLD_STACKS_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	starting := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			t.Fatal("this runtime does not report its starting stack size")
		}
		return s[0].Value.Uint64()
	}
	runtime.GC()
	before := starting()
	holdStacks()
	holdStacks() // once per process
	runtime.GC()
	after := starting()
	t.Logf("starting stack: %d bytes before, %d after", before, after)
	if after != 8<<10 || before >= after {
		t.Errorf("goroutines start with %d bytes of stack before and %d after, want less and 8 KB", before, after)
	}
	if n := runtime.NumGoroutine(); n > stackHolders+10 {
		t.Errorf("%d goroutines after holding stacks twice: more than one set", n)
	}
}
