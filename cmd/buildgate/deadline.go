package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// deadlineGrace is how long past --timeout the watchdog waits for the
// run's own cancellation, which names the query or phase more precisely,
// before it ends the process itself.
const deadlineGrace = 2 * time.Second

// watchdog ends the process with exit 2 once the run has taken --timeout
// and the grace, whatever it is doing: the run's context stops the
// phases that look at it (discovery, globs, loading, evaluation), and
// this stops those that cannot (a policy builtin, a decoder, a parse of a
// pathological file). It says which phase was running. A pull request
// must not be able to hold the gate open.
type watchdog struct {
	phase atomic.Value // string
	timer *time.Timer
	once  sync.Once
}

// startWatchdog arms a watchdog for a run of timeout (none when timeout
// is not positive).
func startWatchdog(stderr io.Writer, timeout time.Duration) *watchdog {
	w := &watchdog{}
	w.phase.Store("starting")
	if timeout <= 0 {
		return w
	}
	w.timer = time.AfterFunc(timeout+deadlineGrace, func() {
		fmt.Fprintf(stderr, "buildgate: the run did not finish within --timeout %s (while %s)\n", timeout, w.phase.Load())
		os.Exit(exitUsage)
	})
	return w
}

// set names the phase the run is in.
func (w *watchdog) set(phase string) { w.phase.Store(phase) }

// stop disarms the watchdog (before files are written: a fix is never cut
// half way).
func (w *watchdog) stop() {
	w.once.Do(func() {
		if w.timer != nil {
			w.timer.Stop()
		}
	})
}
