package process

import (
	"fmt"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func f(rule, path string, line int, sev string) finding.Finding {
	return finding.Finding{Rule: rule, Path: path, Pos: finding.Pos{Line: line}, Severity: sev, Message: rule + " message"}
}

func ids(fs []finding.Finding) string {
	out := ""
	for _, x := range fs {
		out += fmt.Sprintf("%s@%s:%d/%s ", x.Rule, x.Path, x.Pos.Line, x.Severity)
	}
	return out
}

func TestKeepRecordSetAside(t *testing.T) {
	var all, dropped []finding.Finding
	dropped = []finding.Finding{f("S", "ctx", 1, "error"), f("S", "p", 1, "error")}
	n, m := 0, 0
	got := Run([]finding.Finding{f("A", "ctx", 1, "error"), f("A", "p", 1, "error"), f("A", "p", 2, "error"), f("A", "p", 3, "error")},
		Keep("own", func(x finding.Finding) bool { return x.Path != "ctx" }, &dropped),
		Record(&all),
		SetAside("changed", func(x finding.Finding) bool { return x.Pos.Line == 2 }, &n),
		SetAside("baseline", func(x finding.Finding) bool { return x.Pos.Line == 3 }, &m),
	)
	if ids(got) != "A@p:1/error " || len(all) != 3 || n != 1 || m != 1 || ids(dropped) != "S@p:1/error " {
		t.Errorf("got %s all %d n %d m %d dropped %s", ids(got), len(all), n, m, ids(dropped))
	}
}
