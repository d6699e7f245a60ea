package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// softMemoryLimit is the Go runtime's soft memory limit buildgate runs
// with unless GOMEMLIMIT says otherwise. With the collector's default
// pacing the heap may grow to twice what is live before a collection; near
// this limit the collector works harder instead. It is not a cap: a run
// that needs more gets it, with more time spent collecting. Measured with
// `scripts/bench -hostile`: the 4 MB script whose 300,000 commands the
// rules all read peaked at 344 MB or 524 MB from run to run without it
// (the 500 MB budget), at 335-350 MB with it, 5% slower. A live heap that
// nears it raises it (raiseLimit): a limit the live heap has reached
// makes the collector run back to back.
const softMemoryLimit = 384 << 20

// smallHeap is the heap a run may take before the collector runs at its
// default pace. Most runs keep little alive (one document per core in
// flight, the compiled policies: some 15-40 MB) and allocate a great deal
// (parsing and converting documents): at the default pace the collector
// ran every 30 MB allocated and took a quarter of the CPU on 1,300 vLLM
// files. Below smallHeap it runs when the heap reaches it (GOGC 400,
// bounded by smallHeap as a soft limit); once what is live passes half of
// it, the default pace and softMemoryLimit apply (largeHeap), so the
// collector never works harder than at the default pace.
const smallHeap = 112 << 20

// setMemoryLimit sets how the collector paces itself, unless the user set
// GOMEMLIMIT or GOGC (which the runtime has already read).
func setMemoryLimit(getenv func(string) string) {
	if getenv("GOMEMLIMIT") != "" {
		return
	}
	if getenv("GOGC") != "" {
		debug.SetMemoryLimit(softMemoryLimit)
		return
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(smallHeap)
	watchHeap()
}

var (
	large atomic.Bool
	// limit is the soft limit in force once the heap is large.
	limit atomic.Int64
)

type gcSentinel struct{ _ *byte }

// watchHeap checks, after every collection, what is live: past half of
// smallHeap it sets the large heap's pacing (largeHeap); past three
// quarters of the soft limit it raises the limit to twice what is live
// (raiseLimit), so that the collector never runs back to back against a
// limit the live heap has reached: on 10,000 files that all mention the
// package (1 GB live) a fixed limit made a 7 s run take 130 s.
func watchHeap() {
	// Not a tiny allocation (one that shares its block with others, and
	// whose finalizer may never run): it holds a pointer.
	sentinel := &gcSentinel{}
	runtime.SetFinalizer(sentinel, func(*gcSentinel) {
		live := liveHeap()
		if largeHeap(live) {
			raiseLimit(live)
		}
		watchHeap()
	})
}

// largeHeap sets the default pacing and the soft limit when live bytes
// are past half of smallHeap, once; it reports whether they are.
func largeHeap(live uint64) bool {
	if live <= smallHeap/2 && !large.Load() {
		return false
	}
	if large.CompareAndSwap(false, true) {
		limit.Store(softMemoryLimit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(softMemoryLimit)
	}
	return true
}

// raiseLimit gives a live heap near the soft limit room to grow at the
// default pace: the limit becomes twice what is live.
func raiseLimit(live uint64) {
	cur := limit.Load()
	if int64(live) <= cur/4*3 {
		return
	}
	next := int64(live) * 2
	if limit.CompareAndSwap(cur, next) {
		debug.SetMemoryLimit(next)
	}
}

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return smallHeap // unknown: pace as for a large heap
	}
	return s[0].Value.Uint64()
}
