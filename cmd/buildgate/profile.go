package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to the file BUILDGATE_CPUPROFILE names
// (docs/performance.md: how the figures there were taken); it returns
// what stops it. The variable is the runner's environment, never the
// repository's.
func startProfile(getenv func(string) string) func() {
	name := getenv("BUILDGATE_CPUPROFILE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
