//go:build bench

package main

import (
	"fmt"
	"io"
	"time"
)

// row is one repository's measurements.
type row struct {
	name     string
	copies   int // of vLLM's docker/ (0: another repository)
	files    int
	lint     time.Duration
	lintRSS  float64
	parse    time.Duration
	conftest time.Duration // 0: not measured, or conftest failed
}

// results are a run's measurements, for the targets of issue 16.
type results struct {
	rows               []row
	four, fourConftest time.Duration
	mooncake           int // index in rows of -repo Mooncake=DIR; -1 for none
}

// print writes issue 16's targets beside what was measured: met, missed,
// or not measured (and how to measure it).
func (r results) print(w io.Writer) {
	fmt.Fprintln(w, "| target (issue 16) | measured | met |")
	fmt.Fprintln(w, "|---|---|---|")
	line := func(target, measured string, met *bool) {
		verdict := "not measured"
		switch {
		case met == nil:
		case *met:
			verdict = "**met**"
		default:
			verdict = "**missed**"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", target, measured, verdict)
	}
	is := func(b bool) *bool { return &b }
	vllm := map[int]row{}
	for _, x := range r.rows {
		if x.copies > 0 {
			vllm[x.copies] = x
		}
	}
	if x, ok := vllm[100]; ok {
		if x.conftest > 0 {
			ratio := x.lint.Seconds() / x.conftest.Seconds()
			line("1,300 vLLM files: at most 0.3x conftest's time", fmt.Sprintf("%.2fx (%.2f s vs %.2f s)", ratio, x.lint.Seconds(), x.conftest.Seconds()), is(ratio <= 0.3))
		} else {
			line("1,300 vLLM files: at most 0.3x conftest's time", "conftest not run", nil)
		}
		line("1,300 vLLM files: peak memory at most 150 MB", fmt.Sprintf("%.0f MB", x.lintRSS), is(x.lintRSS <= 150))
	} else {
		line("1,300 vLLM files", "needs ../shared/corpus (-vllm, -vllm-copies 100,770)", nil)
	}
	if x, ok := vllm[770]; ok {
		line("10,010 vLLM files: peak memory at most 300 MB", fmt.Sprintf("%.0f MB", x.lintRSS), is(x.lintRSS <= 300))
		if y, ok := vllm[100]; ok {
			ratio := x.lint.Seconds() / y.lint.Seconds()
			line("10,010 vLLM files: at most 8.5x the 1,300-file time", fmt.Sprintf("%.1fx", ratio), is(ratio <= 8.5))
		}
	} else {
		line("10,010 vLLM files", "needs ../shared/corpus (-vllm, -vllm-copies 100,770)", nil)
	}
	if r.four > 0 && r.fourConftest > 0 {
		ratio := r.four.Seconds() / r.fourConftest.Seconds()
		line("the four migrated vLLM files: at most conftest's time (on the two it reads)", fmt.Sprintf("%.2fx (%.3f s vs %.3f s)", ratio, r.four.Seconds(), r.fourConftest.Seconds()), is(ratio <= 1.0))
	} else {
		line("the four migrated vLLM files", "needs ../shared/corpus and conftest", nil)
	}
	for _, x := range r.rows {
		ratio := x.lint.Seconds() / x.parse.Seconds()
		line(fmt.Sprintf("%s (%d files): lint at most 1.5x parsing alone", x.name, x.files), fmt.Sprintf("%.2fx", ratio), is(ratio <= 1.5))
	}
	if r.mooncake >= 0 {
		x := r.rows[r.mooncake]
		line("kvcache-ai/Mooncake: at most 0.3 s", fmt.Sprintf("%.3f s", x.lint.Seconds()), is(x.lint.Seconds() <= 0.3))
	} else {
		line("kvcache-ai/Mooncake: at most 0.3 s", "pass -repo Mooncake=DIR (a snapshot of kvcache-ai/Mooncake)", nil)
	}
}
