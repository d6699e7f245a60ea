// Package process is what happens to findings between the engine and the
// reporters, as an explicit ordered list of steps, each a function of the
// findings (issue 16). A step that sets findings aside (suppressed, not on
// changed lines, in the baseline) records them where its constructor was
// told to, so that the list reads as the pipeline does:
//
//	settings → dedupe → fingerprint → suppress → sort → own files →
//	record all → changed lines → baseline
//
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

// Setting overrides a rule: a severity, or off.
type Setting struct {
	Severity string
	Disabled bool
}

// Settings drops disabled rules' findings and applies severity overrides.
func Settings(settings map[string]Setting) Step {
	return Step{"settings", func(fs []finding.Finding) []finding.Finding {
		out := make([]finding.Finding, 0, len(fs))
		for _, f := range fs {
			s := settings[f.Rule]
			if s.Disabled {
				continue
			}
			if s.Severity != "" {
				f.Severity = s.Severity
			}
			out = append(out, f)
		}
		return out
	}}
}

// Dedupe removes exact repeats (same rule, file, line and message: two
// elements of one line that say the same thing), keeping the first.
func Dedupe() Step {
	return Step{"dedupe", func(fs []finding.Finding) []finding.Finding {
		type key struct {
			rule, path, msg string
			line            int
		}
		seen := map[key]bool{}
		out := make([]finding.Finding, 0, len(fs))
		for _, f := range fs {
			k := key{f.Rule, f.Path, f.Message, f.Pos.Line}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, f)
		}
		return out
	}}
}

// Fingerprint sets each finding's fingerprint (finding.Fingerprints).
func Fingerprint() Step {
	return Step{"fingerprint", func(fs []finding.Finding) []finding.Finding {
		finding.SetFingerprints(fs)
		return fs
	}}
}

// Sort orders the findings (finding.Sort).
func Sort() Step {
	return Step{"sort", func(fs []finding.Finding) []finding.Finding {
		finding.Sort(fs)
		return fs
	}}
}

// Suppress hands the findings to a suppression function, which returns
// those it keeps, those it suppresses (recorded in *suppressed, each with
// its Suppression set) and the findings suppressions make themselves
// (BG002-BG004: passed through more, which are kept).
func Suppress(fn func([]finding.Finding) (kept, suppressed, made []finding.Finding), more []Step, suppressed *[]finding.Finding) Step {
	return Step{"suppress", func(fs []finding.Finding) []finding.Finding {
		kept, sup, made := fn(fs)
		*suppressed = append(*suppressed, sup...)
		return append(kept, Run(made, more...)...)
	}}
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
