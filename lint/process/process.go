// Package process is what happens to findings between the engine and the
// reporters, as an explicit ordered list of steps, each a function of the
// findings (issue 16). A step that sets findings aside (suppressed, not on
// changed lines, in the baseline) records them where its constructor was
// told to, so that the list reads as the pipeline does:
//
//	settings → dedupe → paths and fixes (pathcheck.go) → fingerprint →
//	suppress → sort → own files → record all → changed lines → baseline →
//	fixes
//
// Each step is one file here, with its test beside it.
// Fingerprints come before suppression: suppressing a finding must not
// change its identity (code scanning then shows it dismissed).
package process

import (
	"github.com/buildgate/buildgate/finding"
)

// Step is one stage of post-processing.
type Step struct {
	Name string
	Fn   func([]finding.Finding) []finding.Finding
}

// Run applies the steps in order.
func Run(fs []finding.Finding, steps ...Step) []finding.Finding {
	for _, s := range steps {
		fs = s.Fn(fs)
	}
	return fs
}

// Keep keeps the findings for which keep holds; with drop set, it also
// drops those from *drop (context files report nothing of their own, kept
// or suppressed).
func Keep(name string, keep func(finding.Finding) bool, drop *[]finding.Finding) Step {
	filter := func(fs []finding.Finding) []finding.Finding {
		out := fs[:0:0]
		for _, f := range fs {
			if keep(f) {
				out = append(out, f)
			}
		}
		return out
	}
	return Step{name, func(fs []finding.Finding) []finding.Finding {
		if drop != nil {
			*drop = filter(*drop)
		}
		return filter(fs)
	}}
}

// Record copies the findings as they are at this point into *into.
func Record(into *[]finding.Finding) Step {
	return Step{"record", func(fs []finding.Finding) []finding.Finding {
		*into = append([]finding.Finding(nil), fs...)
		return fs
	}}
}

// SetAside leaves out the findings aside says, counting them in *n.
func SetAside(name string, aside func(finding.Finding) bool, n *int) Step {
	return Step{name, func(fs []finding.Finding) []finding.Finding {
		out := fs[:0:0]
		for _, f := range fs {
			if aside(f) {
				*n++
				continue
			}
			out = append(out, f)
		}
		return out
	}}
}
