package process

import (
	"github.com/buildgate/buildgate/finding"
)

// Sort orders the findings (finding.Sort).
func Sort() Step {
	return Step{"sort", func(fs []finding.Finding) []finding.Finding {
		finding.Sort(fs)
		return fs
	}}
}
