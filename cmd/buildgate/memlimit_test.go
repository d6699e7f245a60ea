package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestSetMemoryLimit: the soft limit applies unless GOMEMLIMIT is set,
// which wins.
func TestSetMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(math.MaxInt64)
	setMemoryLimit(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("without GOMEMLIMIT: limit %d, want %d", got, softMemoryLimit)
	}
	debug.SetMemoryLimit(1 << 30)
	setMemoryLimit(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT: limit %d, want the user's %d", got, 1<<30)
	}
}
