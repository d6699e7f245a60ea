package process

import (
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestDedupe(t *testing.T) {
	a := f("A", "p", 1, "error")
	b := a
	b.Pos.Column = 7 // another element of the line, saying the same
	got := Run([]finding.Finding{a, b, f("A", "p", 2, "error")}, Dedupe())
	if len(got) != 2 || got[0].Pos.Column != 0 {
		t.Errorf("%+v", got)
	}
}
