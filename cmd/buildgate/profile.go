package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to the file BUILDGATE_CPUPROFILE names,
// and a heap profile (what is in use as the run ends) to the file
// BUILDGATE_MEMPROFILE names (docs/performance.md: how the figures there
// were taken); it returns what stops them. The variables are the runner's
// environment, never the repository's.
func startProfile(getenv func(string) string) func() {
	stopCPU := startCPUProfile(getenv("BUILDGATE_CPUPROFILE"))
	heap := getenv("BUILDGATE_MEMPROFILE")
	return func() {
		stopCPU()
		if heap == "" {
			return
		}
		if f, err := os.Create(heap); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			_ = f.Close()
		}
	}
}

func startCPUProfile(name string) func() {
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
