package serve

import (
	"sync"
)

// Each request starts goroutines: its handler's, and net/http's HTTP/2
// writer starts one per response frame it writes outside its buffer (the
// headers always). A goroutine starts with the stack size the runtime
// chose at the last collection, the average of the stacks it scanned then
// (adaptive stack start, Go 1.19) and at least 2 KB; a request's
// goroutines go through TLS and HTTP/2 frames 5-8 KB deep, and each time
// one outgrows its stack the runtime copies it to one twice the size,
// walking every frame with the binary's tables. That was a tenth of
// serve's CPU per single GET, and more in bundlectl's large binary than
// in a small one (perf; internal/peers notes).
//
// So serve parks stackHolders goroutines holding about 6 KB of stack each
// before the collection that follows loading: the average the runtime
// sees makes new goroutines start with 8 KB, and keeps it there at later
// collections unless many more small goroutines are alive then (in one
// process beside 80 idle HTTP/2 connections, clients and servers, it
// stayed at 8 KB; beside 200, 4 KB). They cost stackHolders stacks of 8 KB.
const (
	stackHolders   = 64
	stackHeldBytes = 6 << 10
)

var holdStacksOnce sync.Once

// holdStacks starts the goroutines that hold their stacks, once per
// process, and returns when they hold them; the next collection sets the
// starting size.
func holdStacks() {
	holdStacksOnce.Do(func() {
		var held sync.WaitGroup
		held.Add(stackHolders)
		for range stackHolders {
			go holdStack(&held)
		}
		held.Wait()
	})
}

// holdStack takes stackHeldBytes of stack in one frame, says so, and
// blocks forever.
//
//go:noinline
func holdStack(held *sync.WaitGroup) {
	var frame [stackHeldBytes]byte
	touch(frame[:]) // read, so that the frame is not compiled away
	held.Done()
	select {}
}

//go:noinline
func touch(b []byte) byte { return b[len(b)-1] }
