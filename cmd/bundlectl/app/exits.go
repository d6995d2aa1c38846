package app

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Every command ends as Ctrl-C ends it, removing what it wrote (serve's
// kubeconfig and private folder, upgrade's partial NEW), however it is
// told to end from outside: SIGINT, SIGTERM, SIGQUIT, SIGHUP (a closed
// terminal), a closed standard output or error (SIGPIPE: `serve | head`,
// `upgrade OLD - | head -c 100`, where Go's default is to die on the
// spot), and the death of the parent process. Only SIGKILL cannot be
// caught; what must survive it is never written under a name outside the
// command's output (see serve's run folder).
//
// A command started under nohup (SIGHUP ignored) was asked to outlive its
// terminal and the shell that started it: it keeps SIGHUP ignored and
// does not watch its parent.

// exitEvent is why a command was told to end; it is the cause of the
// cancelled context.
type exitEvent struct {
	reason string
	// signal is the signal received, nil for the parent's death.
	signal os.Signal
}

func (e exitEvent) Error() string { return e.reason }

// parentPoll is how often the parent is checked for.
const parentPoll = time.Second

// parentPID is the process that started bundlectl. Linux gives an orphan
// to init or to the nearest subreaper, so the parent pid changes when it
// dies: polled, that is the portable and reliable test. PR_SET_PDEATHSIG
// would be immediate, but it fires when the thread that forked bundlectl
// ends, which in a Go parent (a test runner, a tool) may be any time, and
// not at all when the parent died before it was set; a closed standard
// input tells nothing of serve's, whose input is the user's terminal or
// `-`.
var parentPID = os.Getppid()

// exitContext is the context a command runs in: cancelled, with the
// exitEvent as its cause, at the first way of being told to end. stop
// releases the signals.
func exitContext(streams IOStreams) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	watching, stopWatching := context.WithCancel(context.Background())
	events := watchExits(watching, streams, []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP})
	go func() {
		for {
			select {
			case ev := <-events:
				cancel(ev)
			case <-watching.Done():
				return
			}
		}
	}()
	return ctx, func() {
		stopWatching()
		cancel(context.Canceled)
	}
}

// watchExits reports on the channel it returns, until ctx ends, every
// signal of sigs that arrives (SIGHUP not if it was ignored at start), a
// closed standard output or error of streams, and the parent's death.
func watchExits(ctx context.Context, streams IOStreams, sigs []os.Signal) <-chan exitEvent {
	nohup := signal.Ignored(syscall.SIGHUP)
	var catch []os.Signal
	for _, s := range sigs {
		if s != syscall.SIGHUP || !nohup {
			catch = append(catch, s)
		}
	}
	// Caught, a closed pipe fails the write with EPIPE instead of killing
	// the process; a client's closed connection raises it too, so only
	// the standard streams' own count.
	catch = append(catch, syscall.SIGPIPE)
	received := make(chan os.Signal, 4)
	signal.Notify(received, catch...)
	events := make(chan exitEvent, 1)
	var ticker *time.Ticker
	var tick <-chan time.Time
	if !nohup && parentPID > 1 {
		ticker = time.NewTicker(parentPoll)
		tick = ticker.C
	}
	go func() {
		defer signal.Stop(received)
		if ticker != nil {
			defer ticker.Stop()
		}
		for {
			var ev exitEvent
			select {
			case <-ctx.Done():
				return
			case s := <-received:
				ev = exitEvent{reason: "interrupted by " + signalName(s), signal: s}
				if s == syscall.SIGPIPE {
					if !outputClosed(streams) {
						continue
					}
					ev.reason = "standard output or error was closed"
				}
			case <-tick:
				if os.Getppid() == parentPID {
					continue
				}
				ev = exitEvent{reason: "the process that started bundlectl ended"}
				tick = nil
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return events
}

// signalName is a signal as people know it: SIGHUP rather than "hangup".
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return s.String()
}

// outputClosed says whether the standard output or error among streams
// can no longer be written: its reader is gone.
func outputClosed(streams IOStreams) bool {
	for _, w := range []any{streams.Out, streams.ErrOut} {
		if f, ok := w.(*os.File); ok && writeEndClosed(f) {
			return true
		}
	}
	return false
}
