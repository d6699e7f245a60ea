package main

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/buildgate/buildgate/internal/safefile"
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
	done  chan struct{}
}

// startWatchdog arms a watchdog for a run of timeout (none when timeout
// is not positive).
func startWatchdog(stderr io.Writer, timeout time.Duration) *watchdog {
	w := &watchdog{done: make(chan struct{})}
	w.phase.Store("starting")
	go w.watchMemory(stderr, maxMemory)
	if timeout <= 0 {
		return w
	}
	w.timer = time.AfterFunc(timeout+deadlineGrace, func() {
		fmt.Fprintf(stderr, "buildgate: the run did not finish within --timeout %s (while %s)\n", timeout, w.phase.Load())
		exitNow()
	})
	return w
}

// set names the phase the run is in.
func (w *watchdog) set(phase string) { w.phase.Store(phase) }

// stop disarms the watchdog: lint's once its reports are written (they
// are watched too: a report stopped half way leaves no file, see
// exitNow), fix's before it writes the fixed files (a fix is never cut
// half way).
func (w *watchdog) stop() {
	w.once.Do(func() {
		if w.timer != nil {
			w.timer.Stop()
		}
		close(w.done)
	})
}

// exitNow ends the process with exit 2 from the watchdog, removing the
// temporary file of a report being written (its old file stays whole).
func exitNow() {
	safefile.RemovePending()
	os.Exit(exitUsage)
}

// maxMemory is the heap a run may use (--max-memory): past it the run
// stops with exit 2, whatever makes it grow (a policy's comprehension, a
// pathological file). Each builtin is bounded on its own (64 MB); this is
// the bound of them all together.
var maxMemory int64 = 1 << 30

// memorySample is how often the heap is looked at: a builtin allocates at
// most 64 MB in one call, so the heap passes the bound by little before
// it is seen.
const memorySample = 20 * time.Millisecond

// watchMemory ends the process with exit 2 once the heap passes limit.
func (w *watchdog) watchMemory(stderr io.Writer, limit int64) {
	if limit <= 0 {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(memorySample)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && int64(sample[0].Value.Uint64()) > limit {
			fmt.Fprintf(stderr, "buildgate: the run used more than %d MB of memory (--max-memory), while %s\n", limit>>20, w.phase.Load())
			exitNow()
		}
	}
}
