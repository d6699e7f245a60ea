package process

import (
	"github.com/buildgate/buildgate/finding"
)

// Fingerprint sets each finding's fingerprint (finding.Fingerprints).
func Fingerprint() Step {
	return Step{"fingerprint", func(fs []finding.Finding) []finding.Finding {
		finding.SetFingerprints(fs)
		return fs
	}}
}
