package process

import (
	"github.com/buildgate/buildgate/finding"
)

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
