package process

import (
	"encoding/json"
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/internal/datafile"
)

// maxBaselineValues bounds a baseline file: some 20 values a finding,
// for 50,000 findings.
const maxBaselineValues = 1_000_000

// Baseline is the set of findings an earlier run recorded: a JSON report
// (buildgate lint --write-baseline, or --format json).
type Baseline struct {
	fingerprints map[string]bool
	// byMessage holds rule, path and message of entries without a
	// fingerprint (a plain --format json report): those match on that.
	byMessage map[[3]string]bool
}

// ParseBaseline reads the content b of the baseline file path.
func ParseBaseline(path string, b []byte) (*Baseline, error) {
	// A baseline is the pull request's without --config-from-rev: its
	// values are counted before it is decoded (a 64 MB file of {} took
	// 3.3 GB decoded).
	if n := datafile.CountJSON(b, maxBaselineValues); n > maxBaselineValues {
		return nil, fmt.Errorf("--baseline %s: over %d values, more than a baseline may hold", path, maxBaselineValues)
	}
	var rep struct {
		Findings *[]struct {
			Rule        string `json:"rule"`
			Path        string `json:"path"`
			Message     string `json:"message"`
			Fingerprint string `json:"fingerprint"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("--baseline %s: not a JSON report: %w", path, err)
	}
	if rep.Findings == nil {
		return nil, fmt.Errorf("--baseline %s: no \"findings\" (write one with --write-baseline)", path)
	}
	bl := &Baseline{fingerprints: map[string]bool{}, byMessage: map[[3]string]bool{}}
	for _, f := range *rep.Findings {
		if f.Fingerprint != "" {
			bl.fingerprints[f.Fingerprint] = true
		} else {
			bl.byMessage[[3]string{f.Rule, f.Path, f.Message}] = true
		}
	}
	return bl, nil
}

// Has reports whether the baseline holds a finding. A BG001 is never
// held: it says a file or part was not read, and what is not read may
// change without anything the baseline could record changing with it (the
// 151st include's file, the bytes past a bound). A known one is accepted
// with a reasoned `ignore:` entry in the configuration instead.
func (b *Baseline) Has(f finding.Finding) bool {
	if f.Rule == "BG001" {
		return false
	}
	return b.fingerprints[f.Fingerprint] || b.byMessage[[3]string{f.Rule, f.Path, f.Message}]
}

// InBaseline sets aside the findings the baseline holds (none when b is
// nil), counting them in *n.
func InBaseline(b *Baseline, n *int) Step {
	// A rule's failure is never accepted: a baseline written while a rule
	// fails would hide its later failures for good (issue 32).
	return SetAside("baseline", func(f finding.Finding) bool { return b != nil && !f.Failed && b.Has(f) }, n)
}
