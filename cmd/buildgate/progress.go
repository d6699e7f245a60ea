package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress prints one line on stderr, rewritten in place, while a long run
// goes on: only on a terminal, never in CI logs or pipes, and only once the
// run has taken a second.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	last    time.Time
	printed bool
}

func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok || os.Getenv("CI") != "" || os.Getenv("TERM") == "dumb" {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progress{w: stderr, start: time.Now()}
}

func (p *progress) update(stage string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < time.Second || (now.Sub(p.last) < 200*time.Millisecond && stage == "loading" && done < total) {
		return
	}
	p.last = now
	p.printed = true
	rate := float64(done) / now.Sub(p.start).Seconds()
	if stage == "loading" {
		fmt.Fprintf(p.w, "\r\x1b[Kbuildgate: loading %d/%d files (%.0f files/s)", done, total, rate)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[Kbuildgate: evaluating the policies over %d files", total)
}

// done clears the line before the report is written.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.printed {
		_, _ = io.WriteString(p.w, "\r\x1b[K")
	}
}
