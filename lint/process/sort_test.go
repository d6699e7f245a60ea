package process

import (
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestSort(t *testing.T) {
	got := Run([]finding.Finding{f("B", "q", 1, "error"), f("B", "p", 2, "error"), f("A", "p", 2, "error"), f("R", "", 0, "error")}, Sort())
	if ids(got) != "R@:0/error A@p:2/error B@p:2/error B@q:1/error " {
		t.Errorf("%s", ids(got))
	}
}
