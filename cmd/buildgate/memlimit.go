package main

import "runtime/debug"

// softMemoryLimit is the Go runtime's soft memory limit buildgate runs
// with unless GOMEMLIMIT says otherwise. With the collector's default
// pacing the heap may grow to twice what is live before a collection; near
// this limit the collector works harder instead. It is not a cap: a run
// that needs more gets it, with more time spent collecting. Measured with
// `scripts/bench -hostile`: the 4 MB script whose 300,000 commands the
// rules all read peaked at 344 MB or 524 MB from run to run without it
// (the 500 MB budget), at 335-350 MB with it, 5% slower; runs whose heap
// stays under it (1,300 and 10,010 vLLM files) are unchanged.
const softMemoryLimit = 384 << 20

// setMemoryLimit applies softMemoryLimit unless the user set GOMEMLIMIT
// (which the runtime has already read).
func setMemoryLimit(getenv func(string) string) {
	if getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(softMemoryLimit)
}
