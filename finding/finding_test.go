package finding

import (
	"strings"
	"testing"
)

func TestSortAndRank(t *testing.T) {
	fs := []Finding{
		{Rule: "B", Path: "b", Pos: Pos{Line: 1}},
		{Rule: "B", Path: "a", Pos: Pos{Line: 2, Column: 1}},
		{Rule: "A", Path: "a", Pos: Pos{Line: 2, Column: 1}},
		{Rule: "A", Path: "a", Pos: Pos{Line: 1, Column: 9}},
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Path+f.Rule)
	}
	if strings.Join(got, " ") != "aA aA aB bB" || fs[0].Pos.Line != 1 {
		t.Errorf("order %v", got)
	}
	if SeverityRank(SeverityError) <= SeverityRank(SeverityWarning) || SeverityRank(SeverityWarning) <= SeverityRank(SeverityNote) || SeverityRank("x") != 0 {
		t.Error("ranks")
	}
}

// Fingerprints do not depend on lines and keep identical elements apart.
func TestFingerprints(t *testing.T) {
	a := Finding{Rule: "A", Path: "p", Text: "make   install", Pos: Pos{Line: 1}}
	b := Finding{Rule: "A", Path: "p", Text: "make install", Pos: Pos{Line: 40}}
	fps := Fingerprints([]Finding{a, b})
	h := strings.Split(fps[0], ":")[0]
	if fps[0] != h+":1" || fps[1] != h+":2" {
		t.Errorf("%v", fps)
	}
	fs := []Finding{a}
	SetFingerprints(fs)
	if fs[0].Fingerprint != fps[0] {
		t.Error("SetFingerprints")
	}
}
