package process

import (
	"github.com/buildgate/buildgate/changes"
	"github.com/buildgate/buildgate/finding"
)

// ChangedLines sets aside, counting them in *n, the findings that are not
// on lines the change added or touched (none when set is nil, the run
// not limited to a change). Repository-level findings always stay, and so
// do a locked rule's (BG001: a file that cannot be read) on any file the
// change touches: a bound passed by lines added at the end is reported at
// line 1, wherever the error sits.
func ChangedLines(set *changes.Set, rules []finding.Rule, n *int) Step {
	repoLevel, locked := map[string]bool{}, map[string]bool{}
	for _, r := range rules {
		repoLevel[r.ID] = r.RepositoryLevel
		locked[r.ID] = r.Locked
	}
	return SetAside("changed lines", func(f finding.Finding) bool {
		// A rule that failed at run time checked nothing: its failure is
		// the run's, reported whatever lines changed (issue 32).
		return set != nil && f.Path != "" && !f.Failed && !repoLevel[f.Rule] && !set.Touches(f.Path, f.Pos.Line, f.Pos.EndLine) &&
			(!locked[f.Rule] || !set.HasFile(f.Path))
	}, n)
}
