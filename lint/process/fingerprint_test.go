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

// A BG001's fingerprint holds its file's content: the part buildgate could
// not read may change under an unchanged line, and a baseline entry must
// not follow it (issue 26's fifth review). Other rules' do not.
func TestFingerprintOfUnread(t *testing.T) {
	unread, other := f("BG001", "p", 1, "error"), f("BG104", "p", 2, "error")
	content := "v1"
	of := func(string) string { return content }
	first := Run([]finding.Finding{unread, other}, Fingerprint(of))
	content = "v2"
	second := Run([]finding.Finding{unread, other}, Fingerprint(of))
	if first[0].Fingerprint == second[0].Fingerprint {
		t.Error("a BG001 kept its fingerprint though its file changed")
	}
	if first[1].Fingerprint != second[1].Fingerprint {
		t.Error("another rule's fingerprint changed with the file's content")
	}
}
