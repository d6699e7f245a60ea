package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestSetMemoryLimit: a small heap's pacing (GOGC 400 within smallHeap)
// unless GOGC or GOMEMLIMIT is set; past half of smallHeap live, the
// default pacing and the soft limit.
func TestSetMemoryLimit(t *testing.T) {
	oldLimit, oldPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	defer func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	}()
	env := func(k, v string) func(string) string {
		return func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		name    string
		getenv  func(string) string
		limit   int64
		percent int
	}{
		{"nothing set: the small heap's pacing", env("", ""), smallHeap, 400},
		{"GOGC set: the user's pace, the soft limit", env("GOGC", "100"), softMemoryLimit, 100},
		{"GOMEMLIMIT set: the user's", env("GOMEMLIMIT", "1GiB"), math.MaxInt64, 100},
	}
	for _, c := range cases {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
		setMemoryLimit(c.getenv)
		if got := debug.SetMemoryLimit(-1); got != c.limit {
			t.Errorf("%s: limit %d, want %d", c.name, got, c.limit)
		}
		if got := debug.SetGCPercent(100); got != c.percent {
			t.Errorf("%s: GOGC %d, want %d", c.name, got, c.percent)
		}
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(smallHeap)
	if largeHeap(smallHeap / 4) {
		t.Error("a quarter of smallHeap live is a small heap")
	}
	if !largeHeap(smallHeap) || debug.SetMemoryLimit(-1) != softMemoryLimit || debug.SetGCPercent(100) != 100 {
		t.Error("past half of smallHeap live: the default pacing and the soft limit")
	}
	// A live heap near the limit raises it to twice what is live: the
	// collector never runs back to back against it.
	raiseLimit(softMemoryLimit / 2)
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("half the limit live: limit %d, want it unchanged", got)
	}
	raiseLimit(softMemoryLimit)
	if got := debug.SetMemoryLimit(-1); got != 2*softMemoryLimit {
		t.Errorf("the limit live: limit %d, want twice it", got)
	}
}
