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

func TestSettings(t *testing.T) {
	got := Run([]finding.Finding{f("A", "p", 1, "error"), f("B", "p", 2, "error"), f("C", "p", 3, "note")},
		Settings(map[string]Setting{"A": {Disabled: true}, "C": {Severity: "warning"}}))
	if ids(got) != "B@p:2/error C@p:3/warning " {
		t.Errorf("%s", ids(got))
	}
}

func TestDedupe(t *testing.T) {
	a := f("A", "p", 1, "error")
	b := a
	b.Pos.Column = 7 // another element of the line, saying the same
	got := Run([]finding.Finding{a, b, f("A", "p", 2, "error")}, Dedupe())
	if len(got) != 2 || got[0].Pos.Column != 0 {
		t.Errorf("%+v", got)
	}
}

func TestFingerprintThenSuppressKeepsIdentity(t *testing.T) {
	var suppressed []finding.Finding
	fs := []finding.Finding{f("A", "p", 2, "error"), f("B", "p", 1, "error")}
	sup := func(fs []finding.Finding) (kept, s, made []finding.Finding) {
		x := fs[0]
		x.Suppression = &finding.Suppression{Kind: "inSource"}
		return fs[1:], []finding.Finding{x}, []finding.Finding{f("BG002", "p", 1, "warning")}
	}
	got := Run(fs, Fingerprint(), Suppress(sup, []Step{Settings(map[string]Setting{"BG002": {Severity: "note"}}), Fingerprint()}, &suppressed), Sort())
	if ids(got) != "B@p:1/error BG002@p:1/note " || len(suppressed) != 1 {
		t.Errorf("kept %s, suppressed %d", ids(got), len(suppressed))
	}
	if suppressed[0].Fingerprint == "" || suppressed[0].Fingerprint != finding.Fingerprints([]finding.Finding{fs[0]})[0] {
		t.Errorf("a suppressed finding keeps its fingerprint: %q", suppressed[0].Fingerprint)
	}
	if got[1].Fingerprint == "" {
		t.Error("the findings suppressions make get fingerprints")
	}
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
