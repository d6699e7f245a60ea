package process

import (
	"github.com/buildgate/buildgate/finding"
)

// Fingerprint sets each finding's fingerprint (finding.Fingerprints).
// A BG001 finding's also holds its file's content (contentOf, nil for
// none): what buildgate could not read may change while the line it
// stopped at does not, and a baseline entry must not cover the change.
func Fingerprint(contentOf ...func(path string) string) Step {
	var salt func(finding.Finding) string
	if len(contentOf) > 0 && contentOf[0] != nil {
		of := contentOf[0]
		salt = func(f finding.Finding) string {
			if f.Rule != "BG001" {
				return ""
			}
			return of(f.Path)
		}
	}
	return Step{"fingerprint", func(fs []finding.Finding) []finding.Finding {
		finding.SetFingerprintsWith(fs, salt)
		return fs
	}}
}
