package kind

import (
	"fmt"
	"io"
	"strings"
	"sync"

	kindlog "sigs.k8s.io/kind/pkg/log"
)

// logger hands kind's user-facing messages (its progress, V(0), and its
// warnings and errors) to a writer, a line each prefixed "kind: ", so a
// CI log shows where a cluster creation is; kind's debug levels are
// dropped.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func newLogger(w io.Writer) kindlog.Logger {
	if w == nil {
		return kindlog.NoopLogger{}
	}
	return &logger{w: w}
}

func (l *logger) print(prefix, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		fmt.Fprintf(l.w, "kind: %s%s\n", prefix, strings.TrimSpace(line))
	}
}

func (l *logger) Warn(msg string)                   { l.print("WARNING: ", msg) }
func (l *logger) Warnf(format string, args ...any)  { l.Warn(fmt.Sprintf(format, args...)) }
func (l *logger) Error(msg string)                  { l.print("ERROR: ", msg) }
func (l *logger) Errorf(format string, args ...any) { l.Error(fmt.Sprintf(format, args...)) }

func (l *logger) V(level kindlog.Level) kindlog.InfoLogger {
	if level > 0 {
		return kindlog.NoopInfoLogger{}
	}
	return infoLogger{l}
}

type infoLogger struct{ l *logger }

func (i infoLogger) Info(msg string)                  { i.l.print("", msg) }
func (i infoLogger) Infof(format string, args ...any) { i.Info(fmt.Sprintf(format, args...)) }
func (i infoLogger) Enabled() bool                    { return true }
