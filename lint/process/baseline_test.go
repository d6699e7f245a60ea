package process

import (
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestInBaseline(t *testing.T) {
	a, b, c := f("A", "p", 1, "error"), f("B", "p", 2, "error"), f("C", "q", 3, "error")
	fs := Run([]finding.Finding{a, b, c}, Fingerprint())
	// One entry by fingerprint (--write-baseline), one by rule, path and
	// message (a plain --format json report).
	doc := `{"findings": [{"rule": "A", "path": "p", "message": "other", "fingerprint": "` + fs[0].Fingerprint + `"},
		{"rule": "B", "path": "p", "message": "B message", "line": 7}]}`
	bl, err := ParseBaseline("b.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	got := Run(fs, InBaseline(bl, &n))
	if ids(got) != "C@q:3/error " || n != 2 {
		t.Errorf("kept %s, set aside %d", ids(got), n)
	}
	n = 0
	if got := Run(fs, InBaseline(nil, &n)); len(got) != 3 || n != 0 {
		t.Errorf("no baseline keeps every finding: %s", ids(got))
	}
}

func TestParseBaselineRefuses(t *testing.T) {
	for name, doc := range map[string]string{
		"not JSON":        "findings:",
		"too many values": `{"findings": [` + strings.Repeat(`{},`, 1_000_001) + `{}]}`,
	} {
		if _, err := ParseBaseline("b.json", []byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A baseline never holds a BG001: what it says was not read may change
// while nothing the baseline records does (issue 26's sixth review).
func TestBaselineNeverHoldsUnread(t *testing.T) {
	unread := f("BG001", "p", 1, "error")
	fs := Run([]finding.Finding{unread}, Fingerprint())
	b, err := ParseBaseline("b.json", []byte(`{"findings": [{"rule": "BG001", "path": "p", "message": "`+fs[0].Message+`", "fingerprint": "`+fs[0].Fingerprint+`"}, {"rule": "BG001", "path": "p", "message": "`+fs[0].Message+`"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.Has(fs[0]) {
		t.Error("a baseline held a BG001")
	}
}
