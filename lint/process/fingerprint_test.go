package process

import (
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestFingerprint(t *testing.T) {
	a, b := f("A", "p", 1, "error"), f("A", "p", 9, "error")
	got := Run([]finding.Finding{a, b}, Fingerprint())
	if got[0].Fingerprint == "" || got[0].Fingerprint == got[1].Fingerprint {
		t.Fatalf("every finding gets its own fingerprint: %q %q", got[0].Fingerprint, got[1].Fingerprint)
	}
	// A line moved does not change the identity (code scanning keeps the
	// alert): the fingerprint is of the finding's text, not its line.
	moved := b
	moved.Pos.Line = 40
	again := Run([]finding.Finding{a, moved}, Fingerprint())
	if again[1].Fingerprint != got[1].Fingerprint {
		t.Errorf("a moved finding changed its fingerprint: %q -> %q", got[1].Fingerprint, again[1].Fingerprint)
	}
}
