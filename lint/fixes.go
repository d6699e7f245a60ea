package lint

import (
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/fixplan"
	"github.com/buildgate/buildgate/lint/process"
)

// FixFile is what buildgate fix does to one file (fixplan.File).
type FixFile = fixplan.File

// FixOptions make a run plan buildgate fix's edits (Outcome.Fixes).
type FixOptions = process.FixOptions

// Fixable reports whether buildgate fix may act on a finding: it carries
// a fix, or it is a finding of a built-in source-build rule, which a
// removal may answer.
func Fixable(fd finding.Finding, rules []finding.Rule) bool {
	return fixplan.Fixable(fd, fixplan.Builtin(rules))
}
