package process

import (
	"context"

	"github.com/buildgate/buildgate/loader"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/fix"
	"github.com/buildgate/buildgate/fixplan"
)

// FixOptions make a run plan buildgate fix's edits.
type FixOptions struct {
	// Rules, when not empty, are the ids of the only rules fixed.
	Rules map[string]bool
	// Unsafe applies the fixes that change what the build does beyond a
	// finding's own element (--unsafe-fixes).
	Unsafe bool
	// OwnOnly plans only the findings' own fixes (fix's later passes).
	OwnOnly bool
	// Packages are the migrations' packages (fix.Options.Packages).
	Packages []string
}

// Planned is where the fixes step puts a fix run's plan.
type Planned struct {
	Files []*fixplan.File
	Err   error
	// Unsafe counts the shown findings whose fix only --unsafe-fixes
	// applies (a lint run's).
	Unsafe int
}

// Fixes is the last step. A fix run (o not nil) plans the edits of the
// findings it reports (suppressed ones are never among them) into
// *planned; any other run gives each source-build finding the removal
// buildgate fix would make and takes a finding's own fix away (saying
// why in its message) where fix would refuse its file, planned from
// every finding of the run (*all, before the changed-lines and baseline
// filters), so every format and library caller offers the edits fix
// makes and no other (fixplan.Offer). suppressed are the run's
// suppressed findings: a fix never takes one away.
//
// kinds are the kinds the run gave its files (fix.Options.Kinds): a file
// typed through `kinds:` or by its content is fixed as that kind.
func Fixes(ctx context.Context, root string, rules []finding.Rule, o *FixOptions, all, suppressed *[]finding.Finding, planned *Planned, kinds map[string]loader.Kind) Step {
	return Step{Name: "fixes", Fn: func(shown []finding.Finding) []finding.Finding {
		if o == nil {
			out, unsafe := fixplan.OfferCounted(ctx, root, rules, *all, shown, *suppressed, kinds)
			planned.Unsafe = unsafe
			return out
		}
		builtin := fixplan.Builtin(rules)
		var sel []finding.Finding
		for _, fd := range shown {
			if fixplan.Fixable(fd, builtin) && (len(o.Rules) == 0 || o.Rules[fd.Rule]) {
				sel = append(sel, fd)
			}
		}
		planned.Files, planned.Err = fixplan.Plan(ctx, root, sel, *suppressed, fix.Options{Unsafe: o.Unsafe, OwnOnly: o.OwnOnly, Writing: true, Packages: o.Packages, Kinds: kinds})
		return shown
	}}
}
